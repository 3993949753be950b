// Measuring one commit: the stages of the data flow (git -> build -> runner -> store) wired
// together for one commit and variant. `kbisect run`, `compare`, `revert-check` and `bisect`
// all measure through a CommitMeasurer, so a sample is stored the same way whoever asked.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "build/builder.h"
#include "common/dir_lock.h"
#include "common/events.h"
#include "config/scenario.h"
#include "config/variant_selection.h"  // find_variant, select_variants
#include "git/repository.h"
#include "store/store.h"
#include "vm/runner.h"

namespace kbisect {

// Seconds spent per phase, summed over everything this measurer did.
struct PhaseTimings {
  double checkout = 0;
  double config = 0;
  double build = 0;
  double image = 0;
  double boot = 0;
  double workload = 0;
  double teardown = 0;
  int builds = 0;      // kernels compiled (cache misses)
  int cache_hits = 0;  // kernels taken from the build cache
  int boots = 0;
};

// A commit's kernel, or why there is none.
struct KernelImage {
  std::string commit;
  std::string tree_id;
  bool ok = false;
  std::filesystem::path image;
  std::string image_sha256;
  std::optional<int64_t> build_id;
  std::string failure;  // build-failed: the log tail
};

struct MeasuredRun {
  Outcome outcome = Outcome::kInfraError;
  std::map<std::string, double> metrics;  // metric_key() -> value, when ok
  std::optional<double> value;            // the first (bisected) metric, when ok
  int64_t run_id = 0;
  std::string detail;
};

class CommitMeasurer {
 public:
  CommitMeasurer(const Scenario& scenario, Store& store, Events& events,
                 std::filesystem::path workdir);
  ~CommitMeasurer();

  // The kernel of `commit` (a 40-hex id), built at most once per commit and process.
  const KernelImage& kernel(const std::string& commit);

  // Boots the commit's kernel once, runs the workload and stores the sample (and the run) the
  // moment it exists. A commit that does not build yields kBuildFailed without a boot. Throws
  // Error, once the run is stored, when the VM did not start: that is the host's or the VM
  // set-up's problem, and taking it for the commit's (skipping it, or comparing or summing up
  // without it) would hide it.
  MeasuredRun measure(const std::string& commit, const Variant* variant,
                      std::optional<int64_t> session_id);

  // Where and under which accelerator `kernel` (one that built) would run (vm/runner.h).
  RunPlace place(const KernelImage& kernel);

  const PhaseTimings& timings() const { return timings_; }
  Repository& repository() { return repo_; }

 private:
  KernelImage build_kernel(const std::string& commit);

  const Scenario& scenario_;
  Store& store_;
  Events& events_;
  std::filesystem::path workdir_;
  // Its work tree, objects, NVMe image and logs are this process's alone while it measures.
  DirLock workdir_lock_;
  Repository repo_;
  Builder builder_;
  std::unique_ptr<Runner> runner_;
  std::string config_hash_;
  std::string host_;
  std::map<std::string, KernelImage> kernels_;
  std::set<std::string> build_warnings_shown_;
  PhaseTimings timings_;
};

}  // namespace kbisect
