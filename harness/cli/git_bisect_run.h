// `kbisect run --git-bisect-run`: the verdict for plain `git bisect run`, judged against the
// samples of the endpoints git bisect knows (refs/bisect/bad and refs/bisect/good-*).
#pragma once

#include <string>
#include <vector>

#include "cli/context.h"
#include "pipeline/measure.h"

namespace kbisect {

constexpr int kGitBisectGood = 0;
constexpr int kGitBisectBad = 1;
constexpr int kGitBisectSkip = 125;
constexpr int kGitBisectAbort = 128;

// Measures the endpoints first where the database has fewer than BisectSpec::min_samples
// of them, then classifies `commit` from `measurements`.
int git_bisect_run_verdict(CommandContext& context, CommitMeasurer& measurer,
                           const std::string& commit, const Variant* variant,
                           const std::vector<MeasuredRun>& measurements);

}  // namespace kbisect
