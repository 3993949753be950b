#include "bisect/git_like_strategy.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <set>

#include "bisect/midpoint.h"
#include "bisect/pinpoint.h"
#include "bisect/strategy_actions.h"
#include "common/error.h"

namespace kbisect {
namespace {

// The verdicts so far: the latest bad commit (the bad endpoint before any) and every good
// one, in the order they were made.
struct Settled {
  int bad = 0;
  std::vector<int> goods;
};

Settled settled_commits(const SearchState& state) {
  Settled settled;
  for (const auto& [commit, verdict] : state.verdicts) {
    if (verdict.kind == VerdictKind::kBad) settled.bad = commit;
    if (verdict.kind == VerdictKind::kGood) settled.goods.push_back(commit);
  }
  return settled;
}

// How a git-like search decides on endpoints and on one commit; the search itself is shared.
class GitLikeStrategy : public Strategy {
 public:
  GitLikeStrategy(BisectSpec spec, MetricSpec metric) : spec_(spec), metric_(metric) {}

  Action next(const SearchState& state) const override {
    if (!state.endpoints_verified) {
      return with_candidates_left(endpoint_phase(state), counted_candidates(*state.graph));
    }
    Settled settled = settled_commits(state);
    Subgraph sub = restrict_candidates(*state.graph, settled.bad, settled.goods);
    std::set<std::string> skipped;
    for (size_t i = 0; i < state.failed.size(); ++i) {
      if (state.failed[i]) skipped.insert(state.graph->nodes[i].id);
    }
    Midpoint mid = choose_midpoint(sub.graph, skipped);
    switch (mid.kind) {
      case Midpoint::Kind::kFound:
        return done_action(SearchOutcome::kFound, sub.original[mid.commit]);
      case Midpoint::Kind::kNoTestable:
        return done_action(SearchOutcome::kNoTestable, -1);
      case Midpoint::Kind::kOnlySkipped: {
        std::vector<int> candidates;
        for (int node : mid.candidates) candidates.push_back(sub.original[node]);
        return done_action(SearchOutcome::kOnlySkipped, -1, candidates);
      }
      case Midpoint::Kind::kTest:
        break;
    }
    const int left = counted_candidates(sub.graph);
    size_t endpoint_target = endpoint_samples_during_search(state);
    if (!endpoints_have(state, endpoint_target)) {
      return with_candidates_left(measure_endpoints_to(state, endpoint_target), left);
    }
    return with_candidates_left(decide(state, sub.original[mid.commit]), left);
  }

 protected:
  virtual Action endpoint_phase(const SearchState& state) const = 0;
  virtual size_t endpoint_samples_during_search(const SearchState& state) const = 0;
  virtual Action decide(const SearchState& state, int commit) const = 0;

  // What a commit's samples say against the endpoints (rank tests, effect), stored with the
  // verdict; the strategy's own rule decides.
  CommitVerdict evidence(const SearchState& state, int commit) const {
    return describe(state.of(commit), state.good, state.of(0), metric_.better);
  }

  BisectSpec spec_;
  MetricSpec metric_;
};

class ClassicStrategy : public GitLikeStrategy {
 public:
  using GitLikeStrategy::GitLikeStrategy;

 protected:
  Action endpoint_phase(const SearchState& state) const override {
    if (!endpoints_have(state, 1)) return measure_endpoints_to(state, 1);
    EndpointCheck check;
    check.effect = worsening(state.good, state.of(0), metric_.better);
    check.kind = check.effect > 0 ? VerdictKind::kBad : VerdictKind::kGood;
    if (check.kind == VerdictKind::kGood) check.message = "bad is not worse than good";
    return endpoint_result(check);
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return 1; }
  Action decide(const SearchState& state, int commit) const override {
    if (state.of(commit).empty()) return measure_action(commit);
    // Like `git bisect run` with a fixed threshold halfway between the endpoint means.
    double threshold = (mean(state.good) + mean(state.of(0))) / 2;
    double value = state.of(commit).front();
    bool worse = metric_.better == Better::kHigher ? value < threshold : value > threshold;
    CommitVerdict verdict = evidence(state, commit);
    verdict.kind = worse ? VerdictKind::kBad : VerdictKind::kGood;
    return verdict_action(commit, verdict);
  }
};

class BootStrategy : public GitLikeStrategy {
 public:
  BootStrategy() : GitLikeStrategy(BisectSpec{}, MetricSpec{}) {}

