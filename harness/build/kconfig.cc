#include "build/kconfig.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/file.h"
#include "common/lines.h"

namespace kbisect {
namespace {

constexpr std::string_view kPrefix = "CONFIG_";
constexpr std::string_view kNotSetPrefix = "# CONFIG_";
constexpr std::string_view kNotSetSuffix = " is not set";

bool is_symbol(std::string_view name) {
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return false;
  for (char c : name) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

// "# CONFIG_X is not set" -> "CONFIG_X"; anything else -> empty.
std::string_view not_set_symbol(std::string_view line) {
  if (!line.starts_with(kNotSetPrefix) || !line.ends_with(kNotSetSuffix)) return {};
  std::string_view symbol = line.substr(2, line.size() - 2 - kNotSetSuffix.size());
  return is_symbol(symbol) ? symbol : std::string_view{};
}

std::string render_entry(const KconfigEntry& entry) {
  if (entry.value == "n") return fmt::format("# {} is not set", entry.symbol);
  return fmt::format("{}={}", entry.symbol, entry.value);
}

}  // namespace

std::string describe(const KconfigOverride& override_entry) {
  return fmt::format("{}: {} redefines {} (was {} from {})", override_entry.replacement.origin,
                     render_entry(override_entry.replacement), override_entry.symbol,
                     render_entry(override_entry.previous), override_entry.previous.origin);
}

KernelConfig KernelConfig::parse(std::string_view text, const std::string& source_name) {
  KernelConfig config;
  size_t line_number = 0;
  while (!text.empty()) {
    std::string_view line = trim(take_line(text));
    ++line_number;
    std::string origin = fmt::format("{}:{}", source_name, line_number);
    if (std::string_view symbol = not_set_symbol(line); !symbol.empty()) {
      config.set({std::string(symbol), "n", origin});
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    size_t equals = line.find('=');
    std::string_view symbol = trim(line.substr(0, equals));
    if (equals == std::string_view::npos || !is_symbol(symbol)) {
      fail(
          "{}: '{}' is not a kernel config line; expected CONFIG_NAME=value or "
          "'# CONFIG_NAME is not set'",
          origin, line);
    }
    std::string_view value = trim(line.substr(equals + 1));
    if (value.empty()) fail("{}: {} has no value; write '# {} is not set'", origin, symbol, symbol);
    config.set({std::string(symbol), std::string(value), origin});
  }
  return config;
}

KernelConfig KernelConfig::load(const std::string& path) {
  return parse(read_file(path), path);
}

void KernelConfig::set(KconfigEntry entry) {
  auto found = index_.find(entry.symbol);
  if (found != index_.end()) {
    entries_[found->second] = std::move(entry);
    return;
  }
  index_.emplace(entry.symbol, entries_.size());
  entries_.push_back(std::move(entry));
}

std::vector<KconfigOverride> KernelConfig::merge(const KernelConfig& fragment) {
  std::vector<KconfigOverride> overrides;
  for (const KconfigEntry& entry : fragment.entries_) {
    auto found = index_.find(entry.symbol);
    if (found != index_.end()) {
      const KconfigEntry& previous = entries_[found->second];
      if (previous.value != entry.value) overrides.push_back({entry.symbol, previous, entry});
      // merge_config.sh deletes the old line and appends the new one: the order follows.
      size_t removed = found->second;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(removed));
      index_.erase(found);
      for (auto& [symbol, position] : index_) {
        if (position > removed) --position;
      }
    }
    set(entry);
  }
  return overrides;
}

std::string KernelConfig::value(const std::string& symbol) const {
  auto found = index_.find(symbol);
  return found == index_.end() ? "n" : entries_[found->second].value;
}

std::string KernelConfig::render() const {
  std::string text;
  for (const KconfigEntry& entry : entries_) {
    text += render_entry(entry);
    text += '\n';
  }
  return text;
}

std::vector<MissingOption> find_missing(const KernelConfig& required,
                                        const KernelConfig& final_config) {
  std::vector<MissingOption> missing;
  for (const KconfigEntry& entry : required.entries()) {
    std::string actual = final_config.value(entry.symbol);
    if (actual != entry.value) missing.push_back({entry, actual});
  }
  return missing;
}

}  // namespace kbisect
