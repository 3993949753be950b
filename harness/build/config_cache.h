// The final .config of a Kconfig run, kept by everything that decides it: the tree's Kconfig
// inputs, the base config, the fragments, the guest's options, make's variables and the
// toolchain that Kconfig probes. Most bisection steps touch no Kconfig input, so they cost no
// Kconfig run at all (make tinyconfig and make olddefconfig take half a minute on an idle
// machine and minutes on a loaded one: they probe the compiler ~100 times).
// Entries live in <build cache>/kconfig/<key>.config (and the run's warnings in <key>.warnings,
// written first), each written whole or not at all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kbisect {

// The digest of the files of the kernel tree at `source_dir` that Kconfig reads or runs:
// every Kconfig* file, the fragments in configs/ directories (tinyconfig, defconfigs),
// everything under scripts/ (Kconfig's probes) and the top-level Makefile (the version in
// the .config header). Throws Error when the tree cannot be read.
std::string kconfig_sources_digest(const std::filesystem::path& source_dir);

struct ConfigInputs {
  std::string kconfig_sources;                       // kconfig_sources_digest of the tree
  std::string base;                                  // a Kconfig make target or a file
  std::vector<std::filesystem::path> fragments;      // by content
  std::vector<std::filesystem::path> guest_configs;  // by content
  std::vector<std::string> make_variables;           // CC=... and the rest
  std::string toolchain;                             // versions of gcc, as, ld (and pahole)

  // Throws Error when a file cannot be read.
  std::string key() const;
};

struct CachedConfig {
  std::filesystem::path config;
  std::vector<std::string> warnings;  // what the Kconfig run that made it warned about
};

class ConfigCache {
 public:
  explicit ConfigCache(std::filesystem::path directory);

  std::optional<CachedConfig> find(const std::string& key) const;
  void store(const std::string& key, const std::filesystem::path& config,
             const std::vector<std::string>& warnings) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace kbisect
