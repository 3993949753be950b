#include "report.h"

#include <algorithm>

namespace kdio {

std::vector<ReportEntry> report_entries(const std::vector<Job>& jobs,
                                        const std::vector<JobResult>& results) {
  std::vector<ReportEntry> entries;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    if (i > 0 && reported_with(jobs[i - 1], job)) {
      entries.back().result.merge(results[i]);
      ++entries.back().members;
      continue;
    }
    entries.push_back({&job, 1, results[i]});
  }
  return entries;
}

GroupBandwidths group_bandwidths(const std::vector<ReportEntry>& entries) {
  std::map<int, std::array<uint64_t, 3>> bytes, longest, bandwidth;
  for (const ReportEntry& e : entries) {
    for (int d = 0; d < 3; ++d) {
      bytes[e.job->group_id][d] += e.result.dir[d].io_bytes;
      longest[e.job->group_id][d] =
          std::max(longest[e.job->group_id][d], e.result.dir[d].runtime_ms);
    }
  }
  for (auto& [group, total] : bytes) {
    for (int d = 0; d < 3; ++d) {
      uint64_t ms = longest[group][d];
      bandwidth[group][d] = ms ? total[d] * 1000 / ms : 0;
    }
  }
  return bandwidth;
}

double percent_of_group(double bw_mean_kib, uint64_t group_bw_bytes) {
  if (group_bw_bytes <= 1024) return 100.0;
  double percent = static_cast<double>(static_cast<int64_t>(bw_mean_kib)) * 100.0 /
                   (static_cast<double>(group_bw_bytes) / 1024.0);
  return std::min(percent, 100.0);
}

std::vector<double> range_percents(std::span<const uint64_t> counts, uint64_t total_ios) {
  std::vector<double> percents;
  for (uint64_t count : counts) {
    double percent =
        total_ios ? static_cast<double>(count) * 100.0 / static_cast<double>(total_ios) : 0.0;
    percents.push_back(count && percent < 0.01 ? 0.01 : percent);
  }
  return percents;
}

std::optional<DepthDistributions> depth_distributions(const Job& job, const JobResult& result) {
  if (job.engine != Engine::kPsync && job.engine != Engine::kSync) return std::nullopt;
  uint64_t ios = result.total_ios();
  // fio counts the syncs in the depth levels, but divides by the reads and writes alone, so that
  // psync with fsync= reads 1=106.1%.
  uint64_t at_depth_one = ios + result.sync.total_ios;
  auto first_of_seven = [](double percent) {
    std::vector<double> out(7, 0.0);
    out[0] = percent;
    return out;
  };
  auto percent = [](uint64_t count, uint64_t total) {
    if (total == 0) return 0.0;
    double p = static_cast<double>(count) * 100.0 / static_cast<double>(total);
    return count && p < 0.1 ? 0.1 : p;
  };
  DepthDistributions out;
  out.level = first_of_seven(percent(at_depth_one, ios));
  // One I/O per submission and completion, counted in fio's second bucket, "4" (1 to 4).
  double all = at_depth_one ? 100.0 : 0.0;
  out.submit = std::vector<double>(7, 0.0);
  out.submit[1] = all;
  out.complete = out.submit;
  return out;
}

}  // namespace kdio
