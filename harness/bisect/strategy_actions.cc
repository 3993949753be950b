#include "bisect/strategy_actions.h"

#include <algorithm>
#include <utility>

namespace kbisect {

Action measure_action(int commit, int samples) {
  Action action;
  action.kind = Action::Kind::kMeasure;
  action.commit = commit;
  action.samples = std::max(samples, 1);
  return action;
}

Action verdict_action(int commit, const CommitVerdict& verdict) {
  Action action;
  action.kind = Action::Kind::kVerdict;
  action.commit = commit;
  action.verdict = verdict;
  return action;
}

Action done_action(SearchOutcome outcome, int culprit, std::vector<int> candidates) {
  Action action;
  action.kind = Action::Kind::kDone;
  action.outcome = outcome;
  action.commit = culprit;
  action.candidates = std::move(candidates);
  return action;
}

Action measure_endpoints_to(const SearchState& state, size_t count) {
  const auto& bad = state.of(0);
  if (state.good.size() <= bad.size() && state.good.size() < count) {
    return measure_action(kGoodEndpoint, static_cast<int>(count - state.good.size()));
  }
  return measure_action(0, static_cast<int>(count - std::min(count, bad.size())));
}

bool endpoints_have(const SearchState& state, size_t count) {
  return state.good.size() >= count && state.of(0).size() >= count;
}

int counted_candidates(const CommitGraph& graph) {
  int count = 0;
  for (const auto& node : graph.nodes) count += node.touches_paths;
  return count;
}

Action with_candidates_left(Action action, int candidates_left) {
  if (action.kind == Action::Kind::kMeasure) action.candidates_left = candidates_left;
  return action;
}

Action endpoint_result(const EndpointCheck& check) {
  Action action;
  action.kind =
      check.kind == VerdictKind::kBad ? Action::Kind::kEndpointsOk : Action::Kind::kNoRegression;
  action.message = check.message;
  return action;
}

}  // namespace kbisect
