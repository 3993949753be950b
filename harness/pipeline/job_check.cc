#include "pipeline/job_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "config/reserved_vars.h"
#include "kdio/jobfile.h"
#include "store/metrics.h"
#include "vm/initramfs.h"

namespace kbisect {
namespace {

// The guest has only the listed job files, under other names (/kbisect/jobs/NN-NAME).
std::string refuse_include(const std::string& path) {
  throw kdio::JobError(fmt::format(
      "the guest would not have {}: kbisect copies only the files listed under workload.jobs "
      "into it; put the included options in this job file",
      path));
}

std::string in_variant(const Variant* variant) {
  return variant ? fmt::format(" (variant '{}')", variant->name) : "";
}

// The entries of kdio's JSON report, each the jobs it reports (kdio::reported_with), named
// after its first.
std::vector<std::vector<const kdio::Job*>> report_entries(const kdio::JobFile& jobs) {
  std::vector<std::vector<const kdio::Job*>> entries;
  for (size_t i = 0; i < jobs.jobs.size(); ++i) {
    if (i == 0 || !kdio::reported_with(jobs.jobs[i - 1], jobs.jobs[i])) entries.emplace_back();
    entries.back().push_back(&jobs.jobs[i]);
  }
  return entries;
}

std::vector<std::string> entry_names(const std::vector<std::vector<const kdio::Job*>>& entries) {
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    if (std::find(names.begin(), names.end(), entry.front()->name) == names.end()) {
      names.push_back(entry.front()->name);
    }
  }
  return names;
}

// Whether the job does I/O in the metric's direction (read, write or sync): a latency metric
// leaves out the jobs that do none (they report N = 0), as store/metrics does.
bool does_io_in(const kdio::Job& job, std::string_view direction) {
  using kdio::Pattern;
  const bool mixed = job.pattern == Pattern::kReadWrite || job.pattern == Pattern::kRandReadWrite;
  const bool reads = job.pattern == Pattern::kRead || job.pattern == Pattern::kRandRead ||
                     (mixed && job.rwmix_read_percent > 0);
  const bool writes = job.pattern == Pattern::kWrite || job.pattern == Pattern::kRandWrite ||
                      (mixed && job.rwmix_read_percent < 100);
  if (direction == "read") return reads;
  if (direction == "write") return writes;
  if (direction == "sync") return writes && (job.fsync_every > 0 || job.fdatasync_every > 0);
  return false;
}

// A metric that does not combine (a percentile, bw_mean) over the entries that will report it
// would fail every sample after the build and the boot.
void check_metric_combines(const MetricSpec& metric,
                           const std::vector<std::vector<const kdio::Job*>>& entries,
                           const Variant* variant) {
  if (combines_across_jobs(metric.name)) return;
  const bool latency = is_latency_metric(metric.name);
  const std::string direction = metric.name.substr(0, metric.name.find('.'));
  size_t reporting = 0;
  for (const auto& entry : entries) {
    if (!metric.job.empty() && entry.front()->name != metric.job) continue;
    const bool active = std::any_of(entry.begin(), entry.end(), [&](const kdio::Job* job) {
      return does_io_in(*job, direction);
    });
    if (active || !latency) ++reporting;
  }
  if (reporting <= 1) return;
  fail(
      "{}: metric {}: {} jobs of the job files report it{} and their values cannot be combined; "
      "name one with job: (each job needs a name of its own), or use group_reporting",
      metric.place, metric_key(metric), reporting, in_variant(variant));
}

// A metric of a direction that none of the jobs it reads does I/O in is 0 in every sample
// (read.iops of a writing job) or has no value (a percentile): what to say about it, or "" when
// some job does I/O in its direction.
std::string without_io(const MetricSpec& metric,
                       const std::vector<std::vector<const kdio::Job*>>& entries,
                       const Variant* variant) {
  const std::string direction = metric.name.substr(0, metric.name.find('.'));
  if (direction != "read" && direction != "write" && direction != "sync") return "";
  std::vector<std::string> jobs;
  for (const auto& entry : entries) {
    if (!metric.job.empty() && entry.front()->name != metric.job) continue;
    for (const kdio::Job* job : entry) {
      if (does_io_in(*job, direction)) return "";
      const std::string job_text =
          fmt::format("{} rw={}", job->name, kdio::name_of(kdio::kPatternNames, job->pattern));
      if (std::find(jobs.begin(), jobs.end(), job_text) == jobs.end()) jobs.push_back(job_text);
    }
  }
  const bool sync = direction == "sync";
  const std::string subject =
      metric.job.empty() ? fmt::format("no job of the job files{} {}", in_variant(variant),
                                       sync ? "calls fsync or fdatasync" : direction + "s")
                         : fmt::format("job '{}'{} does not {}", metric.job, in_variant(variant),
                                       sync ? "call fsync or fdatasync" : direction);
  return fmt::format(
      "{}: metric {}: {} (jobs: {}), so every sample would be 0 or have no value; measure what "
      "the jobs do, or change their rw={}",
      metric.place, metric_key(metric), subject, fmt::join(jobs, ", "),
      sync ? " or give a writing job fsync= or fdatasync=" : "");
}

// Checks that every metric names a job kdio reports and combines over the jobs it reads;
// returns, per metric, what without_io says of it.
std::vector<std::string> check_metric_jobs(const Scenario& scenario, const kdio::JobFile& jobs,
                                           const Variant* variant) {
  const auto entries = report_entries(jobs);
  const std::vector<std::string> names = entry_names(entries);
  std::vector<std::string> no_io;
  for (const MetricSpec& metric : scenario.metrics) {
    check_metric_combines(metric, entries, variant);
    if (!metric.job.empty() && std::find(names.begin(), names.end(), metric.job) == names.end()) {
      fail(
          "{}: metric {}: no job named '{}' in the job files{} (jobs: {}); fix job: in the "
          "config",
          metric.place, metric_key(metric), metric.job, in_variant(variant),
          fmt::join(names, ", "));
    }
    no_io.push_back(without_io(metric, entries, variant));
  }
  return no_io;
}

// The least time kdio runs the jobs: each wave lasts as long as its longest time_based job's
// startdelay + ramp_time + runtime, or its longest startdelay.
uint64_t least_run_ns(const kdio::JobFile& jobs) {
  uint64_t total = 0;
  uint64_t wave = 0;
  for (size_t i = 0; i < jobs.jobs.size(); ++i) {
    const kdio::Job& job = jobs.jobs[i];
    if (kdio::starts_wave(job, i)) total += std::exchange(wave, 0);
    const uint64_t busy = job.time_based ? job.ramp_time_ns + job.runtime_ns : 0;
    wave = std::max(wave, job.start_delay_ns + busy);
  }
  return total + wave;
}

// A workload_timeout the jobs cannot finish in would stop every boot's workload after it.
void check_workload_timeout(const Scenario& scenario, const kdio::JobFile& jobs,
                            const Variant* variant) {
  const double least_seconds = static_cast<double>(least_run_ns(jobs)) / 1e9;
  const int timeout = scenario.vm.workload_timeout_seconds;
  if (least_seconds < timeout) return;
  fail(
      "{}: {} s is not enough for the job files{}, which run for at least {:g} s (time_based "
      "runtime, ramp_time and startdelay); raise it, with room for mkfs and laying out the files",
      scenario.vm.workload_timeout_place, timeout, in_variant(variant), least_seconds);
}

// What to do about a ${NAME} that the guest would not set.
std::string how_to_set(const std::string& name, const std::map<std::string, std::string>& guest) {
  if (!is_reserved_var(name)) return "give it under workload.vars or a variant's vars";
  std::vector<std::string> own;
  for (const auto& [variable, value] : guest) {
    if (is_reserved_var(variable)) own.push_back(variable);
  }
  return fmt::format("the guest does not set it; its own variables are {}", fmt::join(own, ", "));
}

// Parses the job files as the guest's kdio will in one variant (none: the default workload).
kdio::JobFile parse_as_in_guest(const Scenario& scenario, const Variant* variant) {
  const GuestRun run = guest_run_for(scenario, variant);
  const std::map<std::string, std::string> guest = guest_environment(run);
  std::vector<std::string> paths;
  for (const auto& job_file : run.job_files) paths.push_back(job_file.string());
  try {
    return kdio::parse_job_files(paths, kdio::Environment(guest.begin(), guest.end()),
                                 refuse_include);
  } catch (const kdio::UnsetVariable& unset) {
    fail("{}: ${{{}}} is not set{}; {}", unset.where, unset.name, in_variant(variant),
         how_to_set(unset.name, guest));
  } catch (const kdio::JobError& error) {
    fail("{}{}", error.what(), in_variant(variant));
  }
}

// kdio's "FILE:LINE: warning: MESSAGE" as "FILE:LINE: MESSAGE": the caller says it is a warning.
std::string without_label(const std::string& warning) {
  constexpr std::string_view kLabel = ": warning: ";
  const size_t label = warning.find(kLabel);
  if (label == std::string::npos) return warning;
  return warning.substr(0, label) + ": " + warning.substr(label + kLabel.size());
}

// " (variants 'a', 'b')" when only some of the variants give the warning.
std::string only_in(const std::vector<std::string>& names, size_t variants) {
  if (names.size() == variants) return "";
  return fmt::format(" (variant{} '{}')", names.size() == 1 ? "" : "s", fmt::join(names, "', '"));
}

}  // namespace

