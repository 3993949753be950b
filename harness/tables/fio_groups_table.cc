#include "tables/fio_groups_table.h"

#include <fmt/format.h>

#include <cmath>

namespace kbisect {
namespace {

using nlohmann::json;

// An option of the group's first job, else of fio's "global options", else `fallback`.
std::string option_of(const json& sample, const json& group, const std::string& name,
                      const std::string& fallback) {
  const json& job = group.at("jobs").at(0);
  for (const json* options : {&job, &sample}) {
    const char* key = options == &job ? "job options" : "global options";
    auto found = options->find(key);
    if (found != options->end() && found->contains(name)) return (*found)[name].get<std::string>();
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
  return fmt::format("{:.0f}KB", bytes / 1024);
}

std::string bandwidth_text(double kib_per_second) {
  if (kib_per_second >= 10000) return fmt::format("{:.0f}KB/s", kib_per_second);
  return fmt::format("{:.1f}KB/s", kib_per_second);
}

class GroupPrinter {
 public:
  GroupPrinter(const SampleSet& set, int group_id) : set_(set), group_id_(group_id) {}

  // The median of `path` over the samples, in this group.
  double median(const std::string& path) const {
    return median_over(set_, [&](const json& sample) {
      return metric_of(reporting_groups(sample).at(group_id_), path);
    });
  }

  std::string latency_line(const std::string& dir, const std::string& kind) const {
    const std::string stats = dir + "." + kind + "_ns.";
    return fmt::format("{:>9} (usec): min={:.0f}, max={:.0f}, avg={:.2f}, stdev={:.2f}\n", kind,
                       median(stats + "min") / 1000, median(stats + "max") / 1000,
                       median(stats + "mean") / 1000, median(stats + "stddev") / 1000);
  }

  std::string direction(const std::string& dir) const {
    if (median(dir + ".total_ios") <= 0) return "";
    std::string out = fmt::format("  {:<5}: io={}, bw={}, iops={:.0f}, runt={:.0f}msec\n", dir,
                                  io_text(median(dir + ".io_bytes")),
                                  bandwidth_text(median(dir + ".bw_bytes") / 1024),
                                  median(dir + ".iops"), median(dir + ".runtime"));
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
      out += printer.direction("read") + printer.direction("write");
    }
    out += "\n";
  }
  return out;
}

}  // namespace kbisect
