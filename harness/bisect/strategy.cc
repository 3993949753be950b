#include "bisect/strategy.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "bisect/midpoint.h"
#include "common/error.h"

namespace kbisect {
namespace {

Action measure(int commit, int samples = 1) {
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

Action done(SearchOutcome outcome, int culprit, std::vector<int> candidates = {}) {
  Action action;
  action.kind = Action::Kind::kDone;
  action.outcome = outcome;
  action.commit = culprit;
  action.candidates = std::move(candidates);
  return action;
}

// Good and bad alternate so that drift hits both alike.
Action measure_endpoints_to(const SearchState& state, size_t count) {
  const auto& bad = state.of(0);
  if (state.good.size() <= bad.size() && state.good.size() < count) {
    return measure(kGoodEndpoint, static_cast<int>(count - state.good.size()));
  }
  return measure(0, static_cast<int>(count - std::min(count, bad.size())));
}

bool endpoints_have(const SearchState& state, size_t count) {
  return state.good.size() >= count && state.of(0).size() >= count;
}

int counted_candidates(const CommitGraph& graph) {
  int count = 0;
  for (const auto& node : graph.nodes) count += node.touches_paths;
  return count;
}

// The SPRT threshold: a per-step error rate of alpha / steps keeps the whole search near
// alpha.
double adaptive_threshold(const BisectSpec& spec, int candidates) {
  double steps = std::max(1.0, std::ceil(std::log2(candidates + 1.0)));
  return std::log(steps / std::max(spec.alpha, 1e-9));
}

// How a git-like search decides on endpoints and on one commit; the search itself is shared.
class GitLikeStrategy : public Strategy {
 public:
  GitLikeStrategy(BisectSpec spec, MetricSpec metric) : spec_(spec), metric_(metric) {}

  Action next(const SearchState& state) const override {
    if (!state.endpoints_verified) return endpoint_phase(state);
    int bad = 0;
    std::vector<int> goods;
    for (const auto& [commit, verdict] : state.verdicts) {
      if (verdict.kind == VerdictKind::kBad) bad = commit;
      if (verdict.kind == VerdictKind::kGood) goods.push_back(commit);
    }
    Subgraph sub = restrict_candidates(*state.graph, bad, goods);
    std::set<std::string> skipped;
    for (size_t i = 0; i < state.failed.size(); ++i) {
      if (state.failed[i]) skipped.insert(state.graph->nodes[i].id);
    }
    Midpoint mid = choose_midpoint(sub.graph, skipped);
    switch (mid.kind) {
      case Midpoint::Kind::kFound:
        return done(SearchOutcome::kFound, sub.original[mid.commit]);
      case Midpoint::Kind::kNoTestable:
        return done(SearchOutcome::kNoTestable, -1);
      case Midpoint::Kind::kOnlySkipped: {
        std::vector<int> candidates;
        for (int node : mid.candidates) candidates.push_back(sub.original[node]);
        return done(SearchOutcome::kOnlySkipped, -1, candidates);
      }
      case Midpoint::Kind::kTest:
        break;
    }
    size_t endpoint_target = endpoint_samples_during_search(state);
    if (!endpoints_have(state, endpoint_target)) {
      return measure_endpoints_to(state, endpoint_target);
    }
    return decide(state, sub.original[mid.commit]);
  }

 protected:
  virtual Action endpoint_phase(const SearchState& state) const = 0;
  virtual size_t endpoint_samples_during_search(const SearchState& state) const = 0;
  virtual Action decide(const SearchState& state, int commit) const = 0;

  BisectSpec spec_;
  MetricSpec metric_;
};

Action endpoint_result(const EndpointCheck& check) {
  Action action;
  action.kind =
      check.kind == VerdictKind::kBad ? Action::Kind::kEndpointsOk : Action::Kind::kNoRegression;
  action.message = check.message;
  return action;
}

// Endpoints measured until the rank test settles: min_samples each, then pairs up to the cap.
Action sequential_endpoint_phase(const SearchState& state, const BisectSpec& spec,
                                 const MetricSpec& metric) {
  size_t have = std::min(state.good.size(), state.of(0).size());
  size_t first = static_cast<size_t>(std::max(spec.min_samples, 1));
  if (have < first || state.good.size() != state.of(0).size()) {
    return measure_endpoints_to(state, std::max(first, have + 1));
  }
  // Everything rests on the endpoints: they may take three times the per-commit cap.
  bool final = have >= static_cast<size_t>(3 * std::max(spec.max_samples, spec.min_samples));
  EndpointCheck check = check_endpoints(state.good, state.of(0), metric, spec, final);
  if (check.kind == VerdictKind::kUndecided) return measure_endpoints_to(state, have + 1);
  return endpoint_result(check);
}

class AdaptiveStrategy : public GitLikeStrategy {
 public:
  using GitLikeStrategy::GitLikeStrategy;

 protected:
  Action endpoint_phase(const SearchState& state) const override {
    return sequential_endpoint_phase(state, spec_, metric_);
  }

  // One more sample of each endpoint per decided commit, interleaved with the search, up to
  // twice the per-commit cap: every verdict rests on them, and drift shows up in them as it
  // happens.
  size_t endpoint_samples_during_search(const SearchState& state) const override {
    size_t start = std::min(state.good.size(), state.of(0).size());
    size_t wanted = static_cast<size_t>(std::max(spec_.min_samples, 1)) + state.verdicts.size();
    size_t cap = static_cast<size_t>(2 * std::max(spec_.max_samples, spec_.min_samples));
    return std::min(std::max(start, std::min(wanted, cap)), std::max(start, cap));
  }

  Action decide(const SearchState& state, int commit) const override {
    const auto& samples = state.of(commit);
    size_t n = samples.size();
    if (n < static_cast<size_t>(spec_.min_samples)) {
      return measure(commit, spec_.min_samples - static_cast<int>(n));
    }
    bool final = n >= static_cast<size_t>(spec_.max_samples);
    double threshold = adaptive_threshold(spec_, counted_candidates(*state.graph));
    CommitVerdict verdict =
        classify(samples, state.good, state.of(0), metric_.better, threshold, final);
    if (verdict.kind == VerdictKind::kUndecided) return measure(commit);
    return verdict_action(commit, verdict);
  }
};

class ClassicStrategy : public GitLikeStrategy {
 public:
  using GitLikeStrategy::GitLikeStrategy;

 protected:
  Action endpoint_phase(const SearchState& state) const override {
    if (!endpoints_have(state, 1)) return measure_endpoints_to(state, 1);
    EndpointCheck check;
    double change = relative_change(state.good, state.of(0));
    check.effect = metric_.better == Better::kHigher ? -change : change;
    check.kind = check.effect > 0 ? VerdictKind::kBad : VerdictKind::kGood;
    if (check.kind == VerdictKind::kGood) check.message = "bad is not worse than good";
    return endpoint_result(check);
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return 1; }
  Action decide(const SearchState& state, int commit) const override {
    if (state.of(commit).empty()) return measure(commit);
    // Like `git bisect run` with a fixed threshold halfway between the endpoint means.
    double threshold = (mean(state.good) + mean(state.of(0))) / 2;
    double value = state.of(commit).front();
    bool worse = metric_.better == Better::kHigher ? value < threshold : value > threshold;
    CommitVerdict verdict;
    verdict.kind = worse ? VerdictKind::kBad : VerdictKind::kGood;
    verdict.samples = 1;
    return verdict_action(commit, verdict);
  }
};

constexpr size_t kLkpSamples = 3;

class LkpStrategy : public GitLikeStrategy {
 public:
  using GitLikeStrategy::GitLikeStrategy;

 protected:
  // 0-day: changed only when the sample ranges separate and the change exceeds the floor.
  bool changed(const std::vector<double>& base, const std::vector<double>& other) const {
    auto [base_min, base_max] = std::minmax_element(base.begin(), base.end());
    auto [other_min, other_max] = std::minmax_element(other.begin(), other.end());
    bool separate =
        metric_.better == Better::kHigher ? *other_max < *base_min : *other_min > *base_max;
    double change = relative_change(base, other);
    double worse = metric_.better == Better::kHigher ? -change : change;
    return separate && worse >= spec_.min_effect;
  }
  Action endpoint_phase(const SearchState& state) const override {
    if (!endpoints_have(state, kLkpSamples)) return measure_endpoints_to(state, kLkpSamples);
    EndpointCheck check;
    check.kind = changed(state.good, state.of(0)) ? VerdictKind::kBad : VerdictKind::kGood;
    if (check.kind == VerdictKind::kGood) check.message = "the sample ranges do not separate";
    return endpoint_result(check);
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return kLkpSamples; }
  Action decide(const SearchState& state, int commit) const override {
    const auto& samples = state.of(commit);
    if (samples.size() < kLkpSamples) {
      return measure(commit, static_cast<int>(kLkpSamples - samples.size()));
    }
    CommitVerdict verdict;
    verdict.kind = changed(state.good, samples) ? VerdictKind::kBad : VerdictKind::kGood;
    verdict.samples = static_cast<int>(samples.size());
    return verdict_action(commit, verdict);
  }
};

constexpr size_t kPinpointAttempts = 10;
constexpr size_t kPinpointCap = 40;
constexpr double kPinpointAlpha = 0.01;

double pinpoint_p(const std::vector<double>& a, const std::vector<double>& b) {
  return std::min(mann_whitney_u(a, b).p_value, kolmogorov_smirnov(a, b).p_value);
}

class PinpointStrategy : public GitLikeStrategy {
 public:
  using GitLikeStrategy::GitLikeStrategy;

 protected:
  Action endpoint_phase(const SearchState& state) const override {
    size_t have = std::min(state.good.size(), state.of(0).size());
    if (have < kPinpointAttempts || state.good.size() != state.of(0).size()) {
      return measure_endpoints_to(state, std::max(kPinpointAttempts, have + 1));
    }
    EndpointCheck check;
    check.p_value = pinpoint_p(state.good, state.of(0));
    double change = relative_change(state.good, state.of(0));
    check.effect = metric_.better == Better::kHigher ? -change : change;
    if (check.p_value <= kPinpointAlpha && check.effect > 0) {
      check.kind = VerdictKind::kBad;
    } else if (have + kPinpointAttempts <= kPinpointCap) {
      return measure_endpoints_to(state, have + kPinpointAttempts);
    } else {
      check.kind = VerdictKind::kGood;
      check.message = "good and bad are not different (p > 0.01)";
    }
    return endpoint_result(check);
  }
  size_t endpoint_samples_during_search(const SearchState&) const override { return 0; }
  Action decide(const SearchState& state, int commit) const override {
    const auto& samples = state.of(commit);
    size_t n = samples.size();
    size_t round = ((n + kPinpointAttempts - 1) / kPinpointAttempts) * kPinpointAttempts;
    if (n < std::max(round, kPinpointAttempts)) {
      return measure(commit, static_cast<int>(std::max(round, kPinpointAttempts) - n));
    }
    CommitVerdict verdict;
    verdict.samples = static_cast<int>(n);
    verdict.p_vs_good = pinpoint_p(samples, state.good);
    verdict.p_vs_bad = pinpoint_p(samples, state.of(0));
    if (verdict.p_vs_good <= kPinpointAlpha && verdict.p_vs_bad > verdict.p_vs_good) {
      verdict.kind = VerdictKind::kBad;
    } else if (verdict.p_vs_bad <= kPinpointAlpha && verdict.p_vs_good > verdict.p_vs_bad) {
      verdict.kind = VerdictKind::kGood;
    } else if (n < kPinpointCap) {
      return measure(commit, static_cast<int>(kPinpointAttempts));
    } else {
      verdict.kind = verdict.p_vs_bad > verdict.p_vs_good ? VerdictKind::kBad : VerdictKind::kGood;
    }
    return verdict_action(commit, verdict);
  }
};

// Evidence that a commit is bad when a failure was counted as bad (boot_failure_is_bad).
constexpr double kCertainLlr = 50;

class BayesStrategy : public Strategy {
 public:
  BayesStrategy(BisectSpec spec, MetricSpec metric, double confidence)
      : spec_(spec), metric_(metric), confidence_(confidence) {
    if (!(confidence > 0.5 && confidence < 1)) {
      fail("bayes --confidence {} is out of range; use a value between 0.5 and 1, e.g. 0.95",
           confidence);
    }
  }

  Action next(const SearchState& state) const override {
    if (!state.endpoints_verified) return sequential_endpoint_phase(state, spec_, metric_);
    const CommitGraph& graph = *state.graph;
    const int n = static_cast<int>(graph.nodes.size());
    // Endpoints grow with the number of commits looked at.
    int looked_at = 0;
    for (int i = 1; i < n; ++i) looked_at += !state.of(i).empty();
    size_t target = std::min<size_t>(static_cast<size_t>(spec_.min_samples + looked_at),
                                     static_cast<size_t>(2 * spec_.max_samples));
    target = std::max(target, std::min(state.good.size(), state.of(0).size()));
    if (!endpoints_have(state, target)) return measure_endpoints_to(state, target);

    std::vector<std::vector<int>> reach(n);  // per node: the candidates it reaches
    for (int i = 0; i < n; ++i) reach[i] = restrict_candidates(graph, i, {}).original;
    std::vector<double> posterior = culprit_posterior(state, reach);
    int best =
        static_cast<int>(std::max_element(posterior.begin(), posterior.end()) - posterior.begin());
    if (posterior[best] >= confidence_) return done(SearchOutcome::kFound, best);
    if (state.total_samples() >= budget(graph)) return done(SearchOutcome::kFound, best);

    // P(commit is bad) = the mass of culprits it reaches; measure the one nearest to 1/2.
    int pick = -1;
    double pick_distance = 2;
    for (int i = 1; i < n; ++i) {
      if (state.failed[i] || !graph.nodes[i].touches_paths) continue;
      double p_bad = 0;
      for (int c : reach[i]) p_bad += posterior[c];
      double d = std::fabs(p_bad - 0.5);
      if (d < pick_distance - 1e-12) pick = i, pick_distance = d;
    }
    if (pick < 0) {
      std::vector<int> candidates;
      for (int i = 0; i < n; ++i) {
        if (posterior[i] > (1 - confidence_) / n) candidates.push_back(i);
      }
      return done(SearchOutcome::kOnlySkipped, -1, candidates);
    }
    return measure(pick);
  }

 private:
  std::vector<double> culprit_posterior(const SearchState& state,
                                        const std::vector<std::vector<int>>& reach) const {
    const CommitGraph& graph = *state.graph;
    const int n = static_cast<int>(graph.nodes.size());
    EndpointModel model = fit_endpoints(state.good, state.of(0), metric_.better);
    std::vector<double> log_post(n, 0);
    for (int i = 1; i < n; ++i) {
      double llr = 0;
      for (double v : state.of(i)) llr += model.log_likelihood_ratio(badness(v, metric_.better));
      for (const auto& [commit, verdict] : state.verdicts) {
        if (commit == i && verdict.kind == VerdictKind::kBad) llr += kCertainLlr;
      }
      if (llr == 0) continue;
      // A bad commit means the culprit is among what it reaches; good means it is not.
      std::vector<bool> reached(n, false);
      for (int c : reach[i]) reached[c] = true;
      for (int c = 0; c < n; ++c) log_post[c] += reached[c] ? llr / 2 : -llr / 2;
    }
    std::vector<double> posterior(n, 0);
    double top = -1e300;
    for (int c = 0; c < n; ++c) {
      if (graph.nodes[c].touches_paths) top = std::max(top, log_post[c]);
    }
    double sum = 0;
    for (int c = 0; c < n; ++c) {
      if (!graph.nodes[c].touches_paths) continue;
      posterior[c] = std::exp(log_post[c] - top);
      sum += posterior[c];
    }
    for (double& p : posterior) p /= sum;
    return posterior;
  }

  // A safety net: never more than the cap for every step git would need, plus the endpoints.
  int budget(const CommitGraph& graph) const {
    int steps = static_cast<int>(std::ceil(std::log2(counted_candidates(graph) + 1))) + 2;
    return (steps + 4) * std::max(spec_.max_samples, spec_.min_samples);
  }

  BisectSpec spec_;
  MetricSpec metric_;
  double confidence_;
};

}  // namespace

SearchState::SearchState(const CommitGraph& candidates)
    : graph(&candidates),
      samples(candidates.nodes.size()),
      failed(candidates.nodes.size(), false) {}

const std::vector<double>& SearchState::of(int commit) const {
  return commit == kGoodEndpoint ? good : samples.at(static_cast<size_t>(commit));
}

int SearchState::total_samples() const {
  size_t total = good.size();
  for (const auto& s : samples) total += s.size();
  return static_cast<int>(total);
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"adaptive", "bayes", "classic", "lkp", "pinpoint"};
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const BisectSpec& spec,
                                        const MetricSpec& metric, double confidence) {
  if (name == "adaptive") {
    return std::make_unique<AdaptiveStrategy>(spec, metric);
  }
  if (name == "bayes") return std::make_unique<BayesStrategy>(spec, metric, confidence);
  if (name == "classic") return std::make_unique<ClassicStrategy>(spec, metric);
  if (name == "lkp") return std::make_unique<LkpStrategy>(spec, metric);
  if (name == "pinpoint") return std::make_unique<PinpointStrategy>(spec, metric);
  fail("unknown strategy '{}'; use one of adaptive, bayes, classic, lkp, pinpoint", name);
}

}  // namespace kbisect
