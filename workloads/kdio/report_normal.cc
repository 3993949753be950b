// Human-readable output in the shape of fio's: per job IOPS/BW lines, latency summaries, the
// clat percentile block, CPU use, and a run status line per group.
#include <fmt/format.h>

#include <algorithm>

#include "kdio/json_numbers.h"
#include "report.h"

namespace kdio {
namespace {

const char* kDirNames[] = {"read", "write", "trim"};
const char* kDirUpper[] = {"READ", "WRITE", "TRIM"};

// fio's binary/decimal scaled numbers: "3786KiB" and "3877kB".
std::string scaled(double value, bool binary) {
  const char* bin_units[] = {"", "Ki", "Mi", "Gi", "Ti"};
  const char* dec_units[] = {"", "k", "M", "G", "T"};
  double base = binary ? 1024 : 1000;
  int unit = 0;
  while (value >= 10000 && unit < 4) {
    value /= base;
    ++unit;
  }
  return fmt::format("{:.0f}{}", value, binary ? bin_units[unit] : dec_units[unit]);
}

std::string lat_line(const char* name, const LatStat& s) {
  return fmt::format("    {:>4} (usec): min={:.2f}, max={:.2f}, avg={:.2f}, stdev={:.2f}\n", name,
                     static_cast<double>(s.min_or_zero()) / 1e3, static_cast<double>(s.max) / 1e3,
                     s.mean / 1e3, s.stddev() / 1e3);
}

std::string percentile_block(const char* name, const Histogram& hist) {
  auto list = hist.percentiles(default_percentiles());
  if (list.empty()) return "";
  std::string out = fmt::format("    {} percentiles (usec):\n", name);
  for (size_t i = 0; i < list.size(); ++i) {
    if (i % 4 == 0) out += "     |";
    out += fmt::format(" {:5.2f}th=[{:6}]", list[i].first, (list[i].second + 500) / 1000);
    out += (i % 4 == 3 || i + 1 == list.size()) ? "\n" : ",";
  }
  return out;
}

std::string dir_block(int d, const DirResult& r) {
  double iops = r.runtime_ms
                    ? 1000.0 * static_cast<double>(r.total_ios) / static_cast<double>(r.runtime_ms)
                    : 0;
  double bw = r.runtime_ms
                  ? static_cast<double>(r.io_bytes) * 1000.0 / static_cast<double>(r.runtime_ms)
                  : 0;
  std::string out = fmt::format("  {}: IOPS={}, BW={}B/s ({}B/s)({}B/{}msec)\n", kDirNames[d],
                                scaled(iops, false), scaled(bw, true), scaled(bw, false),
                                scaled(static_cast<double>(r.io_bytes), true), r.runtime_ms);
  if (r.slat.samples) out += lat_line("slat", r.slat);
  out += lat_line("clat", r.clat);
  out += lat_line(" lat", r.lat);
  out += percentile_block("clat", r.clat_hist);
  return out;
}

std::string entry_block(const ReportEntry& e) {
  const JobResult& r = e.result;
  std::string out =
      fmt::format("{}: (groupid={}, jobs={}): err={:2}{}\n", e.job->name, e.job->group_id,
                  e.members, r.error, r.error ? fmt::format(" ({})", r.error_message) : "");
  for (int d = 0; d < 3; ++d) {
    if (r.dir[d].total_ios) out += dir_block(d, r.dir[d]);
  }
  if (r.sync.total_ios) {
    out += fmt::format("  sync: total_ios={}\n", r.sync.total_ios);
    out += lat_line("sync", r.sync.lat);
    out += percentile_block("sync", r.sync.lat_hist);
  }
  double ms = static_cast<double>(std::max<uint64_t>(r.job_runtime_ms, 1));
  out += fmt::format("  cpu          : usr={:.2f}%, sys={:.2f}%, ctx={}\n",
                     static_cast<double>(r.usr_ns) / 1e4 / ms,
                     static_cast<double>(r.sys_ns) / 1e4 / ms, r.ctx);
  return out;
}

std::string group_status(const std::vector<ReportEntry>& entries, int group) {
  std::string out = fmt::format("\nRun status group {} (all jobs):\n", group);
  for (int d = 0; d < 3; ++d) {
    uint64_t bytes = 0, min_ms = UINT64_MAX, max_ms = 0;
    for (const ReportEntry& e : entries) {
      if (e.job->group_id != group || e.result.dir[d].total_ios == 0) continue;
      bytes += e.result.dir[d].io_bytes;
      min_ms = std::min(min_ms, e.result.dir[d].runtime_ms);
      max_ms = std::max(max_ms, e.result.dir[d].runtime_ms);
    }
    if (max_ms == 0) continue;
    double bw = static_cast<double>(bytes) * 1000.0 / static_cast<double>(max_ms);
    out +=
        fmt::format("   {}: bw={}B/s ({}B/s), io={}B ({}B), run={}-{}msec\n", kDirUpper[d],
                    scaled(bw, true), scaled(bw, false), scaled(static_cast<double>(bytes), true),
                    scaled(static_cast<double>(bytes), false), min_ms, max_ms);
  }
  return out;
}

}  // namespace

std::string render_normal(const Report& report) {
  std::string out;
  for (const ReportEntry& e : report.entries) out += entry_block(e);
  std::vector<int> groups;
  for (const ReportEntry& e : report.entries) {
    if (std::find(groups.begin(), groups.end(), e.job->group_id) == groups.end()) {
      groups.push_back(e.job->group_id);
    }
  }
  for (int g : groups) out += group_status(report.entries, g);
  if (report.interrupted) out += "\nkdio: interrupted; the numbers cover the time until the stop\n";
  return out;
}

}  // namespace kdio
