// Human-readable output in the shape of fio's: per job IOPS/BW lines, latency summaries, the
// clat percentile block, CPU use, and a run status line per group.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

// fio's display_lat(): nsec, or usec/msec once min, max and stdev are all large enough; min and
// max as whole numbers of at most 6 digits.
std::string lat_line(const char* name, const LatStat& s) {
  uint64_t min = s.min_or_zero(), max = s.max;
  double mean = s.mean, dev = s.stddev();
  const char* unit = "nsec";
  if (min > 2'000'000 && max > 99'999'999 && dev > 1e6) {
    unit = "msec";
    min /= 1'000'000, max /= 1'000'000, mean /= 1e6, dev /= 1e6;
  } else if (min > 2000 && max > 99'999 && dev > 1000) {
    unit = "usec";
    min /= 1000, max /= 1000, mean /= 1e3, dev /= 1e3;
  }
  return fmt::format("    {} ({}): min={}, max={}, avg={:5.2f}, stdev={:5.2f}\n", name, unit,
                     num2str(min, false, NumberUnit::kNone, 6),
                     num2str(max, false, NumberUnit::kNone, 6), mean, dev);
}

// fio's show_clat_percentiles(): the unit from the smallest and largest value shown, values
// rounded up into it, at least 5 wide, as many per line as fit in 80 columns.
std::string percentile_block(const char* name, const Histogram& hist) {
  auto list = hist.percentiles(default_percentiles());
  if (list.empty()) return "";
  uint64_t minv = UINT64_MAX, maxv = 0;
  for (const auto& [p, value] : list) minv = std::min(minv, value), maxv = std::max(maxv, value);
  int scale_down = 0;
  uint64_t divisor = 1;
  const char* unit = "nsec";
  if (minv > 2'000'000 && maxv > 99'999'999) {
    scale_down = 2, divisor = 1'000'000, unit = "msec";
  } else if (minv > 2000 && maxv > 99'999) {
    scale_down = 1, divisor = 1000, unit = "usec";
  }
  // The digits of the largest value (log10(0) would be -inf, which no int holds).
  const uint64_t largest = std::max<uint64_t>(1, maxv / divisor);
  const int width = std::max(5, static_cast<int>(std::log10(static_cast<double>(largest)) + 1));
  const size_t per_line = static_cast<size_t>((80 - 7) / (2 + 10 + width));
  std::string out = fmt::format("    {} percentiles ({}):\n     |", name, unit);
  for (size_t i = 0; i < list.size(); ++i) {
    if (i != 0 && i % per_line == 0) out += "     |";
    uint64_t value = list[i].second;
    for (int step = 0; step < scale_down; ++step) value = (value + 999) / 1000;
    bool last = i + 1 == list.size();
    out += fmt::format(" {:5.2f}th=[{:{}}]{}", list[i].first, value, width, last ? '\n' : ',');
    if (!last && i % per_line == per_line - 1) out += "\n";
  }
  return out;
}

// fio's bandwidth and IOPS sample lines; bandwidth in KiB/s ("kB" with kb_base=1000, which
// fio writes for the same numbers), in MiB/s above 1 GiB/s.
std::string samples_block(const DirResult& r, const Units& units, uint64_t group_bw_bytes) {
  std::string out;
  if (r.bw_samples.samples) {
    const LatStat& bw = r.bw_samples;
    double per = percent_of_group(bw.mean, group_bw_bytes);
    double base = units.binary_first ? 1024.0 : 1000.0;
    uint64_t min = bw.min, max = bw.max;
    double mean = bw.mean, dev = bw.stddev();
    const char* unit = units.binary_first ? "KiB" : "kB";
    if (mean > base * base) {
      min = static_cast<uint64_t>(static_cast<double>(min) / base);
      max = static_cast<uint64_t>(static_cast<double>(max) / base);
      mean /= base, dev /= base, unit = "MiB";
    }
    out += fmt::format(
        "   bw ({:>5}/s): min={:5}, max={:5}, per={:3.2f}%, avg={:5.2f}, stdev={:5.2f}, "
        "samples={}\n",
        unit, min, max, per, mean, dev, bw.samples);
  }
  if (r.iops_samples.samples) {
    const LatStat& iops = r.iops_samples;
    out +=
        fmt::format("   iops        : min={:5}, max={:5}, avg={:5.2f}, stdev={:5.2f}, samples={}\n",
                    iops.min, iops.max, iops.mean, iops.stddev(), iops.samples);
  }
  return out;
}

