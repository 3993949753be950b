// A against B: the measurement behind `kbisect compare` and `kbisect revert-check`. Samples
// are taken interleaved (A, B, A, B, ...) so slow host drift lands on both sides, stored in a
// session, and printed per metric: medians, %stddev, %change and its significance; then the
// scenario's table (tables/table.h) from the stored samples.
#pragma once

#include <string>
#include <vector>

#include "cli/context.h"
#include "pipeline/commit_measurer.h"

namespace kbisect {

struct AbSide {
  std::string label;   // as the user wrote it, e.g. "v6.1@nolock"
  std::string commit;  // 40-hex
  const Variant* variant = nullptr;
};

struct AbPair {
  AbSide a, b;
};

// Measures every pair in each round (revert-check: one pair per variant). Returns the exit
// code: 0 when every sample was measured.
int compare_sides(CommandContext& context, CommitMeasurer& measurer, SessionKind kind,
                  const std::vector<AbPair>& pairs, int samples);

}  // namespace kbisect
