// The final .config of a Kconfig run, kept by everything that decides it: the tree, the base
// config, the fragments, the guest's options, make's variables and the toolchain that Kconfig
// probes. A kernel found in the build cache then costs no Kconfig run at all (make tinyconfig
// and make olddefconfig take minutes on a loaded machine: they probe the compiler ~100 times).
// Entries live in <build cache>/kconfig/<key>.config, written whole or not at all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kbisect {

struct ConfigInputs {
  std::string tree_id;
  std::string base;                              // tinyconfig | defconfig | a file
  std::vector<std::filesystem::path> fragments;  // by content
  std::filesystem::path guest_config;            // by content
  std::vector<std::string> make_variables;       // CC=... and the rest
  std::string toolchain;                         // versions of gcc, as, ld (and pahole)

  // Throws Error when a file cannot be read.
  std::string key() const;
};

class ConfigCache {
 public:
  explicit ConfigCache(std::filesystem::path directory);

  std::optional<std::filesystem::path> find(const std::string& key) const;
  void store(const std::string& key, const std::filesystem::path& config) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace kbisect
