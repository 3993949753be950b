#include "pipeline/commit_measurer.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "build/build_log.h"
#include "common/error.h"
#include "common/local_process.h"
#include "config/scenario_hash.h"
#include "git/checkout.h"
#include "pipeline/runner_factory.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The compiler's first error, its path relative to the tree, for a one-line reason.
std::string build_failure_text(const std::string& log, const std::filesystem::path& source_dir) {
  std::string error = first_error_line(log);
  const std::string prefix =
      std::filesystem::absolute(source_dir).lexically_normal().string() + "/";
  if (error.starts_with(prefix)) error.erase(0, prefix.size());
  return error.empty() ? "the kernel does not build" : error;
}

// Checked before the workdir is made: a scenario that boots no kernel leaves none behind.
std::filesystem::path measuring_workdir(const Scenario& scenario,
                                        const std::filesystem::path& workdir) {
  check_runner_boots_kernels(scenario);
  return kbuild_safe_workdir(workdir);
}

}  // namespace

CommitMeasurer::CommitMeasurer(const Scenario& scenario, Store& store, Events& events,
                               std::filesystem::path workdir)
    : scenario_(scenario),
      store_(store),
      events_(events),
      workdir_(measuring_workdir(scenario, workdir)),
      workdir_lock_(workdir_,
                    "wait for it, or give this scenario its own workdir (the key workdir:)"),
      repo_(Repository::open(scenario.kernel.repo, scenario.kernel.repo_place)),
      runner_(make_runner(scenario, workdir_, &events)),
      config_hash_(scenario_hash(scenario)),
      host_(this_host_name()) {}

CommitMeasurer::~CommitMeasurer() = default;

const KernelImage& CommitMeasurer::kernel(const std::string& commit) {
  auto found = kernels_.find(commit);
  if (found != kernels_.end()) return found->second;
  return kernels_.emplace(commit, build_kernel(commit)).first->second;
}

KernelImage CommitMeasurer::build_kernel(const std::string& commit) {
  KernelImage kernel;
  kernel.commit = commit;
  const std::string short_id = commit.substr(0, 12);

  auto start = std::chrono::steady_clock::now();
  events_.phase_begin("checkout", short_id);
  const auto source_dir = workdir_ / "src";
  kernel.tree_id = repo_.commit_info(commit).tree_id;
  materialise_tree(repo_, commit, source_dir);
  timings_.checkout += seconds_since(start);
  events_.phase_end("checkout", seconds_since(start), "ok");

  BuildRequest request;
  request.source_dir = source_dir;
  request.tree_id = kernel.tree_id;
  request.commit_id = commit;
  request.kernel = scenario_.kernel;
  request.guest_configs = guest_configs_for(scenario_);
  request.build = scenario_.build;
  request.object_dir = workdir_ / "obj";
  request.on_progress = [this, &short_id](const BuildProgress& progress) {
    int percent = progress.percent();
    events_.phase_progress("build", percent < 0 ? -1.0 : percent / 100.0,
                           fmt::format("{} ({} files compiled)", short_id, progress.compiled));
  };
  events_.phase_begin("build", short_id);
  BuildResult result = builder_.build(request);
  timings_.config += result.config_seconds;
  timings_.build += result.build_seconds;
  result.cache_hit ? ++timings_.cache_hits : ++timings_.builds;
  events_.phase_end("build", result.seconds,
                    result.ok() ? (result.cache_hit ? "cache hit" : "ok") : "build-failed");
  // A fragment's option that did not hold changes what is measured: say so, once per process.
  for (const std::string& warning : result.warnings) {
    if (build_warnings_shown_.insert(warning).second) {
      events_.note("warning", fmt::format("build of {}: {}", short_id, warning));
    }
  }

  BuildRecord record;
  record.commit = commit;
  record.tree_id = kernel.tree_id;
  record.config_hash = result.config_sha256;
  record.compiler = result.compiler;
  record.outcome = result.ok() ? Outcome::kOk : Outcome::kBuildFailed;
  if (result.ok()) record.image_sha256 = result.image_sha256;
  record.seconds = result.seconds;
  record.log_path = result.log.string();
  record.log_tail = result.log_tail;
  kernel.build_id = store_.insert_build(record);
  kernel.ok = result.ok();
  kernel.image = result.image;
  kernel.image_sha256 = result.image_sha256;
  kernel.failure = result.log_tail;
  return kernel;
}