std::string dir_block(int d, const DirResult& r, const Units& units, uint64_t group_bw_bytes) {
  // As fio: whole bytes and I/Os per second.
  uint64_t bw = r.runtime_ms ? r.io_bytes * 1000 / r.runtime_ms : 0;
  uint64_t iops = r.runtime_ms ? r.total_ios * 1000 / r.runtime_ms : 0;
  std::string out = fmt::format(
      "  {}: IOPS={}, BW={}({}/{}msec){}\n", kDirNames[d], num2str(iops, false, NumberUnit::kNone),
      units.both(bw, NumberUnit::kBytesPerSecond), units.first(r.io_bytes, NumberUnit::kBytes),
      r.runtime_ms, d == 1 ? "; 0 zone resets" : "");
  if (r.slat.samples) out += lat_line("slat", r.slat);
  if (r.clat.samples) out += lat_line("clat", r.clat);
  if (r.lat.samples) out += lat_line(" lat", r.lat);
  out += percentile_block("clat", r.clat_hist);
  out += samples_block(r, units, group_bw_bytes);
  return out;
}

// fio's show_lat(): the ranges that have completions, five to a line.
std::string ranges_lines(std::span<const uint64_t> counts, uint64_t total_ios, const char* unit) {
  auto percents = range_percents(counts, total_ios);
  std::string out;
  int on_line = 0;
  for (size_t i = 0; i < percents.size(); ++i) {
    if (percents[i] <= 0.0) continue;
    if (on_line == 5) out += "\n", on_line = 0;
    out += on_line == 0 ? fmt::format("  lat ({})   : ", unit) : ", ";
    out += fmt::format("{}={:3.2f}%", kLatencyRangeLabels[i], percents[i]);
    ++on_line;
  }
  return out.empty() ? out : out + "\n";
}

std::string latency_ranges_block(const JobResult& r) {
  uint64_t total_ios = r.total_ios();
  return ranges_lines(r.clat_ranges.nsec, total_ios, "nsec") +
         ranges_lines(r.clat_ranges.usec, total_ios, "usec") +
         ranges_lines(r.clat_ranges.msec, total_ios, "msec");
}

std::string distribution_line(const char* name, const std::vector<double>& percents,
                              const char* const (&labels)[7]) {
  std::string out = fmt::format("{}: ", name);
  for (size_t i = 0; i < 7; ++i) {
    out += fmt::format("{}{}={:3.1f}%", i ? ", " : "", labels[i], percents[i]);
  }
  return out + "\n";
}

// fio's lines after the CPU use: I/O depths (synchronous engines only, see
// depth_distributions), the I/Os issued per direction and syncs, the latency target line.
std::string depth_lines(const Job& job, const JobResult& r) {
  std::string out;
  if (auto depths = depth_distributions(job, r)) {
    out += distribution_line("  IO depths    ", depths->level, kDepthLevelLabels);
    out += distribution_line("     submit    ", depths->submit, kDepthBatchLabels);
    out += distribution_line("     complete  ", depths->complete, kDepthBatchLabels);
  }
  out += fmt::format("     issued rwts: total={},{},{},{} short={},{},{},0 dropped=0,0,0,0\n",
                     r.dir[0].total_ios, r.dir[1].total_ios, r.dir[2].total_ios, r.sync.fsyncs,
                     r.dir[0].short_ios, r.dir[1].short_ios, r.dir[2].short_ios);
  out += fmt::format("     latency   : target=0, window=0, percentile=100.00%, depth={}\n",
                     job.iodepth);
  return out;
}

