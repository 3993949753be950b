// Kernel .config text as data: parsing, merging fragments with the semantics of the kernel's
// scripts/kconfig/merge_config.sh, and checking that required options survived olddefconfig.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbisect {

// One assignment. `value` is the text after '=' ("y", "m", "-1", "\"quoted\"");
// "# CONFIG_X is not set" is stored as "n", which is what Kconfig reads it as.
struct KconfigEntry {
  std::string symbol;  // with the CONFIG_ prefix
  std::string value;
  std::string origin;  // "file:line" it came from, for messages
};

// A redefinition during a merge, reported like merge_config.sh's "Value of X is redefined".
struct KconfigOverride {
  std::string symbol;
  KconfigEntry previous;
  KconfigEntry replacement;
};

std::string describe(const KconfigOverride& override_entry);

class KernelConfig {
 public:
  // Parses .config text; `source_name` names it in origins and errors. Comments and blank
  // lines are skipped; any other line that is not an assignment is an Error naming file:line.
  // Within one text a later assignment replaces an earlier one, as Kconfig does.
  static KernelConfig parse(std::string_view text, const std::string& source_name);
  static KernelConfig load(const std::string& path);

  // Merges `fragment` on top: its assignments replace ours (value and origin), new symbols are
  // appended in fragment order. Returns the assignments whose value changed.
  std::vector<KconfigOverride> merge(const KernelConfig& fragment);

  // The value of a symbol ("n" when not set or absent).
  std::string value(const std::string& symbol) const;
  bool contains(const std::string& symbol) const { return index_.count(symbol) != 0; }
  const std::vector<KconfigEntry>& entries() const { return entries_; }

  // .config text: "CONFIG_X=v" or "# CONFIG_X is not set", one per line, in order.
  std::string render() const;

 private:
  void set(KconfigEntry entry);

  std::vector<KconfigEntry> entries_;
  std::map<std::string, size_t> index_;  // symbol -> position in entries_
};

// A required assignment that does not hold in a final config.
struct MissingOption {
  KconfigEntry required;
  std::string actual;  // the final value, "n" when not set
};

// The assignments of `required` whose value differs in `final_config`.
std::vector<MissingOption> find_missing(const KernelConfig& required,
                                        const KernelConfig& final_config);

}  // namespace kbisect
