#include "store/metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "common/printable.h"
#include "kdio/json_numbers.h"

namespace kbisect {
namespace {

using nlohmann::json;

std::vector<std::string> split_path(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
    parts.push_back(name.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(name.substr(start));
  // fio's percentile keys contain a dot ("99.000000"): everything after "percentile" is one key,
  // in fio's spelling so that "99" and "99.9" find it too.
  auto percentile = std::find(parts.begin(), parts.end(), "percentile");
  if (percentile != parts.end() && percentile + 1 != parts.end()) {
    std::string key;
    for (auto it = percentile + 1; it != parts.end(); ++it) key += (key.empty() ? "" : ".") + *it;
    const std::string spelled = kdio::percentile_key(key).value_or(key);
    parts.erase(percentile + 1, parts.end());
    parts.push_back(spelled);
  }
  return parts;
}

std::string job_name(const json& job) {
  auto name = job.find("jobname");
  return name != job.end() && name->is_string() ? name->get<std::string>() : "";
}

// A job's name in a message, which a run's detail stores and the terminal shows: the guest
// wrote it.
std::string shown_name(const json& job) {
  constexpr size_t kMaxShown = 64;
  return printable_ascii(job_name(job), kMaxShown);
}

// The object that holds the leaf (e.g. read.clat_ns for read.clat_ns.mean), or nullptr.
const json* parent_of(const json& job, const std::vector<std::string>& parts) {
  const json* node = &job;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->is_object()) return nullptr;
    auto child = node->find(parts[i]);
    if (child == node->end()) return nullptr;
    node = &*child;
  }
  return node->is_object() ? node : nullptr;
}

double number_at(const json& parent, const std::string& key, const std::string& metric,
                 const json& job) {
  auto value = parent.find(key);
  if (value == parent.end() || !value->is_number()) {
    fail(
        "metric {}: job '{}' of kdio's output has no number at this path; check the metric name "
        "in the config",
        metric, shown_name(job));
  }
  // The guest wrote it: kdio's counts, rates and latencies are finite and never negative.
  double number = value->get<double>();
  if (!std::isfinite(number) || number < 0) {
    fail("metric {}: job '{}' of kdio's output has {} = {}, not a count, rate or time", metric,
         shown_name(job), key, number);
  }
  return number;
}

// One job's contribution: the object holding the leaf and, for latency statistics, the
// statistics object (with N) it belongs to.
struct Part {
  const json* job;
  const json* parent;
  const json* stats;
};

double count_of(const Part& part) {
  if (part.stats == nullptr) return 0;
  auto n = part.stats->find("N");
  return n != part.stats->end() && n->is_number() ? n->get<double>() : 0;
}

const std::set<std::string> kSums = {"iops",      "bw",        "bw_bytes", "io_bytes", "io_kbytes",
                                     "total_ios", "short_ios", "drop_ios", "N"};
const std::set<std::string> kMaxima = {"runtime", "job_runtime", "elapsed"};
const std::set<std::string> kLatencyStatistics = {"min", "max", "mean", "stddev"};

// Where a latency metric's statistics object ends (read.clat_ns of read.clat_ns.mean), or end().
std::vector<std::string>::const_iterator latency_object_end(const std::vector<std::string>& path) {
  return std::find_if(path.begin(), path.end(),
                      [](const std::string& part) { return part.ends_with("_ns"); });
}

bool is_latency(const std::vector<std::string>& path) {
  return latency_object_end(path) != path.end();
}

double combine(const std::vector<Part>& parts, const std::string& leaf, const std::string& key) {
  std::vector<double> values;
  for (const Part& part : parts) values.push_back(number_at(*part.parent, leaf, key, *part.job));
  if (values.size() == 1) return values.front();

  bool latency = parts.front().stats != nullptr;
  if (kSums.contains(leaf)) {
    double sum = 0;
    for (double value : values) sum += value;
    return sum;
  }
  if (kMaxima.contains(leaf) || (latency && leaf == "max")) {
    return *std::max_element(values.begin(), values.end());
  }
  if (latency && leaf == "min") return *std::min_element(values.begin(), values.end());
  if (latency && (leaf == "mean" || leaf == "stddev")) {
    double total = 0;
    double weighted_mean = 0;
    double weighted_square = 0;  // sum of N * E[x^2]
    for (const Part& part : parts) {
      double n = count_of(part);
      double mean = number_at(*part.stats, "mean", key, *part.job);
      double stddev = number_at(*part.stats, "stddev", key, *part.job);
      total += n;
      weighted_mean += n * mean;
      weighted_square += n * (stddev * stddev + mean * mean);
    }
    if (total == 0) return 0;
    double mean = weighted_mean / total;
    if (leaf == "mean") return mean;
    return std::sqrt(std::max(0.0, weighted_square / total - mean * mean));
  }
  fail(
      "metric {}: {} jobs in kdio's output and their {} cannot be combined; name one with job: "
      "in the metric, or use group_reporting in the job file",
      key, parts.size(), leaf);
}

}  // namespace

