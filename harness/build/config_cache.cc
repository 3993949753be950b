#include "build/config_cache.h"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "build/configure.h"
#include "common/error.h"
#include "common/file.h"
#include "common/sha256.h"
#include "config/scenario.h"

namespace kbisect {
namespace fs = std::filesystem;

namespace {

bool is_kconfig_source(const fs::path& relative) {
  if (relative.filename().string().starts_with("Kconfig")) return true;
  if (relative == "Makefile" || *relative.begin() == "scripts") return true;
  return relative.parent_path().filename() == "configs";
}

}  // namespace

std::string kconfig_sources_digest(const fs::path& source_dir) {
  std::vector<std::pair<std::string, std::string>> sources;  // path, content digest
  std::error_code error;
  fs::recursive_directory_iterator entry(source_dir, error), end;
  for (; !error && entry != end; entry.increment(error)) {
    if (entry->path().filename() == ".git") {
      entry.disable_recursion_pending();
      continue;
    }
    const fs::path relative = entry->path().lexically_relative(source_dir);
    if (entry->is_regular_file() && is_kconfig_source(relative)) {
      sources.emplace_back(relative.generic_string(), sha256_file_hex(entry->path()));
    }
  }
  if (error) fail("cannot read the kernel tree {}: {}", source_dir.string(), error.message());
  std::sort(sources.begin(), sources.end());
  std::string listing;
  for (const auto& [path, digest] : sources) listing += path + " " + digest + "\n";
  return sha256_hex(listing);
}

std::string ConfigInputs::key() const {
  auto content = [](const fs::path& file) {
    if (!fs::is_regular_file(file)) fail("cannot read {}; check that it exists", file.string());
    return sha256_file_hex(file);
  };
  auto contents = [&](const std::vector<fs::path>& files) {
    nlohmann::json hashes = nlohmann::json::array();
    for (const fs::path& file : files) hashes.push_back(content(file));
    return hashes;
  };
  bool base_is_file = !is_kconfig_target(base);
  nlohmann::json identity = {{"kconfig_sources", kconfig_sources},
                             {"base", base_is_file ? content(base) : base},
                             {"fragments", contents(fragments)},
                             {"guest", contents(guest_configs)},
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

std::optional<CachedConfig> ConfigCache::find(const std::string& key) const {
  CachedConfig found{directory_ / (key + ".config"), {}};
  if (!fs::is_regular_file(found.config)) return std::nullopt;
  std::istringstream warnings(read_file_if_present(directory_ / (key + ".warnings")).value_or(""));
  for (std::string line; std::getline(warnings, line);) found.warnings.push_back(line);
  return found;
}

void ConfigCache::store(const std::string& key, const fs::path& config,
                        const std::vector<std::string>& warnings) const {
  std::string lines;
  for (const std::string& warning : warnings) lines += warning + '\n';
  write_file_atomically(directory_ / (key + ".warnings"), lines);
  write_file_atomically(directory_ / (key + ".config"), read_file(config));
}

}  // namespace kbisect
