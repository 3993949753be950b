// `kbisect run --git-bisect-run`: the verdict for plain `git bisect run`, judged against the
// samples of the endpoints git bisect knows (refs/bisect/bad and refs/bisect/good-*).
#pragma once

#include <string>
#include <vector>

#include "cli/context.h"
#include "pipeline/commit_measurer.h"

namespace kbisect {

constexpr int kGitBisectGood = 0;
constexpr int kGitBisectBad = 1;
constexpr int kGitBisectSkip = 125;
constexpr int kGitBisectAbort = 128;

// The endpoints of the `git bisect` in progress in `repo` (40-hex ids). Throws Error when
// there is none, or no good commit yet: asked before anything is measured.
struct GitBisectEndpoints {
  std::string bad;
  std::vector<std::string> goods;
};
GitBisectEndpoints git_bisect_endpoints(const Repository& repo);

// The stored samples (of the bisected metric, this scenario and variant) of every commit that
// built the same kernel image as `commit`, its own included. git bisect run visits the commits
// an earlier bisect measured, and a commit that changes no kernel code builds its parent's
// kernel: their samples judge it without a boot. Only samples of the place this process
// measures at count (RunPlace). Empty when `commit` does not build.
std::vector<double> stored_samples_of_kernel(CommandContext& context, CommitMeasurer& measurer,
                                             const std::string& commit, const Variant* variant);

// Measures the endpoints first where the database has fewer than BisectSpec::min_samples
// of them, then classifies `commit` from `stored` (stored_samples_of_kernel) and
// `measurements`; while that is undecided, measures the commit again, up to max_samples, and
// bad to as many samples, before it takes the nearer side.
int git_bisect_run_verdict(CommandContext& context, CommitMeasurer& measurer,
                           const GitBisectEndpoints& endpoints, const std::string& commit,
                           const Variant* variant, const std::vector<double>& stored,
                           const std::vector<MeasuredRun>& measurements);

}  // namespace kbisect
