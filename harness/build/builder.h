// Builder: (source tree, scenario) -> kernel image, or a classified failure.
// The tree is built out of tree in a persistent object directory per scenario, so nearby
// commits rebuild incrementally; finished images live in a content-addressed cache
// (build_cache.h) keyed by tree id, final .config and compiler, so a hit skips the build; the
// final .config is kept by its inputs (config_cache.h), so a commit that changes no Kconfig
// input skips Kconfig.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "build/configure.h"
#include "config/scenario.h"

namespace kbisect {

// Kbuild progress: C files compiled so far against the count of the largest earlier build
// in the same object directory (0: unknown, e.g. the first build).
struct BuildProgress {
  int compiled = 0;
  int expected = 0;
  // 0-99 while compiling, -1 when unknown.
  int percent() const;
};

struct BuildRequest {
  std::filesystem::path source_dir;  // the materialised tree (git/checkout.h)
  std::string tree_id;               // its git tree id: the cache identity of the sources
  std::string commit_id;             // for records only
  KernelSpec kernel;
  BuildSpec build;                   // cache_dir must be set; timeout_seconds 0: no deadline
  std::filesystem::path object_dir;  // persistent per scenario (O=)
  // Required options (configure.h); empty: guest_configs_for(the default ext4 scenario).
  std::vector<std::filesystem::path> guest_configs;
  std::function<void(const BuildProgress&)> on_progress;
};

enum class BuildOutcome { kOk, kBuildFailed };

const char* to_string(BuildOutcome outcome);  // "ok", "build-failed"

struct BuildResult {
  BuildOutcome outcome = BuildOutcome::kBuildFailed;
  std::filesystem::path image;   // bzImage in the cache entry (ok only)
  std::string image_sha256;      // equal hashes: the same kernel
  std::filesystem::path config;  // the final .config
  std::string config_sha256;
  std::string compiler;  // first line of `gcc --version`
  std::string cache_key;
  bool cache_hit = false;
  std::filesystem::path log;          // the build log (kept for failures too)
  std::string log_tail;               // build-failed: error lines first, then the last lines
  std::vector<std::string> warnings;  // config merge warnings; a leftover make stopped
  double config_seconds = 0;
  double build_seconds = 0;  // make bzImage (0 on a cache hit)
  double seconds = 0;        // the whole call

  bool ok() const { return outcome == BuildOutcome::kOk; }
};

class Builder {
 public:
  // Never throws for a kernel that fails to configure or compile (that is kBuildFailed);
  // throws Error for problems of the machine or the scenario (missing tools, disk full,
  // a required guest option that the config cannot provide, a timeout) and Interrupted.
  BuildResult build(const BuildRequest& request);

 private:
  // All of build() but its timing: returns as soon as `result` is known.
  void build_into(BuildResult& result, const BuildRequest& request);
  const std::string& compiler_version();
  // gcc, as and ld (and pahole where installed): what Kconfig's probes depend on.
  const std::string& toolchain();
  // configure_kernel, or its earlier result for the same inputs (build/config_cache.h).
  ConfigResult configure(const ConfigRequest& request, const std::filesystem::path& cache_root);

  std::string compiler_;
  std::string toolchain_;
};

// `workdir` as an absolute path, when the kernel's Makefile can build under it. Kbuild breaks on
// a space or ':' in its output directory and hands that path to its shell, so only letters,
// digits, UTF-8 beyond ASCII and / . _ - + @ are allowed. Throws Error naming the first other
// character.
std::filesystem::path kbuild_safe_workdir(const std::filesystem::path& workdir);

// vmimages/kconfig/guest.config of the kbisect checkout this binary was built from.
std::filesystem::path default_guest_config();

// The options a scenario's guests need: guest.config, and ext4.config or xfs.config for each
// filesystem the scenario or one of its variants mounts.
std::vector<std::filesystem::path> guest_configs_for(const Scenario& scenario);

}  // namespace kbisect