 protected:
  Action endpoint_phase(const SearchState& state) const override {
    if (state.good.empty()) return measure_action(kGoodEndpoint);
    Action action;
    action.kind = Action::Kind::kEndpointsOk;
    action.message =
        "good boots and bad does not: bisecting the boot regression (boot_failure_is_bad), one "
        "boot a commit";
    return action;
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return 0; }
  Action decide(const SearchState& state, int commit) const override {
    if (state.of(commit).empty()) return measure_action(commit);
    CommitVerdict verdict;
    verdict.kind = VerdictKind::kGood;
    verdict.by_boot = true;
    verdict.samples = static_cast<int>(state.of(commit).size());
    Action action = verdict_action(commit, verdict);
    action.message = "boots";
    return action;
  }
};

constexpr size_t kLkpSamples = 3;

class LkpStrategy : public GitLikeStrategy {
 public:
  using GitLikeStrategy::GitLikeStrategy;

 protected:
  // 0-day: changed only when the sample ranges separate and the change exceeds the floor;
  // otherwise why not.
  std::optional<std::string> unchanged_because(const std::vector<double>& base,
                                               const std::vector<double>& other) const {
    auto [base_min, base_max] = std::minmax_element(base.begin(), base.end());
    auto [other_min, other_max] = std::minmax_element(other.begin(), other.end());
    bool separate =
        metric_.better == Better::kHigher ? *other_max < *base_min : *other_min > *base_max;
    if (!separate) return "the sample ranges do not separate";
    const double worse = worsening(base, other, metric_.better);
    if (worse < spec_.min_effect) {
      return fmt::format("the sample ranges separate, but by {:.2f}%, below min_effect {:.2f}%",
                         100 * worse, 100 * spec_.min_effect);
    }
    return std::nullopt;
  }
  bool changed(const std::vector<double>& base, const std::vector<double>& other) const {
    return !unchanged_because(base, other);
  }
  Action endpoint_phase(const SearchState& state) const override {
    if (!endpoints_have(state, kLkpSamples)) return measure_endpoints_to(state, kLkpSamples);
    EndpointCheck check;
    const auto unchanged = unchanged_because(state.good, state.of(0));
    check.kind = unchanged ? VerdictKind::kGood : VerdictKind::kBad;
    if (unchanged) check.message = *unchanged;
    return endpoint_result(check);
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return kLkpSamples; }
  Action decide(const SearchState& state, int commit) const override {
    const auto& samples = state.of(commit);
    if (samples.size() < kLkpSamples) {
      return measure_action(commit, static_cast<int>(kLkpSamples - samples.size()));
    }
    CommitVerdict verdict = evidence(state, commit);
    verdict.kind = changed(state.good, samples) ? VerdictKind::kBad : VerdictKind::kGood;
    return verdict_action(commit, verdict);
  }
};

// Pinpoint compares neighbouring changes, not each change with the endpoints: the commit under
// test against the nearest good and the nearest bad commit measured, and an unknown comparison
// gets `attempts` (Pinpoint's 10) more on whichever of its two changes has fewer, neighbours
// included. The session takes one sample an action, so a change part of the way through its
// attempts gets the rest before it is compared again: Pinpoint compares whole rounds only.
class PinpointStrategy : public GitLikeStrategy {
 public:
  PinpointStrategy(BisectSpec spec, MetricSpec metric, int attempts)
      : GitLikeStrategy(spec, metric), attempts_(attempts) {
    if (attempts < 1) fail("pinpoint's attempts per change must be at least 1, got {}", attempts);
  }

