// The content-addressed store of built kernels: root/<key>/ holds bzImage, config, build.log
// and meta.json, where key = sha256(tree id, sha256 of the final .config, compiler version,
// recipe version: kBuildRecipe in build_cache.cc).
// An entry appears whole or not at all (written to a temporary directory, then renamed), so a
// killed build never leaves a half entry; temporary directories of dead processes are swept.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kbisect {

struct BuildKey {
  std::string tree_id;
  std::string config_sha256;
  std::string compiler;  // first line of `gcc --version`

  std::string hex() const;
};

struct CachedBuild {
  std::filesystem::path directory;
  std::filesystem::path image;
  std::filesystem::path config;
  std::filesystem::path log;
  std::string image_sha256;
  std::string commit_id;  // the commit first built with this key (same tree: same kernel)
  double build_seconds = 0;
};

class BuildCache {
 public:
  // Creates `root` if needed and removes temporary directories left by dead processes.
  explicit BuildCache(std::filesystem::path root);

  std::optional<CachedBuild> find(const BuildKey& key) const;

  // Copies the files into a new entry. If another process stored the same key first, its
  // entry is kept and returned.
  CachedBuild store(const BuildKey& key, const std::filesystem::path& image,
                    const std::filesystem::path& config, const std::filesystem::path& log,
                    const std::string& commit_id, double build_seconds);

  const std::filesystem::path& root() const { return root_; }

 private:
  void sweep_abandoned() const;

  std::filesystem::path root_;
};

}  // namespace kbisect
