// A scenario: everything one YAML config says about how to build, boot and measure a kernel.
// The config parser (config.h) fills it; every other stage reads it. Defaults here are the
// documented defaults of configs/example.yaml.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbisect {

struct KernelSpec {
  std::filesystem::path repo;                    // git repository with the kernel tree
  std::string repo_place = "kernel.repo";        // "FILE:LINE:COLUMN: kernel.repo"
  std::string base_config = "tinyconfig";        // a make target (below) or path to a .config
  std::vector<std::filesystem::path> fragments;  // merged in order on top of the base
  std::string cmdline_extra;                     // appended to the guest kernel command line
};

// The base configs that are make targets of the tree rather than files.
inline bool is_kconfig_target(std::string_view base) {
  return base == "tinyconfig" || base == "defconfig" || base == "allnoconfig";
}

struct BuildSpec {
  int jobs = 0;  // 0: number of cores
  bool ccache = true;
  std::filesystem::path cache_dir;  // default: <workdir>/cache
  int timeout_seconds = 3600;
};

enum class RunnerKind { kQemu, kLibvirt, kSim };
enum class Accel { kAuto, kKvm, kTcg };

struct VmSpec {
  RunnerKind runner = RunnerKind::kQemu;
  std::string libvirt_uri = "qemu:///system";
  Accel accel = Accel::kAuto;
  int vcpus = 2;
  int memory_mib = 1024;
  std::vector<int> vcpu_pinning;   // host CPU per vCPU; empty: no pinning
  int boot_timeout_seconds = 120;  // kernel start to guest init reporting in
  int workload_timeout_seconds = 1800;
  // "FILE:LINE:COLUMN: workload_timeout" when the config gives it, for the job files' check.
  std::string workload_timeout_place = "vm.workload_timeout";
};

enum class DeviceKind { kEmulatedNvme, kNvmePassthrough };

struct DeviceSpec {
  DeviceKind kind = DeviceKind::kEmulatedNvme;
  std::filesystem::path image;       // emulated: backing file (default <workdir>/nvme.img)
  uint64_t size_bytes = 2ull << 30;  // emulated: size of the backing file
  std::string pci_address;           // passthrough: e.g. 0000:01:00.0
};

enum class FilesystemKind { kExt4, kXfs };

// "ext4" or "xfs": the config key's value, the guest's mkfs.NAME, vmimages/kconfig/NAME.config.
inline const char* filesystem_name(FilesystemKind kind) {
  return kind == FilesystemKind::kXfs ? "xfs" : "ext4";
}

struct FilesystemSpec {
  FilesystemKind kind = FilesystemKind::kExt4;
  std::vector<std::string> mkfs_options;
  std::string mount_options;  // as for mount -o
};

// A named variant changes the workload or the filesystem of a run, e.g. dioread_nolock on/off.
struct Variant {
  std::string name;
  std::map<std::string, std::string> vars;   // ${VAR} values for the job files
  std::optional<std::string> mount_options;  // replaces FilesystemSpec::mount_options
  std::optional<FilesystemKind> filesystem;  // replaces FilesystemSpec::kind
};

struct WorkloadSpec {
  std::vector<std::filesystem::path> job_files;
  std::map<std::string, std::string> vars;  // ${VAR} values common to all variants
  std::vector<Variant> variants;            // empty: one unnamed default variant
};

enum class Better { kHigher, kLower };

struct MetricSpec {
  std::string name;  // path into kdio's JSON job object, e.g. read.iops
  std::string job;   // job name to take it from; empty: sum/merge over all jobs
  Better better = Better::kHigher;
  // "FILE:LINE:COLUMN: key" of name:, for the job files' check, which runs after loading.
  std::string place = {};
};

struct BisectSpec {
  int min_samples = 3;   // per commit before the first verdict
  int max_samples = 10;  // cap while undecided
  double alpha = 0.01;   // significance level of the rank tests
  // A regression's floor: a change confidently below it (the upper end of its 1 - alpha
  // interval is) is none.
  double min_effect = 0.03;
  bool boot_failure_is_bad = false;
};

// runner: sim. Measures nothing: draws samples from this model against a real git history,
// so the search and the statistics can be tested and benchmarked without kernels.
enum class NoiseDistribution { kNormal, kLognormal, kBimodal };

struct SimChange {
  std::string commit;   // sha prefix or exact subject
  double factor = 1.0;  // multiplies the metric of that commit and all its descendants
  std::string where = "sim.changes";  // "FILE:LINE:COLUMN: key" of `commit`, for messages
};

struct SimOutcome {
  std::string commit;
  std::string outcome;                 // build-failed | boot-failed
  std::string where = "sim.outcomes";  // as in SimChange
};

struct SimSpec {
  uint64_t seed = 1;
  double base = 10000;
  NoiseDistribution noise = NoiseDistribution::kNormal;
  double cv = 0.05;
  double mode2 = 0.8;  // bimodal: second mode at base * mode2 ...
  double p2 = 0.2;     // ... drawn with this probability
  double drift_per_sample = 0.0;
  int drift_until = 0;  // the drift stops after this many samples (a warm-up); 0: it never does
  std::vector<SimChange> changes;
  std::vector<SimOutcome> outcomes;
};

// nightly: what `kbisect nightly` follows. Not part of the scenario hash: it chooses commits,
// it does not change how one is measured.
struct NightlySpec {
  std::string branch;    // the branch whose tip is measured each night
  std::string remote;    // "": the local branch, no fetch; else `git fetch` it from this remote
  std::string baseline;  // the known-good ref used until a nightly has stored a baseline
  std::string variant;   // the workload variant measured; "": the default
  int fetch_timeout_seconds = 1800;
};

// The table `run`, `compare` and `revert-check` print after their summary, from the kdio
// samples they stored (harness/tables/): the layout of the report a scenario reproduces.
enum class ReportTable {
  kNone,
  kFioGroups,  // per reporting group and direction: fio's io, bw, iops, runt, slat/clat/lat
  kRwSummary,  // per variant and side: READ and WRITE bandwidth, IOPS, mean latency
  kSyncLog,    // per side: each job's fsync times, iteration by iteration
  kElapsed,    // per variant and side: elapsed seconds of each reporting group
};

struct Scenario {
  std::filesystem::path source_file;  // the YAML file this came from
  std::string name;
  KernelSpec kernel;
  BuildSpec build;
  VmSpec vm;
  DeviceSpec device;
  FilesystemSpec filesystem;
  WorkloadSpec workload;
  std::vector<MetricSpec> metrics;  // the first is the one bisected on
  BisectSpec bisect;
  SimSpec sim;  // used when vm.runner is kSim
  std::optional<NightlySpec> nightly;
  ReportTable table = ReportTable::kNone;
  int samples = 3;                 // samples per commit for `kbisect run`
  std::filesystem::path database;  // default results/kbisect.db
  std::filesystem::path workdir;   // default .cache/kbisect (relative to the current directory)
};

}  // namespace kbisect
