// The config phase of a build: base (make tinyconfig/defconfig, or a file) + fragments merged
// like merge_config.sh + the guest's required options last, then `make olddefconfig`, then the
// check that every required option survived. Runs in its own O= directory so the build's
// object directory only sees a new .config when the result really changed.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kbisect {

struct ConfigRequest {
  std::filesystem::path source_dir;
  std::filesystem::path config_dir;  // persistent scratch O= directory for Kconfig runs
  std::string base;                  // tinyconfig | defconfig | allnoconfig | a .config file
  std::vector<std::filesystem::path> fragments;
  std::vector<std::filesystem::path> guest_configs;  // required options, merged last, checked
  std::vector<std::string> make_variables;  // the same CC=... as the build, so Kconfig agrees
  std::map<std::string, std::string> environment;
  std::vector<std::string> removed_environment;  // as ProcessOptions's
  std::chrono::seconds timeout{3600};
};

struct ConfigResult {
  bool ok = false;               // false: the tree's own Kconfig run failed (the commit is broken)
  std::filesystem::path config;  // the final .config (config_dir/.config)
  std::filesystem::path log;     // output of the failing make, when !ok
  std::string log_tail;
  std::vector<std::string> warnings;  // overridden values, fragment options that did not hold
};

// Throws Error when a fragment cannot be read or parsed, or when a required option does not
// hold after olddefconfig (naming each, with the unmet dependency where it can be told).
ConfigResult configure_kernel(const ConfigRequest& request);

}  // namespace kbisect
