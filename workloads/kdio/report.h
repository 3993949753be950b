// What gets reported: one entry per job, or per reporting group where group_reporting merges
// consecutive jobs of one group as fio does.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "job.h"
#include "result.h"

namespace kdio {

inline constexpr char kVersion[] = "kdio-0.1.0";

enum class OutputFormat { kNormal, kJson, kJsonPlus };

struct ReportEntry {
  const Job* job = nullptr;  // the first member
  int members = 1;
  JobResult result;
};

std::vector<ReportEntry> report_entries(const std::vector<Job>& jobs,
                                        const std::vector<JobResult>& results);

// fio's rs->agg: per group and direction, the bytes of the group's entries per second of its
// longest run time.
using GroupBandwidths = std::map<int, std::array<uint64_t, 3>>;
GroupBandwidths group_bandwidths(const std::vector<ReportEntry>& entries);

// fio's bw_agg ("per=" in the normal output): a mean bandwidth sample, cut to whole KiB/s as
// fio passes it as an int, in percent of its group's bandwidth, at most 100; 100 when the group
// moved 1 KiB/s or less.
double percent_of_group(double bw_mean_kib, uint64_t group_bw_bytes);

// The labels of fio's latency ranges (LatencyRanges), the msec ones all 12.
inline constexpr const char* kLatencyRangeLabels[] = {
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"};

// fio's stat_calc_lat(): each range's share of the job's reads, writes and trims in percent,
// at least 0.01 when not empty.
std::vector<double> range_percents(std::span<const uint64_t> counts, uint64_t total_ios);

// fio's I/O depth distributions (stat_calc_dist: percent, at least 0.1 when not empty), which
// kdio knows for the synchronous engines alone: every I/O and every fsync=/fdatasync= sync is
// submitted at depth 1, one per submission and completion. Empty for libaio and io_uring.
struct DepthDistributions {
  std::vector<double> level;     // "1", "2", "4", ..., ">=64"
  std::vector<double> submit;    // "0", "4", "8", ..., ">=64"
  std::vector<double> complete;  // the same
};
inline constexpr const char* kDepthLevelLabels[7] = {"1", "2", "4", "8", "16", "32", ">=64"};
inline constexpr const char* kDepthBatchLabels[7] = {"0", "4", "8", "16", "32", "64", ">=64"};
std::optional<DepthDistributions> depth_distributions(const Job& job, const JobResult& result);

struct Report {
  const std::vector<Job>* jobs = nullptr;
  std::vector<ReportEntry> entries;
  bool interrupted = false;
  int64_t timestamp_ms = 0;
  // Whole seconds since kdio started, rounded up: fio's "elapsed" (its ETA's elapsed_sec).
  uint64_t elapsed_s = 0;
};

enum class NumberUnit { kNone, kBytes, kBytesPerSecond };

// fio's num2str (lib/num2str.c) with its default significant_figures=4: the number with at
// most `digits` digits, scaled by 1000 or 1024 (`binary`) with a prefix when longer, and the
// digits left after the whole part, less one for the point, as decimals: 21600 is "21.6k",
// 88300000 B/s "84.2MiB/s" or "88.3MB/s".
std::string num2str(uint64_t num, bool binary, NumberUnit unit, int digits = 4);

std::string render_json(const Report& report, bool plus);
std::string render_normal(const Report& report);

}  // namespace kdio