 protected:
  Action endpoint_phase(const SearchState& state) const override {
    const size_t attempts = static_cast<size_t>(attempts_);
    if (!endpoints_have(state, attempts)) return measure_endpoints_to(state, attempts);
    if (std::optional<Action> rest = rest_of_round(state, {kGoodEndpoint, 0})) return *rest;
    PinpointComparison comparison = compare(state, state.good, state.of(0));
    if (comparison.result == PinpointResult::kUnknown) return more_of(state, kGoodEndpoint, 0);
    EndpointCheck check;
    check.p_value = comparison.p_value;
    check.effect = worsening(state.good, state.of(0), metric_.better);
    if (comparison.result == PinpointResult::kDifferent && check.effect > 0) {
      check.kind = VerdictKind::kBad;
    } else {
      check.kind = VerdictKind::kGood;
      check.message = fmt::format(
          "good and bad are not different in the worse direction (pinpoint: p = {:.3g})",
          comparison.p_value);
    }
    return endpoint_result(check);
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return 0; }
  Action decide(const SearchState& state, int commit) const override {
    const auto& samples = state.of(commit);
    if (samples.size() < static_cast<size_t>(attempts_)) {
      return measure_action(commit, attempts_ - static_cast<int>(samples.size()));
    }
    Settled settled = settled_commits(state);
    const int bad = settled.bad;
    const int good = settled.goods.empty() ? kGoodEndpoint : settled.goods.back();
    if (std::optional<Action> rest = rest_of_round(state, {commit, bad, good})) return *rest;
    PinpointComparison after = compare(state, samples, state.of(bad));
    if (after.result == PinpointResult::kUnknown) return more_of(state, commit, bad);
    PinpointComparison before = compare(state, state.of(good), samples);
    if (before.result == PinpointResult::kUnknown) return more_of(state, good, commit);
    CommitVerdict verdict = evidence(state, commit);
    // Where Pinpoint would go on in both halves (both different) or in neither (both the
    // same), the smaller p decides: a bisection needs one answer.
    bool bad_side = before.result == PinpointResult::kDifferent;
    if (before.result == after.result) bad_side = before.p_value < after.p_value;
    verdict.kind = bad_side ? VerdictKind::kBad : VerdictKind::kGood;
    return verdict_action(commit, verdict);
  }

 private:
  // The change looked for: Pinpoint takes the alert's size; here, the endpoints' difference.
  PinpointComparison compare(const SearchState& state, const std::vector<double>& a,
                             const std::vector<double>& b) const {
    return pinpoint_compare(a, b, mean(state.of(0)) - mean(state.good));
  }
  Action more_of(const SearchState& state, int a, int b) const {
    return measure_action(state.of(a).size() <= state.of(b).size() ? a : b, attempts_);
  }
  // The rest of the round of attempts the first of `changes` to have begun one is in.
  std::optional<Action> rest_of_round(const SearchState& state,
                                      std::initializer_list<int> changes) const {
    for (int change : changes) {
      const int into_round =
          static_cast<int>(state.of(change).size() % static_cast<size_t>(attempts_));
      if (into_round > 0) return measure_action(change, attempts_ - into_round);
    }
    return std::nullopt;
  }

  int attempts_;
};

}  // namespace

std::unique_ptr<Strategy> make_classic_strategy(const BisectSpec& spec, const MetricSpec& metric) {
  return std::make_unique<ClassicStrategy>(spec, metric);
}

std::unique_ptr<Strategy> make_lkp_strategy(const BisectSpec& spec, const MetricSpec& metric) {
  return std::make_unique<LkpStrategy>(spec, metric);
}

std::unique_ptr<Strategy> make_pinpoint_strategy(const BisectSpec& spec, const MetricSpec& metric,
                                                 int attempts) {
  return std::make_unique<PinpointStrategy>(spec, metric, attempts);
}

std::unique_ptr<Strategy> make_boot_strategy() {
  return std::make_unique<BootStrategy>();
}

}  // namespace kbisect
