#include "pipeline/session_measurer.h"

#include <algorithm>

#include "common/error.h"
#include "config/scenario_hash.h"
#include "store/metrics.h"
#include "vm/vm_run.h"

namespace kbisect {
namespace {

// How the session sees a run's outcome.
MeasureStatus status_of(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return MeasureStatus::kOk;
    case Outcome::kBuildFailed:
      return MeasureStatus::kBuildFailed;
    case Outcome::kBootFailed:
      return MeasureStatus::kBootFailed;
    case Outcome::kWorkloadFailed:
    case Outcome::kTimeout:
    case Outcome::kInfraError:
      break;
  }
  return MeasureStatus::kOtherFailure;
}

Outcome outcome_of(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk:
      return Outcome::kOk;
    case MeasureStatus::kBuildFailed:
      return Outcome::kBuildFailed;
    case MeasureStatus::kBootFailed:
      return Outcome::kBootFailed;
    case MeasureStatus::kOtherFailure:
    case MeasureStatus::kIdenticalImage:
      break;
  }
  return Outcome::kWorkloadFailed;
}

}  // namespace

StoringMeasurer::StoringMeasurer(Store& store, int64_t session_id, const std::string& metric_key)
    : store_(store),
      session_id_(session_id),
      unjournaled_(store.unjournaled_runs(session_id, metric_key)) {}

Measurement StoringMeasurer::measure(const MeasureRequest& request) {
  auto stored =
      std::find_if(unjournaled_.begin(), unjournaled_.end(),
                   [&](const UnjournaledRun& run) { return run.commit == request.commit; });
  if (stored == unjournaled_.end()) {
    last_run_id_.reset();
    return measure_anew(request);
  }
  Measurement result;
  result.status = status_of(stored->outcome);
  result.detail = stored->detail;
  if (stored->value) result.value = *stored->value;
  last_run_id_ = stored->run_id;
  unjournaled_.erase(stored);
  return result;
}

std::map<std::string, std::string> first_commit_of_each_image(Store& store, int64_t session_id) {
  std::map<std::string, std::string> commit_of_image;
  for (const RunRecord& run : store.runs_of_session(session_id)) {
    if (!run.build_id) continue;
    const std::optional<BuildRecord> build = store.build(*run.build_id);
    if (build && build->image_sha256) commit_of_image.emplace(*build->image_sha256, run.commit);
  }
  return commit_of_image;
}

std::optional<RunPlace> place_of_samples(Store& store, int64_t session_id) {
  std::optional<RunPlace> place;
  for (const RunRecord& run : store.runs_of_session(session_id)) {
    if (run.outcome != Outcome::kOk) continue;
    if (!place) place = RunPlace{run.host, run.accel, ""};
    // Runs stored before kbisect recorded the environment have none: the first that has one.
    if (!run.environment.empty()) {
      place->environment = run.environment;
      break;
    }
  }
  return place;
}

void check_same_place(int64_t session_id, const std::optional<RunPlace>& samples_place,
                      const RunPlace& place) {
  if (!samples_place) return;
  if (samples_place->host != place.host || samples_place->accel != place.accel) {
    fail(
        "session {} took its samples under {} on {}, and would now measure under {} on {}: the "
        "two do not compare; resume it there (vm.accel: {}, and a vm.uri of that host for "
        "another one), or start a new session (--fresh)",
        session_id, samples_place->accel, samples_place->host, place.accel, place.host,
        samples_place->accel);
  }
  // Runs stored before kbisect recorded the environment have none to compare.
  if (!samples_place->environment.empty() && samples_place->environment != place.environment) {
    fail(
        "session {} took its samples with {}, and would now measure with {}: {} changed since, "
        "and the two do not compare; resume it with the kbisect and QEMU it started with, or "
        "start a new session (--fresh)",
        session_id, samples_place->environment, place.environment,
        environment_change(samples_place->environment, place.environment));
  }
}

Measurement KernelMeasurer::measure_anew(const MeasureRequest& request) {
  Measurement result;
  const KernelImage& kernel = measurer_.kernel(request.commit);
  if (kernel.ok && !place_checked_) {
    check_same_place(session_id_, samples_place_, measurer_.place(kernel));
    place_checked_ = true;
  }
  if (kernel.ok) {
    auto [known, inserted] = commit_of_image_.emplace(kernel.image_sha256, request.commit);
    if (!inserted && known->second != request.commit) {
      result.status = MeasureStatus::kIdenticalImage;
      result.same_as = known->second;
      result.detail = "kernel image identical to " + known->second.substr(0, 12);
      return result;
    }
  }
  MeasuredRun run = measurer_.measure(request.commit, variant_, session_id_);
  last_run_id_ = run.run_id;
  result.status = status_of(run.outcome);
  result.detail = run.detail;
  if (run.value) result.value = *run.value;
  return result;
}

StoredSimMeasurer::StoredSimMeasurer(SimMeasurer& sim, Store& store, const Scenario& scenario,
                                     int64_t session_id)
    : StoringMeasurer(store, session_id, metric_key(scenario.metrics.front())),
      sim_(sim),
      scenario_(scenario),
      config_hash_(scenario_hash(scenario)) {}

Measurement StoredSimMeasurer::measure_anew(const MeasureRequest& request) {
  Measurement result = sim_.measure(request);
  RunRecord run;
  run.session_id = session_id_;
  run.commit = request.commit;
  run.host = "sim";
  run.accel = "sim";
  run.environment = "sim";
  run.outcome = outcome_of(result.status);
  run.detail = result.detail;
  std::vector<SampleRecord> samples;
  if (result.status == MeasureStatus::kOk) {
    SampleRecord sample;
    sample.session_id = session_id_;
    sample.commit = request.commit;
    sample.config_hash = config_hash_;
    sample.host = "sim";
    sample.accel = "sim";
    sample.kdio_json = "{}";
    sample.metrics[metric_key(scenario_.metrics.front())] = result.value;
    samples.push_back(std::move(sample));
  }
  last_run_id_ = store_.insert_run(run, samples);
  return result;
}

}  // namespace kbisect
