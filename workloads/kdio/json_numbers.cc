#include "kdio/json_numbers.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kdio {

std::span<const std::string_view> direction_numbers() {
  static constexpr std::string_view kList[] = {
      "io_bytes",   "io_kbytes", "bw_bytes", "bw",        "iops",        "runtime",     "total_ios",
      "short_ios",  "drop_ios",  "bw_min",   "bw_max",    "bw_agg",      "bw_mean",     "bw_dev",
      "bw_samples", "iops_min",  "iops_max", "iops_mean", "iops_stddev", "iops_samples"};
  return kList;
}

std::span<const std::string_view> direction_latencies() {
  static constexpr std::string_view kList[] = {"slat_ns", "clat_ns", "lat_ns"};
  return kList;
}

std::span<const std::string_view> latency_numbers() {
  static constexpr std::string_view kList[] = {"min", "max", "mean", "stddev", "N"};
  return kList;
}

std::span<const double> default_percentiles() {
  static constexpr double kList[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                     80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  return kList;
}

std::string percentile_key(double percentile) {
  std::string key(static_cast<size_t>(std::snprintf(nullptr, 0, "%f", percentile)), '\0');
  std::snprintf(key.data(), key.size() + 1, "%f", percentile);
  return key;
}

std::optional<std::string> percentile_key(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return percentile_key(value);
}

}  // namespace kdio
