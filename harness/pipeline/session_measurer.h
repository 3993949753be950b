// The bisection's Measurers (bisect/session.h) that store what they measure: every sample
// becomes a run and a sample row of the session the moment it exists, and the journal
// (store_journal.h) links its entry to that run.
//   KernelMeasurer: real kernels; builds (or takes from the cache) the commit's kernel, boots it
//     once; a commit whose image is byte-identical to one already measured is reported as such,
//     so the session reuses those samples without a boot.
//   StoredSimMeasurer: runner: sim, for statistical tests only (bisect/sim_runner.h).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "bisect/session.h"
#include "bisect/sim_runner.h"
#include "pipeline/measure.h"

namespace kbisect {

// How the session sees a run's outcome.
MeasureStatus status_of(Outcome outcome);

class StoringMeasurer : public Measurer {
 public:
  // The run row of the last measure() call; none for an identical image.
  std::optional<int64_t> last_run_id() const { return last_run_id_; }

 protected:
  std::optional<int64_t> last_run_id_;
};

class KernelMeasurer : public StoringMeasurer {
 public:
  KernelMeasurer(CommitMeasurer& measurer, const Variant* variant, int64_t session_id)
      : measurer_(measurer), variant_(variant), session_id_(session_id) {}

  Measurement measure(const MeasureRequest& request) override;

 private:
  CommitMeasurer& measurer_;
  const Variant* variant_;
  int64_t session_id_;
  std::map<std::string, std::string> commit_of_image_;  // image sha256 -> first commit seen
};

class StoredSimMeasurer : public StoringMeasurer {
 public:
  StoredSimMeasurer(SimMeasurer& sim, Store& store, const Scenario& scenario, int64_t session_id);

  Measurement measure(const MeasureRequest& request) override;

 private:
  SimMeasurer& sim_;
  Store& store_;
  const Scenario& scenario_;
  int64_t session_id_;
  std::string config_hash_;
};

}  // namespace kbisect
