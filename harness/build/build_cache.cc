#include "build/build_cache.h"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file.h"
#include "common/local_process.h"
#include "common/sha256.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kTempPrefix = ".tmp-";

void copy_into(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, error);
  if (error) fail("cannot copy {} to {}: {}", from.string(), to.string(), error.message());
}

}  // namespace

// Changes when entries made before could hold a wrong image: 2 = built without ccache's
// depend mode (builder.cc), whose stale piggy.o gave some builds the previous build's image.
constexpr std::string_view kBuildRecipe = "2";

std::string BuildKey::hex() const {
  return sha256_hex(tree_id + '\n' + config_sha256 + '\n' + compiler + '\n' +
                    std::string(kBuildRecipe) + '\n');
}

BuildCache::BuildCache(fs::path root) : root_(std::move(root)) {
  std::error_code error;
  fs::create_directories(root_, error);
  if (error) {
    fail("cannot create the build cache {}: {}; set build.cache_dir to a writable directory",
         root_.string(), error.message());
  }
  sweep_abandoned();
}

void BuildCache::sweep_abandoned() const {
  const std::string this_host = "@" + this_host_name() + "-";
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(root_, error)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with(kTempPrefix)) continue;
    // Another machine's, on a cache both share: its pid means nothing here.
    const size_t at = name.find('@');
    if (at != std::string::npos && name.compare(at, this_host.size(), this_host) != 0) continue;
    pid_t owner = static_cast<pid_t>(std::atol(name.c_str() + kTempPrefix.size()));
    if (owner > 0 && process_exists(owner)) continue;  // still building
    fs::remove_all(entry.path(), error);
  }
}

std::optional<CachedBuild> BuildCache::find(const BuildKey& key) const {
  fs::path directory = root_ / key.hex();
  std::ifstream in(directory / "meta.json");
  if (!in) return std::nullopt;
  nlohmann::json meta = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !fs::exists(directory / "bzImage")) return std::nullopt;
  CachedBuild build{directory,
                    directory / "bzImage",
                    directory / "config",
                    directory / "build.log",
                    meta.value("image_sha256", ""),
                    meta.value("commit_id", ""),
                    meta.value("build_seconds", 0.0)};
  return build;
}

CachedBuild BuildCache::store(const BuildKey& key, const fs::path& image, const fs::path& config,
                              const fs::path& log, const std::string& commit_id,
                              double build_seconds) {
  fs::path temp =
      root_ / fmt::format("{}{}@{}-{}", kTempPrefix, ::getpid(), this_host_name(), key.hex());
  std::error_code error;
  fs::remove_all(temp, error);
  fs::create_directories(temp, error);
  if (error) fail("cannot create {}: {}", temp.string(), error.message());
  copy_into(image, temp / "bzImage");
  copy_into(config, temp / "config");
  copy_into(log, temp / "build.log");
  nlohmann::json meta = {
      {"tree_id", key.tree_id},   {"config_sha256", key.config_sha256},
      {"compiler", key.compiler}, {"image_sha256", sha256_file_hex(temp / "bzImage")},
      {"commit_id", commit_id},   {"build_seconds", build_seconds}};
  write_file(temp / "meta.json", meta.dump(2) + "\n");
  // A power cut after the rename must not leave an entry of empty files.
  for (const char* name : {"bzImage", "config", "build.log", "meta.json"}) {
    sync_to_disk(temp / name);
  }
  sync_to_disk(temp);

  fs::path final_directory = root_ / key.hex();
  for (int attempt = 0; attempt < 2; ++attempt) {
    fs::rename(temp, final_directory, error);
    if (!error) {
      sync_to_disk(root_);
      return *find(key);
    }
    if (std::optional<CachedBuild> existing = find(key)) {  // another process was first
      fs::remove_all(temp, error);
      return *existing;
    }
    fs::remove_all(final_directory, error);  // not an entry of ours: replace it
  }
  fail("cannot store the build in {}: {}", final_directory.string(), error.message());
}

}  // namespace kbisect
