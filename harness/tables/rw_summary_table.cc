#include "tables/rw_summary_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace kbisect {
namespace {

std::string direction(const SampleSet& set, const std::string& dir) {
  auto median = [&](const std::string& path) {
    return median_over(set, [&](const nlohmann::json& sample) { return metric_of(sample, path); });
  };
  return fmt::format("{:<5} {:>12}, {:>6}, {:>11}", dir == "read" ? "READ" : "WRITE",
                     number_text(median(dir + ".bw_bytes") / 1024, "{:.0f}KB/s"),
                     number_text(median(dir + ".iops"), "{:.0f}"),
                     number_text(median(dir + ".lat_ns.mean") / 1000, "{:.2f}us"));
}

std::string side_line(const SampleSet& set, size_t width) {
  if (set.samples.empty()) return fmt::format("{:<{}} | no samples", set.side, width);
  std::string counted =
      set.samples.size() > 1 ? fmt::format(" (median of {})", set.samples.size()) : "";
  return fmt::format("{:<{}} | {} | {}{}", set.side, width, direction(set, "read"),
                     direction(set, "write"), counted);
}

}  // namespace

std::string rw_summary_table(const std::vector<SampleSet>& sets) {
  std::vector<std::string> variants;
  size_t width = 0;
  for (const auto& set : sets) {
    if (std::find(variants.begin(), variants.end(), set.variant) == variants.end()) {
      variants.push_back(set.variant);
    }
    width = std::max(width, set.side.size());
  }
  std::vector<std::string> lines;
  size_t rule_length = 0;
  for (const auto& set : sets) {
    lines.push_back(side_line(set, width));
    rule_length = std::max(rule_length, lines.back().size());
  }
  const std::string rule(rule_length, '-');
  std::string out = "READ and WRITE of each side: bandwidth, IOPS, mean latency (lat)\n";
  for (const std::string& variant : variants) {
    out += fmt::format("\n{}:\n{}\n", variant.empty() ? "(default variant)" : variant, rule);
    for (size_t i = 0; i < sets.size(); ++i) {
      if (sets[i].variant == variant) out += lines[i] + "\n" + rule + "\n";
    }
  }
  return out;
}

}  // namespace kbisect
