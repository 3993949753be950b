#include "tables/fio_groups_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace kbisect {
namespace {

using nlohmann::json;

// An option of the group's first job, else of fio's "global options", else `fallback`. fio
// writes every option as a string; one that is not counts as unset.
std::string option_of(const json& sample, const json& group, const std::string& name,
                      const std::string& fallback) {
  const json& job = group.at("jobs").at(0);
  for (const json* options : {&job, &sample}) {
    const char* key = options == &job ? "job options" : "global options";
    auto found = options->find(key);
    if (found == options->end() || !found->is_object()) continue;
    auto value = found->find(name);
    if (value != found->end() && value->is_string()) return value->get<std::string>();
  }
  return fallback;
}

// "psync direct", "libaio direct iodepth=64", "psync buffered".
std::string mode_of(const json& sample, const json& group) {
  std::string engine = option_of(sample, group, "ioengine", "psync");
  bool direct = option_of(sample, group, "direct", "0") == "1" ||
                option_of(sample, group, "buffered", "1") == "0";
  std::string mode = engine + (direct ? " direct" : " buffered");
  if (engine == "libaio" || engine == "io_uring") {
    mode += " iodepth=" + option_of(sample, group, "iodepth", "1");
  }
  return mode;
}

std::string io_text(double bytes) {
  if (bytes >= 1024.0 * 1024) return fmt::format("{:.1f}MB", bytes / (1024.0 * 1024));
  return number_text(bytes / 1024, "{:.0f}KB");
}

std::string bandwidth_text(double kib_per_second) {
  if (kib_per_second >= 10000) return fmt::format("{:.0f}KB/s", kib_per_second);
  return number_text(kib_per_second, "{:.1f}KB/s");
}

class GroupPrinter {
 public:
  GroupPrinter(const SampleSet& set, int group_id) : set_(set), group_id_(group_id) {}

  // The median of `path` over the samples that have this group (and it there).
  double median(const std::string& path) const {
    return median_over(set_, [&](const json& sample) -> std::optional<double> {
      auto groups = reporting_groups(sample);
      auto group = groups.find(group_id_);
      if (group == groups.end()) return std::nullopt;
      return metric_of(group->second, path);
    });
  }

  // Whether any sample has this group: the others ran other job files.
  bool present() const {
    return std::any_of(set_.samples.begin(), set_.samples.end(), [&](const json& sample) {
      return reporting_groups(sample).contains(group_id_);
    });
  }

  std::string latency_line(const std::string& dir, const std::string& kind) const {
    const std::string stats = dir + "." + kind + "_ns.";
    return fmt::format("{:>9} (usec): min={}, max={}, avg={}, stdev={}\n", kind,
                       number_text(median(stats + "min") / 1000, "{:.0f}"),
                       number_text(median(stats + "max") / 1000, "{:.0f}"),
                       number_text(median(stats + "mean") / 1000, "{:.2f}"),
                       number_text(median(stats + "stddev") / 1000, "{:.2f}"));
  }

  // Nothing for a direction without I/O; a NaN count (no sample has it) shows the line of "-".
  std::string direction(const std::string& dir) const {
    if (median(dir + ".total_ios") <= 0) return "";
    std::string out = fmt::format("  {:<5}: io={}, bw={}, iops={}, runt={}msec\n", dir,
                                  io_text(median(dir + ".io_bytes")),
                                  bandwidth_text(median(dir + ".bw_bytes") / 1024),
                                  number_text(median(dir + ".iops"), "{:.0f}"),
                                  number_text(median(dir + ".runtime"), "{:.0f}"));
    if (median(dir + ".slat_ns.N") > 0) out += latency_line(dir, "slat");
    out += latency_line(dir, "clat");
    out += latency_line(dir, "lat");
    return out;
  }

 private:
  const SampleSet& set_;
  int group_id_;
};

}  // namespace

std::string fio_groups_table(const std::vector<SampleSet>& sets) {
  const SampleSet* first = nullptr;
  for (const auto& set : sets) {
    if (!set.samples.empty()) {
      first = &set;
      break;
    }
  }
  if (first == nullptr) return "no samples to tabulate\n";
  std::string out;
  const json& sample = first->samples.front();
  for (const auto& [id, group] : reporting_groups(sample)) {
    out += fmt::format("= {} ({}, group {}) =\n", mode_of(sample, group), group_name(group), id);
    for (const SampleSet& set : sets) {
      std::string counted =
          set.samples.size() > 1 ? fmt::format(" (median of {} samples)", set.samples.size()) : "";
      out += fmt::format("=== {}{} ===\n", set_name(set), counted);
      if (set.samples.empty()) {
        out += "  no samples\n";
        continue;
      }
      GroupPrinter printer(set, id);
      if (!printer.present()) {
        out += "  no sample has this group\n";
        continue;
      }
      out += printer.direction("read") + printer.direction("write");
    }
    out += "\n";
  }
  return out;
}

}  // namespace kbisect