RunPlace CommitMeasurer::place(const KernelImage& kernel) {
  if (!kernel.ok) fail("internal error: the place of a kernel that did not build");
  RunRequest request;
  request.kernel_image = kernel.image;
  request.commit = kernel.commit;
  request.scenario = &scenario_;
  return runner_->place(request);
}

MeasuredRun CommitMeasurer::measure(const std::string& commit, const Variant* variant,
                                    std::optional<int64_t> session_id) {
  const KernelImage& image = kernel(commit);
  MeasuredRun measured;
  RunRecord run;
  run.session_id = session_id;
  run.build_id = image.build_id;
  run.commit = commit;
  run.variant = variant ? variant->name : "";
  run.host = host_;
  if (!image.ok) {
    measured.outcome = run.outcome = Outcome::kBuildFailed;
    measured.detail = run.detail = build_failure_text(image.failure, workdir_ / "src");
    measured.run_id = store_.insert_run(run);
    return measured;
  }

  RunRequest request;
  request.kernel_image = image.image;
  request.commit = commit;
  request.scenario = &scenario_;
  request.variant = variant;
  request.log_dir = workdir_ / "runs" / commit.substr(0, 12);
  std::filesystem::create_directories(request.log_dir);
  events_.phase_begin("vm", commit.substr(0, 12) + (variant ? "@" + variant->name : ""));
  auto start = std::chrono::steady_clock::now();
  RunResult result = runner_->run(request);
  ++timings_.boots;
  timings_.image += result.image_seconds;
  timings_.boot += result.boot_seconds;
  timings_.workload += result.workload_seconds;
  timings_.teardown += std::max(0.0, seconds_since(start) - result.image_seconds -
                                         result.boot_seconds - result.workload_seconds);
  events_.phase_end("vm", seconds_since(start), outcome_name(result.outcome));
  if (result.outcome == Outcome::kOk && !result.detail.empty()) {
    events_.note("warning", fmt::format("{}: {}", commit.substr(0, 12), result.detail));
  }

  run.host = result.host;
  run.accel = result.accel;
  run.environment = result.environment;
  run.outcome = result.outcome;
  // A guest that never reached its init has no boot or workload time, whatever it took.
  if (result.init_reached) {
    run.boot_seconds = result.boot_seconds;
    run.workload_seconds = result.workload_seconds;
  }
  run.detail = result.detail;
  run.console_log = result.console_log.string();
  measured.outcome = result.outcome;
  measured.detail = result.detail;

  std::vector<SampleRecord> samples;
  RunMetrics metrics;
  if (result.outcome == Outcome::kOk) {
    metrics = extract_metrics(result.kdio_json, scenario_.metrics);
    if (!metrics.problem.empty()) {
      measured.outcome = run.outcome = Outcome::kWorkloadFailed;
      measured.detail = run.detail = "kdio's result rejected: " + metrics.problem;
    }
  }
  if (measured.outcome == Outcome::kOk) {
    SampleRecord sample;
    sample.session_id = session_id;
    sample.commit = commit;
    sample.tree_id = image.tree_id;
    sample.build_id = image.build_id;
    sample.config_hash = config_hash_;
    sample.variant = run.variant;
    sample.host = run.host;
    sample.accel = result.accel;
    sample.boot_seconds = result.boot_seconds;
    sample.kdio_json = result.kdio_json;
    sample.metrics = metrics.values;
    measured.metrics = sample.metrics;
    measured.value = sample.metrics.at(metric_key(scenario_.metrics.front()));
    samples.push_back(std::move(sample));
  }
  measured.run_id = store_.insert_run(run, samples);
  if (!result.vm_started) {
    fail("{}: {}; that is this host or the VM set-up, not the kernel: fix that first",
         commit.substr(0, 12), result.detail);
  }
  return measured;
}

}  // namespace kbisect
