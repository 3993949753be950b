// A against B: the measurement behind `kbisect compare` and `kbisect revert-check`. Samples
// are taken interleaved (A, B, A, B, ...) so slow host drift lands on both sides, stored in a
// session, and printed per metric: medians, %stddev, %change and its significance.
#pragma once

#include <string>

#include "cli/context.h"
#include "pipeline/measure.h"

namespace kbisect {

struct AbSide {
  std::string label;   // as the user wrote it, e.g. "v6.1@nolock"
  std::string commit;  // 40-hex
  const Variant* variant = nullptr;
};

// Returns the exit code: 0 when every sample was measured.
int compare_sides(CommandContext& context, CommitMeasurer& measurer, SessionKind kind,
                  const AbSide& a, const AbSide& b, int samples);

}  // namespace kbisect
