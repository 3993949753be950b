// Metrics out of kdio's JSON (fio 3.x layout: jobs[].{read,write,trim,sync,...}).
//
// A metric is a path into one job object: read.iops, write.bw_bytes, read.clat_ns.mean,
// write.clat_ns.percentile.99.000000 (percentile.99 and percentile.99.9 work too),
// sync.lat_ns.mean, job_runtime.
//
// Which jobs: MetricSpec::job names one (all jobs with that name when numjobs cloned it);
// empty means every job. Several jobs are combined as follows:
// - sums: iops, bw, bw_bytes, io_bytes, io_kbytes, total_ios, short_ios, drop_ios, N;
// - maximum: runtime, job_runtime, elapsed;
// - latency statistics (under *_ns) consider only jobs that did I/O in that direction (N > 0):
//   min is the minimum, max the maximum, mean the N-weighted mean, stddev the pooled standard
//   deviation; a percentile needs exactly one such job (name it with job:, or use
//   group_reporting so kdio reports the group as one job);
// - anything else needs exactly one job.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "config/scenario.h"

namespace kbisect {

// The name a metric is stored under: "read.iops", or "randread:read.iops" with a job.
std::string metric_key(const MetricSpec& metric);

// Whether several jobs' values of the metric make one, by the rules above (not a percentile).
bool combines_across_jobs(const std::string& metric_name);

// Whether the metric lies under a latency object (*_ns): over several jobs it counts only those
// with I/O in its direction.
bool is_latency_metric(const std::string& metric_name);

// Throws Error naming the metric and what is missing or ambiguous.
double extract_metric(const nlohmann::json& kdio_output, const MetricSpec& metric);

// A run's value of every metric (metric_key() -> value), or in `problem` why it has none:
// kdio's output comes from an untrusted guest, and a job that did no I/O in a direction
// reports no percentiles for it. Such a run failed its workload; it is no error of kbisect's.
struct RunMetrics {
  std::map<std::string, double> values;
  std::string problem;
};
RunMetrics extract_metrics(std::string_view kdio_json, const std::vector<MetricSpec>& metrics);

}  // namespace kbisect
