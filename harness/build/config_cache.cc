#include "build/config_cache.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/sha256.h"

namespace kbisect {
namespace fs = std::filesystem;

std::string ConfigInputs::key() const {
  auto content = [](const fs::path& file) {
    if (!fs::is_regular_file(file)) fail("cannot read {}; check that it exists", file.string());
    return sha256_file_hex(file);
  };
  nlohmann::json fragment_hashes = nlohmann::json::array();
  for (const fs::path& fragment : fragments) fragment_hashes.push_back(content(fragment));
  bool base_is_file = base != "tinyconfig" && base != "defconfig";
  nlohmann::json identity = {{"tree", tree_id},
                             {"base", base_is_file ? content(base) : base},
                             {"fragments", fragment_hashes},
                             {"guest", content(guest_config)},
                             {"make", make_variables},
                             {"toolchain", toolchain}};
  return sha256_hex(identity.dump());
}

ConfigCache::ConfigCache(fs::path directory) : directory_(std::move(directory)) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) {
    fail("cannot create {}: {}; set build.cache_dir to a writable directory", directory_.string(),
         error.message());
  }
}

std::optional<fs::path> ConfigCache::find(const std::string& key) const {
  fs::path entry = directory_ / (key + ".config");
  if (!fs::is_regular_file(entry)) return std::nullopt;
  return entry;
}

void ConfigCache::store(const std::string& key, const fs::path& config) const {
  // Copied beside the entry and renamed over it: a reader sees a whole file or none.
  fs::path temporary = directory_ / fmt::format(".tmp-{}-{}", ::getpid(), key);
  std::error_code error;
  fs::copy_file(config, temporary, fs::copy_options::overwrite_existing, error);
  if (!error) fs::rename(temporary, directory_ / (key + ".config"), error);
  if (error) {
    fs::remove(temporary);
    fail("cannot store {} in {}: {}", config.string(), directory_.string(), error.message());
  }
}

}  // namespace kbisect
