#include "config/metric_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "kdio/json_numbers.h"

namespace kbisect {
namespace {

using Problem = std::optional<std::string>;

std::vector<std::string> split_at_dots(const std::string& name) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

bool listed(std::span<const std::string_view> list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

Problem only(std::span<const std::string> parts, size_t count) {
  if (parts.size() == count) return std::nullopt;
  return "too many parts";
}

// The percentile's key has a dot of its own ("99.000000"); fio's spelling or a shorter one
// ("99", "99.9") names it, as the store reads it.
Problem percentile(std::span<const std::string> key_parts) {
  auto key = kdio::percentile_key(fmt::format("{}", fmt::join(key_parts, ".")));
  for (double listed_percentile : kdio::default_percentiles()) {
    if (key == kdio::percentile_key(listed_percentile)) return std::nullopt;
  }
  return fmt::format("kdio reports the percentiles {} (percentile.P)",
                     fmt::join(kdio::default_percentiles(), ", "));
}

// The parts after a latency object (read.clat_ns, sync.lat_ns).
Problem latency(std::span<const std::string> parts, bool has_percentiles) {
  if (!parts.empty() && parts[0] == "percentile") {
    if (!has_percentiles) return "only clat_ns and sync.lat_ns have percentiles";
    return percentile(parts.subspan(1));
  }
  if (parts.empty() || !listed(kdio::latency_numbers(), parts[0])) {
    return fmt::format("latencies have {}{}", fmt::join(kdio::latency_numbers(), ", "),
                       has_percentiles ? " or percentile.P" : "");
  }
  return only(parts, 1);
}

Problem direction(std::span<const std::string> parts) {
  if (parts.size() >= 2 && listed(kdio::direction_numbers(), parts[1])) return only(parts, 2);
  if (parts.size() >= 2 && listed(kdio::direction_latencies(), parts[1]))
    return latency(parts.subspan(2), parts[1] == "clat_ns");
  return fmt::format("unknown field after '{}'", parts[0]);
}

Problem sync(std::span<const std::string> parts) {
  if (parts.size() >= 2 && parts[1] == "total_ios") return only(parts, 2);
  if (parts.size() >= 2 && parts[1] == "lat_ns") return latency(parts.subspan(2), true);
  return "sync has total_ios and lat_ns";
}

}  // namespace

std::optional<std::string> metric_path_problem(const std::string& name) {
  std::vector<std::string> parts = split_at_dots(name);
  const std::string& top = parts[0];
  if (top == "read" || top == "write" || top == "trim") return direction(parts);
  if (top == "sync") return sync(parts);
  if (top == "job_runtime") return only(parts, 1);
  return "it starts with read, write, trim, sync or job_runtime";
}

}  // namespace kbisect