bool combines_across_jobs(const std::string& metric_name) {
  const std::vector<std::string> path = split_path(metric_name);
  const std::string& leaf = path.back();
  return kSums.contains(leaf) || kMaxima.contains(leaf) ||
         (is_latency(path) && kLatencyStatistics.contains(leaf));
}

bool is_latency_metric(const std::string& metric_name) {
  return is_latency(split_path(metric_name));
}

std::string metric_key(const MetricSpec& metric) {
  return metric.job.empty() ? metric.name : metric.job + ":" + metric.name;
}

double extract_metric(const json& output, const MetricSpec& metric) {
  std::string key = metric_key(metric);
  auto jobs = output.is_object() ? output.find("jobs") : output.end();
  if (!output.is_object() || jobs == output.end() || !jobs->is_array() || jobs->empty()) {
    fail("metric {}: kdio's output has no jobs", key);
  }
  const std::vector<std::string> path = split_path(metric.name);
  auto stats_end = latency_object_end(path);
  std::vector<std::string> stats_path;  // e.g. read.clat_ns plus a placeholder leaf
  if (stats_end != path.end()) {
    stats_path.assign(path.begin(), stats_end + 1);
    stats_path.push_back("N");
  }

  std::vector<Part> selected;
  std::set<std::string> names;
  for (const json& job : *jobs) {
    names.insert(shown_name(job));
    if (!metric.job.empty() && job_name(job) != metric.job) continue;
    const json* stats = stats_path.empty() ? nullptr : parent_of(job, stats_path);
    selected.push_back({&job, parent_of(job, path), stats});
  }
  if (selected.empty()) {
    constexpr size_t kMaxListed = 10;
    const std::vector<std::string> listed(
        names.begin(), std::next(names.begin(), std::min(names.size(), kMaxListed)));
    fail("metric {}: no job named '{}' in kdio's output (jobs: {}{}); fix job: in the config", key,
         metric.job, fmt::join(listed, ", "),
         names.size() > kMaxListed ? fmt::format(", ... {} in all", names.size()) : "");
  }
  if (!stats_path.empty() && selected.size() > 1) {
    // Jobs without I/O in this direction report zeros and no percentiles: leave them out.
    std::vector<Part> active;
    std::copy_if(selected.begin(), selected.end(), std::back_inserter(active),
                 [](const Part& part) { return count_of(part) > 0; });
    if (active.empty()) active.push_back(selected.front());
    selected = std::move(active);
  }
  for (const Part& part : selected) {
    if (part.parent == nullptr) {
      fail("metric {}: job '{}' of kdio's output has no {}; check the metric name in the config",
           key, shown_name(*part.job), metric.name);
    }
  }
  double value = combine(selected, path.back(), key);
  if (!std::isfinite(value)) fail("metric {}: kdio's jobs add up to {}", key, value);
  return value;
}

RunMetrics extract_metrics(std::string_view kdio_json, const std::vector<MetricSpec>& metrics) {
  RunMetrics run;
  const json output = json::parse(kdio_json, nullptr, /*allow_exceptions=*/false);
  if (output.is_discarded()) {
    run.problem = "kdio's output is not valid JSON";
    return run;
  }
  try {
    for (const MetricSpec& metric : metrics) {
      run.values[metric_key(metric)] = extract_metric(output, metric);
    }
  } catch (const Error& error) {
    run.values.clear();
    run.problem = error.what();
  }
  return run;
}

}  // namespace kbisect