std::string entry_block(const ReportEntry& e, const Units& units,
                        const std::array<uint64_t, 3>& group_bw) {
  const JobResult& r = e.result;
  std::string out =
      fmt::format("{}: (groupid={}, jobs={}): err={:2}{}\n", e.job->name, e.job->group_id,
                  e.members, r.error, r.error ? fmt::format(" ({})", r.error_message) : "");
  for (int d = 0; d < 3; ++d) {
    if (r.dir[d].total_ios) out += dir_block(d, r.dir[d], units, group_bw[static_cast<size_t>(d)]);
  }
  out += latency_ranges_block(r);
  if (r.sync.lat.samples) {
    out += "  fsync/fdatasync/sync_file_range:\n";
    out += lat_line("sync", r.sync.lat);
    out += percentile_block("sync", r.sync.lat_hist);
  }
  double ms = static_cast<double>(std::max<uint64_t>(r.job_runtime_ms, 1));
  out += fmt::format("  cpu          : usr={:.2f}%, sys={:.2f}%, ctx={}, majf={}, minf={}\n",
                     static_cast<double>(r.usr_ns) / 1e4 / ms,
                     static_cast<double>(r.sys_ns) / 1e4 / ms, r.ctx, r.majf, r.minf);
  out += depth_lines(*e.job, r);
  return out;
}

// fio's group line: the group's bandwidth, the slowest and fastest entry's, the bytes, the
// shortest and longest run time.
std::string group_status(const std::vector<ReportEntry>& entries, int group,
                         const std::array<uint64_t, 3>& group_bw, const Units& units) {
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
                       units.both(group_bw[d], rate), units.first(min_bw, rate),
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

// The lines fio prints as it starts: one per job ("..." for its second clone, nothing for
// later ones), its version, the number of processes and threads. kdio has no trims: their
// block size shows the writes', fio's value unless bs= gave a third one.
std::string start_lines(const std::vector<Job>& jobs) {
  std::string out;
  int threads = 0, processes = 0;
  for (const Job& job : jobs) {
    (job.use_threads ? threads : processes) += 1;
    if (job.clone_index == 1) out += "...\n";
    if (job.clone_index != 0) continue;
    bool binary = job.kb_base != 1000;
    auto size = [&](uint64_t bytes) { return num2str(bytes, binary, NumberUnit::kBytes); };
    const BlockSizeRange& r = job.block_size[0];
    const BlockSizeRange& w = job.block_size[1];
    out += fmt::format(
        "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}\n",
        job.name, job.group_id, name_of(kPatternNames, job.pattern), size(r.min), size(r.max),
        size(w.min), size(w.max), size(w.min), size(w.max), name_of(kEngineNames, job.engine),
        job.iodepth);
  }
  out += fmt::format("{}\nStarting ", kVersion);
  auto count = [](int n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  if (threads) out += count(threads, "thread", "threads");
  if (threads && processes) out += " and ";
  if (processes) out += count(processes, "process", "processes");
  return out + "\n\n";
}

}  // namespace

std::string render_normal(const Report& report) {
  std::string out = start_lines(*report.jobs);
  GroupBandwidths group_bw = group_bandwidths(report.entries);
  for (const ReportEntry& e : report.entries) {
    int group = e.job->group_id;
    out += entry_block(e, group_units(report.entries, group), group_bw[group]);
  }
  std::vector<int> groups;
  for (const ReportEntry& e : report.entries) {
    if (std::find(groups.begin(), groups.end(), e.job->group_id) == groups.end()) {
      groups.push_back(e.job->group_id);
    }
  }
  for (int g : groups) {
    out += group_status(report.entries, g, group_bw[g], group_units(report.entries, g));
  }
  if (report.interrupted) out += "\nkdio: interrupted; the numbers cover the time until the stop\n";
  return out;
}

}  // namespace kdio
