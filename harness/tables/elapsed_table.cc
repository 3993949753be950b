#include "tables/elapsed_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace kbisect {
namespace {

std::optional<double> elapsed_seconds(const nlohmann::json& sample, int group_id) {
  auto groups = reporting_groups(sample);
  auto group = groups.find(group_id);
  if (group == groups.end()) return std::nullopt;
  std::optional<double> read = metric_of(group->second, "read.runtime");
  std::optional<double> write = metric_of(group->second, "write.runtime");
  if (!read || !write) return std::nullopt;
  return std::max(*read, *write) / 1000;
}

}  // namespace

std::string elapsed_table(const std::vector<SampleSet>& sets) {
  auto first = std::find_if(sets.begin(), sets.end(),
                            [](const SampleSet& set) { return !set.samples.empty(); });
  if (first == sets.end()) return "no samples to tabulate\n";
  const auto groups = reporting_groups(first->samples.front());
  bool several_sides = std::any_of(sets.begin(), sets.end(), [&](const SampleSet& set) {
    return set.side != sets.front().side;
  });
  auto label = [&](const SampleSet& set) {
    std::string text = set.variant.empty() ? "(default)" : set.variant;
    return several_sides ? text + " / " + set.side : text;
  };
  const std::string heading = several_sides ? "variant / side" : "variant";
  size_t width = heading.size();
  for (const auto& set : sets) width = std::max(width, label(set).size());
  std::string out = fmt::format("{:<{}}", heading, width);
  for (const auto& [id, group] : groups) out += fmt::format(" {:>10}", group_name(group));
  out += "\n";
  for (const SampleSet& set : sets) {
    out += fmt::format("{:<{}}", label(set), width);
    for (const auto& [id, group] : groups) {
      double seconds = median_over(
          set, [id = id](const nlohmann::json& sample) { return elapsed_seconds(sample, id); });
      out += fmt::format(" {:>10}", number_text(seconds, "{:.2f}s"));
    }
    if (set.samples.size() > 1) out += fmt::format("  (median of {})", set.samples.size());
    out += "\n";
  }
  return out + "elapsed: the longest job of each reporting group\n";
}

}  // namespace kbisect