std::vector<std::string> check_job_files(const Scenario& scenario,
                                         const std::vector<const Variant*>& variants) {
  // Each warning once, in the order first given, with the variants that give it.
  std::vector<std::pair<std::string, std::vector<std::string>>> given;
  // A metric without I/O in every variant is an error; in some of them (variants that set rw=
  // through a var, with a metric for each direction), a warning for those.
  std::vector<std::vector<std::string>> no_io(scenario.metrics.size());
  for (const Variant* variant : variants) {
    kdio::JobFile jobs = parse_as_in_guest(scenario, variant);
    const std::vector<std::string> problems = check_metric_jobs(scenario, jobs, variant);
    for (size_t i = 0; i < problems.size(); ++i) {
      if (!problems[i].empty()) no_io[i].push_back(problems[i]);
    }
    check_workload_timeout(scenario, jobs, variant);
    for (const std::string& warning : jobs.warnings) {
      auto same = std::find_if(given.begin(), given.end(),
                               [&](const auto& entry) { return entry.first == warning; });
      if (same == given.end()) same = given.insert(given.end(), {warning, {}});
      same->second.push_back(variant ? variant->name : "");
    }
  }
  std::vector<std::string> warnings;
  for (const std::vector<std::string>& problems : no_io) {
    if (!problems.empty() && problems.size() == variants.size()) fail("{}", problems.front());
    warnings.insert(warnings.end(), problems.begin(), problems.end());
  }
  for (const auto& [warning, names] : given) {
    warnings.push_back(without_label(warning) + only_in(names, variants.size()));
  }
  return warnings;
}

std::vector<std::string> check_job_files(const Scenario& scenario) {
  std::vector<const Variant*> variants;
  for (const Variant& variant : scenario.workload.variants) variants.push_back(&variant);
  if (variants.empty()) variants.push_back(nullptr);
  return check_job_files(scenario, variants);
}

}  // namespace kbisect
