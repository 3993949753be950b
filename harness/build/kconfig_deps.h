// Why did olddefconfig drop an option? Reads the tree's Kconfig files to name the unmet
// dependency, the prompt condition, or the options that would select it. Only used to word an
// error, so it reads the common forms of the Kconfig language and says nothing when unsure.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build/kconfig.h"

namespace kbisect {

// Evaluates a Kconfig expression ("A && (B || !C)", "X = y", "NR > 4") against a config:
// 0 (n), 1 (m) or 2 (y). Unknown symbols are n. nullopt when the expression uses something
// this reader does not understand (macros such as $(cc-option,...)).
std::optional<int> evaluate_kconfig_expression(std::string_view expression,
                                               const KernelConfig& config);

// For each symbol (with CONFIG_ prefix), one sentence from the Kconfig files of the tree at
// `source_dir` (arch/ limited to `arch`), e.g. "depends on 'MMU' (MMU=n)". Symbols about which
// nothing certain can be said are absent from the result.
std::map<std::string, std::string> explain_missing(const std::filesystem::path& source_dir,
                                                   const std::string& arch,
                                                   const std::vector<std::string>& symbols,
                                                   const KernelConfig& final_config);

}  // namespace kbisect
