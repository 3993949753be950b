// The bisection's Measurers (bisect/session.h) that store what they measure: every sample
// becomes a run and a sample row of the session the moment it exists, and the journal
// (store_journal.h) links its entry to that run.
//   KernelMeasurer: real kernels; builds (or takes from the cache) the commit's kernel, boots it
//     once; a commit whose image is byte-identical to one already measured is reported as such,
//     so the session reuses those samples without a boot.
//   StoredSimMeasurer: runner: sim, for statistical tests only (bisect/sim_measurer.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bisect/session.h"
#include "bisect/sim_measurer.h"
#include "pipeline/commit_measurer.h"

namespace kbisect {

// A run that a killed process stored but did not journal answers the resumed session's first
// request for its commit: the resumed session's state is the journal's, so that is the
// measurement it asks for next, in the phase it was taken for; the run is neither lost nor
// taken twice.
class StoringMeasurer : public Measurer {
 public:
  // `metric_key`: the metric a stored run's value is read from (store/metrics.h).
  StoringMeasurer(Store& store, int64_t session_id, const std::string& metric_key);

  Measurement measure(const MeasureRequest& request) final;
  // The run row of the last measure() call; none for an identical image.
  std::optional<int64_t> last_run_id() const { return last_run_id_; }

 protected:
  // A new measurement, stored; sets last_run_id_.
  virtual Measurement measure_anew(const MeasureRequest& request) = 0;

  Store& store_;
  const int64_t session_id_;
  std::optional<int64_t> last_run_id_;

 private:
  std::vector<UnjournaledRun> unjournaled_;
};

// The first commit of the session's runs with each kernel image (image sha256 -> commit): what
// a KernelMeasurer had learnt when its process was killed.
std::map<std::string, std::string> first_commit_of_each_image(Store& store, int64_t session_id);

// The place (vm/runner.h) where the session's samples were taken; none before its first.
std::optional<RunPlace> place_of_samples(Store& store, int64_t session_id);

// Throws Error when a resumed session would measure at another place than its samples so far:
// under KVM instead of TCG, on another host, or with another kdio or QEMU, a verdict would mix
// numbers that do not compare.
void check_same_place(int64_t session_id, const std::optional<RunPlace>& samples_place,
                      const RunPlace& place);

class KernelMeasurer : public StoringMeasurer {
 public:
  KernelMeasurer(CommitMeasurer& measurer, const Variant* variant, Store& store, int64_t session_id,
                 const std::string& metric_key)
      : StoringMeasurer(store, session_id, metric_key),
        measurer_(measurer),
        variant_(variant),
        commit_of_image_(first_commit_of_each_image(store, session_id)),
        samples_place_(place_of_samples(store, session_id)) {}

 private:
  Measurement measure_anew(const MeasureRequest& request) override;

  CommitMeasurer& measurer_;
  const Variant* variant_;
  std::map<std::string, std::string> commit_of_image_;  // image sha256 -> first commit seen
  std::optional<RunPlace> samples_place_;
  bool place_checked_ = false;  // one process measures at one place
};

class StoredSimMeasurer : public StoringMeasurer {
 public:
  StoredSimMeasurer(SimMeasurer& sim, Store& store, const Scenario& scenario, int64_t session_id);

 private:
  Measurement measure_anew(const MeasureRequest& request) override;

  SimMeasurer& sim_;
  const Scenario& scenario_;
  std::string config_hash_;
};

}  // namespace kbisect
