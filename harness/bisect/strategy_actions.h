// What every strategy's next() answers with (strategy.h), and the endpoint sampling all of
// them share.
#pragma once

#include <cstddef>
#include <vector>

#include "bisect/strategy.h"

namespace kbisect {

// Take `samples` (at least one) of `commit`.
Action measure_action(int commit, int samples = 1);
Action verdict_action(int commit, const CommitVerdict& verdict);
Action done_action(SearchOutcome outcome, int culprit, std::vector<int> candidates = {});
// The search starts when the check found the regression; else "no regression" with its message.
Action endpoint_result(const EndpointCheck& check);

// Good and bad up to `count` samples each; they alternate so that drift hits both alike.
Action measure_endpoints_to(const SearchState& state, size_t count);
bool endpoints_have(const SearchState& state, size_t count);

// The candidates that touch the paths (every one without --paths).
int counted_candidates(const CommitGraph& graph);
// A measurement records how many candidates the search had left when it chose it.
Action with_candidates_left(Action action, int candidates_left);

}  // namespace kbisect
