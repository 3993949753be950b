// Human-readable output in the shape of fio's: per job IOPS/BW lines, latency summaries, the
// clat percentile block, CPU use, and a run status line per group.
#include <fmt/format.h>

#include <algorithm>

#include "kdio/json_numbers.h"
#include "report.h"

namespace kdio {

// As fio's, also where the decimals round up to 1: fio prints 99999 as "99.0k".
std::string num2str(uint64_t num, bool binary, NumberUnit unit, int digits) {
  static const char* const kDecimal[] = {"", "k", "M", "G", "T", "P"};
  static const char* const kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  static const char* const kUnits[] = {"", "B", "B/s"};
  const uint64_t thousand = binary ? 1024 : 1000;
  int prefix = 0;
  uint64_t modulo = 0;
  bool scaled = false;
  while (prefix < 5 && static_cast<int>(std::to_string(num).size()) > digits) {
    modulo = num % thousand;
    num /= thousand;
    scaled = true;
    ++prefix;
  }
  std::string suffix =
      std::string(binary ? kBinary[prefix] : kDecimal[prefix]) + kUnits[static_cast<int>(unit)];
  int left = digits - static_cast<int>(std::to_string(num).size());
  if (!scaled) return std::to_string(num) + suffix;
  if (left <= 1) return std::to_string(num + (modulo >= thousand / 2 ? 1 : 0)) + suffix;
  std::string fraction =
      fmt::format("{:.{}f}", static_cast<double>(modulo) / static_cast<double>(thousand), left - 1);
  return fmt::format("{}.{}{}", num, fraction.substr(2), suffix);
}

namespace {

const char* kDirNames[] = {"read", "write", "trim"};
const char* kDirUpper[] = {"READ", "WRITE", "TRIM"};

// fio's units: kb_base=1024 puts binary ones first ("84.2MiB/s (88.3MB/s)"), 1000 decimal.
struct Units {
  bool binary_first = true;
  std::string first(uint64_t num, NumberUnit unit) const {
    return num2str(num, binary_first, unit);
  }
  std::string second(uint64_t num, NumberUnit unit) const {
    return num2str(num, !binary_first, unit);
  }
  std::string both(uint64_t num, NumberUnit unit) const {
    return fmt::format("{} ({})", first(num, unit), second(num, unit));
  }
};

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

std::string dir_block(int d, const DirResult& r, const Units& units) {
  // As fio: whole bytes and I/Os per second.
  uint64_t bw = r.runtime_ms ? r.io_bytes * 1000 / r.runtime_ms : 0;
  uint64_t iops = r.runtime_ms ? r.total_ios * 1000 / r.runtime_ms : 0;
  std::string out = fmt::format(
      "  {}: IOPS={}, BW={}({}/{}msec){}\n", kDirNames[d], num2str(iops, false, NumberUnit::kNone),
      units.both(bw, NumberUnit::kBytesPerSecond), units.first(r.io_bytes, NumberUnit::kBytes),
      r.runtime_ms, d == 1 ? "; 0 zone resets" : "");
  if (r.slat.samples) out += lat_line("slat", r.slat);
  out += lat_line("clat", r.clat);
  out += lat_line(" lat", r.lat);
  out += percentile_block("clat", r.clat_hist);
  return out;
}

std::string entry_block(const ReportEntry& e, const Units& units) {
  const JobResult& r = e.result;
  std::string out =
      fmt::format("{}: (groupid={}, jobs={}): err={:2}{}\n", e.job->name, e.job->group_id,
                  e.members, r.error, r.error ? fmt::format(" ({})", r.error_message) : "");
  for (int d = 0; d < 3; ++d) {
    if (r.dir[d].total_ios) out += dir_block(d, r.dir[d], units);
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

// fio's group line: the group's bandwidth, the slowest and fastest entry's, the bytes, the
// shortest and longest run time.
std::string group_status(const std::vector<ReportEntry>& entries, int group, const Units& units) {
  std::string out = fmt::format("\nRun status group {} (all jobs):\n", group);
  for (int d = 0; d < 3; ++d) {
    uint64_t bytes = 0, min_ms = UINT64_MAX, max_ms = 0, min_bw = UINT64_MAX, max_bw = 0;
    for (const ReportEntry& e : entries) {
      const DirResult& r = e.result.dir[d];
      if (e.job->group_id != group || r.runtime_ms == 0) continue;
      bytes += r.io_bytes;
      min_ms = std::min(min_ms, r.runtime_ms);
      max_ms = std::max(max_ms, r.runtime_ms);
      min_bw = std::min(min_bw, r.io_bytes * 1000 / r.runtime_ms);
      max_bw = std::max(max_bw, r.io_bytes * 1000 / r.runtime_ms);
    }
    if (max_ms == 0) continue;
    const NumberUnit rate = NumberUnit::kBytesPerSecond;
    out += fmt::format("{:>7}: bw={}, {}-{} ({}-{}), io={}, run={}-{}msec\n", kDirUpper[d],
                       units.both(bytes * 1000 / max_ms, rate), units.first(min_bw, rate),
                       units.first(max_bw, rate), units.second(min_bw, rate),
                       units.second(max_bw, rate), units.both(bytes, NumberUnit::kBytes), min_ms,
                       max_ms);
  }
  return out;
}

// fio takes a group's units from its last entry.
Units group_units(const std::vector<ReportEntry>& entries, int group) {
  Units units;
  for (const ReportEntry& e : entries) {
    if (e.job->group_id == group) units.binary_first = e.job->kb_base != 1000;
  }
  return units;
}

}  // namespace

std::string render_normal(const Report& report) {
  std::string out;
  for (const ReportEntry& e : report.entries) {
    out += entry_block(e, group_units(report.entries, e.job->group_id));
  }
  std::vector<int> groups;
  for (const ReportEntry& e : report.entries) {
    if (std::find(groups.begin(), groups.end(), e.job->group_id) == groups.end()) {
      groups.push_back(e.job->group_id);
    }
  }
  for (int g : groups) out += group_status(report.entries, g, group_units(report.entries, g));
  if (report.interrupted) out += "\nkdio: interrupted; the numbers cover the time until the stop\n";
  return out;
}

}  // namespace kdio
