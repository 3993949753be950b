// "Did you mean": the known name nearest to a misspelt one, for the errors of job files (kdio)
// and of configs (the harness). On its own so that the harness needs nothing else of kdio.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdio {

// Levenshtein distance: the fewest insertions, deletions and substitutions from a to b.
size_t edit_distance(std::string_view a, std::string_view b);

// The closest of `candidates` to `name` if it is a likely typo: at most a third of its length
// away (one edit at least).
std::optional<std::string> closest_match(std::string_view name,
                                         const std::vector<std::string>& candidates);

}  // namespace kdio
