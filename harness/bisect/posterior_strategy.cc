#include "bisect/posterior_strategy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "bisect/posterior.h"
#include "bisect/strategy_actions.h"
#include "common/error.h"

namespace kbisect {
namespace {

// Past max_samples a side, the endpoint check is asked after every this many pairs.
constexpr size_t kLateAskPairs = 3;

// Endpoints measured until the rank test settles: min_samples each, then pairs up to the cap.
Action sequential_endpoint_phase(const SearchState& state, const BisectSpec& spec,
                                 const MetricSpec& metric) {
  size_t have = std::min(state.good.size(), state.of(0).size());
  size_t first = static_cast<size_t>(std::max(spec.min_samples, 1));
  if (have < first || state.good.size() != state.of(0).size()) {
    return measure_endpoints_to(state, std::max(first, have + 1));
  }
  // Everything rests on the endpoints: they may take five times the per-commit cap before
  // "no regression" (earlier only when the change is confidently below the floor), and twice
  // that when the cap finds bad leaning worse (p <= 10 alpha): in the benchmark's bimodal
  // cells at regression == CV (c46bff2, the kernel shift test in every ask), 82 of the 84 real
  // regressions (in 800 sessions) still undecided at the cap lean worse, and without going on those
  // cells are right in 86-90% instead of 97-98.5%. A tip that did not regress costs up to 3.5 more
  // samples on average for it (bisect_accuracy --regression 0).
  const size_t per_commit = static_cast<size_t>(std::max(spec.max_samples, spec.min_samples));
  const size_t cap = 5 * per_commit;
  // Asked after every pair, a tip that did not regress would pass on one of the asks up to its
  // cap in 4-7.5% of sessions at 5-10% noise (bisect_accuracy --regression 0, alpha 0.01). A
  // regression of twice the noise mostly settles within max_samples a side; past that, the
  // check is asked every kLateAskPairs pairs (and needs alpha / 4, verdict.cc), which keeps
  // the false alarms about where asks every max_samples pairs at alpha / 2 had them (1.2-4.2%
  // at 5% noise, 2.0-4.5% before) and stops sooner: a tip that did not regress at 5% noise
  // takes 5-12% fewer samples, a regression at 2x bimodal noise 3% fewer.
  const bool ask_now = have <= per_commit || (have - per_commit) % kLateAskPairs == 0 ||
                       have == cap || have == 2 * cap;
  if (!ask_now) return measure_endpoints_to(state, have + 1);
  // The late asks' shift test is the mixture shift test (verdict.h): bimodal 10%/5% in the
  // benchmark takes 57.6-58.7 samples instead of 62.3-62.9, at the same accuracy.
  const ShiftTest shift_test = have > per_commit ? ShiftTest::kMixture : ShiftTest::kKernel;
  // Before the cap only whether the check settled matters; from there whether bad leans worse.
  const EndpointAsk ask = have < cap ? EndpointAsk::kWhetherSettled : EndpointAsk::kWithP;
  EndpointCheck check = check_endpoints(state.good, state.of(0), metric, spec, ask, shift_test);
  if (check.kind == VerdictKind::kUndecided) {
    const bool leaning_worse = check.p_value <= kLeaningWorse * spec.alpha && check.effect > 0;
    if (have < cap || (have < 2 * cap && leaning_worse)) {
      return measure_endpoints_to(state, have + 1);
    }
    check = check_endpoints(state.good, state.of(0), metric, spec, EndpointAsk::kFinal, shift_test);
  }
  return endpoint_result(check);
}

// What the posterior strategies share: the culprit posterior of the current state, the visit
// that splits it best, the end of the search and the verdicts it leaves behind.
class PosteriorStrategy : public Strategy {
 public:
  PosteriorStrategy(BisectSpec spec, MetricSpec metric, double confidence, const char* name)
      : spec_(spec), metric_(metric), confidence_(confidence) {
    if (!(confidence > 0.5 && confidence < 1)) {
      fail("{} --confidence {} is out of range; use a value between 0.5 and 1, e.g. 0.999", name,
           confidence);
    }
  }

  bool weighs_every_sample() const override { return true; }

 protected:
  struct View {
    std::vector<std::vector<bool>> reach;
    CulpritPosterior posterior;
  };

  PosteriorInput input_of(const SearchState& state) const {
    PosteriorInput input;
    input.graph = state.graph;
    input.good = state.good;
    input.samples = state.samples;
    input.counted_bad = state.counted_bad;
    input.better = metric_.better;
    input.centres_uncertain = centres_uncertain_;
    return input;
  }

  View view(const SearchState& state, int pooling_rounds) const {
    View view;
    view.reach = reach_matrix(*state.graph);
    view.posterior = culprit_posterior(input_of(state), view.reach, pooling_rounds, kSettled);
    return view;
  }

  // Confident, or out of samples: the search is over.
  bool finished(const SearchState& state, const CulpritPosterior& posterior) const {
    return posterior.culprit[posterior.most_likely] >= confidence_ ||
           state.total_samples() >= budget(*state.graph);
  }

  // The measurable commit whose P(bad) is nearest 1/2; -1 when none moves the posterior (only
  // skipped commits stand between the likely culprits).
  int best_split(const SearchState& state, const CulpritPosterior& posterior) const {
    const CommitGraph& graph = *state.graph;
    int pick = -1;
    double pick_distance = 2;
    for (size_t i = 1; i < graph.nodes.size(); ++i) {
      if (state.failed[i] || state.counted_bad[i] || !graph.nodes[i].touches_paths) continue;
      double distance = std::fabs(posterior.bad[i] - 0.5);
      if (distance < pick_distance - 1e-12) pick = static_cast<int>(i), pick_distance = distance;
    }
    if (pick >= 0 && 0.5 - pick_distance < (1 - confidence_) / 10) return -1;
    return pick;
  }

  // The fewest candidates that together hold the confidence: the range git would report.
  int candidates_left(const CulpritPosterior& posterior) const {
    std::vector<double> chances = posterior.culprit;
    std::sort(chances.begin(), chances.end(), std::greater<>());
    double held = 0;
    int count = 0;
    for (double chance : chances) {
      if (held >= confidence_ || chance == 0) break;
      held += chance;
      ++count;
    }
    return count;
  }

  // Only skipped commits stand between the likely culprits: as at the end of a search, a
  // verdict for every measured commit first (the log replays to the same range), then the
  // candidates.
  Action only_skipped(const SearchState& state, const View& view) const {
    const CulpritPosterior& posterior = view.posterior;
    std::vector<int> order;
    for (int i = 1; i < static_cast<int>(state.graph->nodes.size()); ++i) order.push_back(i);
    if (std::optional<Action> verdict = pending_verdict(state, view, order)) return *verdict;
    std::vector<int> candidates;
    const double n = static_cast<double>(posterior.culprit.size());
    for (int c = 0; c < static_cast<int>(posterior.culprit.size()); ++c) {
      if (!state.graph->nodes[c].touches_paths) continue;  // bad, as git lists them
      if (posterior.culprit[c] > (1 - confidence_) / n && judged_possible(state, view, c)) {
        candidates.push_back(c);
      }
    }
    return done_action(SearchOutcome::kOnlySkipped, -1, std::move(candidates));
  }

  // Whether the verdicts leave `commit` possible as the first bad one, as git bisect sees its
  // marks: every commit judged bad descends from it, none judged good does.
  static bool judged_possible(const SearchState& state, const View& view, int commit) {
    return std::none_of(state.verdicts.begin(), state.verdicts.end(), [&](const auto& verdict) {
      const int judged = verdict.first;
      const VerdictKind kind = verdict.second.kind;
      if (judged < 0) return false;  // the good endpoint
      return (kind == VerdictKind::kBad && !view.reach[judged][commit]) ||
             (kind == VerdictKind::kGood && view.reach[judged][commit]);
    });
  }

  // The end: a verdict for every measured commit that has none yet, the answer's last (git
  // bisect replay takes the last bad mark for the first bad commit), then the answer.
  Action conclude(const SearchState& state, const View& view) const {
    const int answer = view.posterior.most_likely;
    const int n = static_cast<int>(state.graph->nodes.size());
    std::vector<int> order;
    for (int i = 1; i < n; ++i) {
      if (i != answer) order.push_back(i);
    }
    if (answer != 0) order.push_back(answer);
    if (std::optional<Action> verdict = pending_verdict(state, view, order)) return *verdict;
    // Bad touches none of the paths, and every commit that does is good: git's "no testable
    // commit".
    if (!state.graph->nodes[answer].touches_paths) {
      return done_action(SearchOutcome::kNoTestable, -1);
    }
    Action found = done_action(SearchOutcome::kFound, answer);
    if (view.posterior.culprit[answer] < confidence_) found.message = stopped_short(state, view);
    return found;
  }

  // Why the answer is no more likely than it is: the budget ran out first.
  std::string stopped_short(const SearchState& state, const View& view) const {
    const int answer = view.posterior.most_likely;
    return fmt::format(
        "the search stopped at its budget of {} samples before any commit reached {:g}: {} is "
        "the most likely culprit, at {:.2g}, and the culprit is one of {} commits at {:g}; a "
        "regression this near the noise needs more samples (bisect.max_samples) or fewer "
        "candidates",
        budget(*state.graph), confidence_, state.graph->nodes[answer].id.substr(0, 12),
        view.posterior.culprit[answer], candidates_left(view.posterior), confidence_);
  }

  // A verdict for the first commit in `order` that was measured and has none yet.
  std::optional<Action> pending_verdict(const SearchState& state, const View& view,
                                        const std::vector<int>& order) const {
    for (int i : order) {
      if (state.of(i).empty() || has_verdict(state, i)) continue;
      return verdict_action(i, verdict_for(state, view, i));
    }
    return std::nullopt;
  }

  static int visited_commits(const SearchState& state) {
    int visited = 0;
    for (size_t i = 1; i < state.samples.size(); ++i) visited += !state.samples[i].empty();
    return visited;
  }

  // Samples each endpoint should have by now: min_samples and `more`, up to four times
  // max_samples; never fewer than both already have.
  size_t endpoint_target(const SearchState& state, int more) const {
    size_t wanted = static_cast<size_t>(std::max(spec_.min_samples, 1) + more);
    size_t cap = static_cast<size_t>(4 * std::max(spec_.max_samples, 1));
    return std::max(std::min(wanted, cap), std::min(state.good.size(), state.of(0).size()));
  }

  // Finished, and still finished under a model that leaves out the endpoint check's samples
  // (at least two of each endpoint stay) and takes every measured commit on the side the
  // answer puts it. The check stops at its first significant result, so its samples tend to
  // overstate the regression; where it is within the noise, a model resting on them settles
  // commits on too little evidence. In the benchmark's cells at regression == CV this takes
  // 0.4-1 points off adaptive's wrong answers for 3-6.5 more samples and 1-8.5 off bayes' for
  // 6-18 (at twice the CV it costs 0.5-1.5 and 0.5-4 samples). Not finished under the second
  // model: the search goes on from that one (`current`).
  bool finished_under_both(const SearchState& state, View& current) const {
    if (!finished(state, current.posterior)) return false;
    const size_t have = std::min(state.good.size(), state.of(0).size());
    const size_t left_out =
        std::min(state.endpoint_check_samples, have - std::min(have, size_t{2}));
    View check{current.reach, posterior_given(input_of(state), current.reach,
                                              current.posterior.most_likely, left_out)};
    if (finished(state, check.posterior)) return true;
    current = std::move(check);
    return false;
  }

  BisectSpec spec_;
  MetricSpec metric_;
  double confidence_;
  bool centres_uncertain_ = false;  // PosteriorInput::centres_uncertain

 private:
  // A commit is settled enough to refit the model from once P(its side) is this close to 1.
  static constexpr double kSettled = 0.01;

  // A verdict made on the samples the commit has now: one made before the session handed
  // the search more of them (a refuted culprit's confirmation) is out of date.
  static bool has_verdict(const SearchState& state, int commit) {
    return std::any_of(state.verdicts.begin(), state.verdicts.end(), [&](const auto& verdict) {
      return verdict.first == commit &&
             static_cast<size_t>(verdict.second.samples) == state.of(commit).size();
    });
  }

  // The side the answer puts the commit on, decided once the posterior holds it with the
  // requested confidence; its own evidence as it stands.
  CommitVerdict verdict_for(const SearchState& state, const View& view, int commit) const {
    CommitVerdict verdict = describe(state.of(commit), state.good, state.of(0), metric_.better);
    verdict.llr = view.posterior.llr[commit];
    const bool bad = view.reach[commit][view.posterior.most_likely];
    const double p_side = bad ? view.posterior.bad[commit] : 1 - view.posterior.bad[commit];
    if (p_side >= confidence_) verdict.kind = bad ? VerdictKind::kBad : VerdictKind::kGood;
    return verdict;
  }

  // A safety net against a search that cannot settle (noise as large as the regression, or
  // no single culprit): five times the per-commit cap for every step git would need and three
  // more, endpoints included (500 samples for 64 candidates, 10 per commit). Three times left
  // one run in thirty of the benchmark's bimodal cells at regression == CV without an answer.
  int budget(const CommitGraph& graph) const {
    int steps = static_cast<int>(std::ceil(std::log2(counted_candidates(graph) + 1)));
    return 5 * (steps + 3) * std::max(spec_.max_samples, spec_.min_samples);
  }
};

// The samples as the host was at the session's start: the drift the endpoints show taken out
// once it is clear (drift.h). A state without sequence numbers (built by hand) stays as it is.
SearchState without_drift(const SearchState& state) {
  bool timed = state.good_sequence.size() == state.good.size();
  for (size_t i = 0; i < state.samples.size(); ++i) {
    timed = timed && state.sequences[i].size() == state.samples[i].size();
  }
  const std::optional<Drift> drift = clear_drift(state);
  if (!timed || !drift) return state;
  SearchState adjusted = state;
  adjusted.good = drift->taken_out(state.good, state.good_sequence);
  for (size_t i = 0; i < state.samples.size(); ++i) {
    adjusted.samples[i] = drift->taken_out(state.samples[i], state.sequences[i]);
  }
  return adjusted;
}

// The default. Visits of min_samples go where they split the culprit probability best; a
// visit once begun is completed before anything is concluded (unless the commit has since
// failed: it is not measured again, as git skips it); the likelihood model is refitted
// from every settled commit; the endpoints are re-measured, interleaved with the search, up to
// four times max_samples (endpoint_target).
class AdaptiveStrategy : public PosteriorStrategy {
 public:
  AdaptiveStrategy(BisectSpec spec, MetricSpec metric, double confidence)
      : PosteriorStrategy(spec, metric, confidence, "adaptive") {}

  Action next(const SearchState& as_measured) const override {
    const SearchState state = without_drift(as_measured);
    if (!state.endpoints_verified) {
      Action action = sequential_endpoint_phase(state, spec_, metric_);
      if (!action.message.empty() && clear_drift(as_measured)) {
        action.message += "; the medians are as the host was at the start, its drift taken out";
      }
      return with_candidates_left(action, counted_candidates(*state.graph));
    }
    const CommitGraph& graph = *state.graph;
    const size_t visit = static_cast<size_t>(std::max(spec_.min_samples, 1));
    for (size_t i = 1; i < graph.nodes.size(); ++i) {
      size_t have = state.samples[i].size();
      if (have > 0 && have < visit && !state.failed[i] && !state.counted_bad[i]) {
        return measure_action(static_cast<int>(i), static_cast<int>(visit - have));
      }
    }
    View current = view(state, kPoolingRounds);
    if (finished_under_both(state, current)) return conclude(state, current);
    // More samples of each endpoint as commits are visited (endpoint_rate), and one per commit
    // beyond max_samples commits: a search that goes on that long is a regression near the noise,
    // where the model rests on the endpoints, and the endpoint check stopped at the first
    // significant result, which tends to overstate the regression.
    const int visited = visited_commits(state);
    const int more = static_cast<int>(endpoint_rate(current.posterior.model) * visited);
    size_t endpoints = endpoint_target(state, more + std::max(0, visited - spec_.max_samples));
    const int left = candidates_left(current.posterior);
    if (!endpoints_have(state, endpoints)) {
      return with_candidates_left(measure_endpoints_to(state, endpoints), left);
    }
    int pick = best_split(state, current.posterior);
    if (pick < 0) return only_skipped(state, current);
    return with_candidates_left(
        measure_action(pick, static_cast<int>(visit - std::min(visit, state.of(pick).size()))),
        left);
  }

 private:
  // Endpoint samples per commit visited: the samples a model needs grow with (noise / shift)^2,
  // so one per visit where the regression is within the noise (the model's early overstated
  // shifts were what made confident wrong answers there) and one per two visits from about 1.4
  // times the noise, where more would only add to the cost.
  static double endpoint_rate(const EndpointModel& model) {
    const double noise_per_shift =
        model.scale / std::max(model.bad_center - model.good_center, 1e-9);
    return std::clamp(noise_per_shift * noise_per_shift, 0.5, 1.0);
  }
  // Refits of the model per step: the second picks up what the first one settled.
  static constexpr int kPoolingRounds = 2;
};

// Probabilistic bisection in its plain form (comparison): one sample at a time where it splits
// best, the model from the endpoints alone; the answer checked as adaptive's is.
class BayesStrategy : public PosteriorStrategy {
 public:
  BayesStrategy(BisectSpec spec, MetricSpec metric, double confidence)
      : PosteriorStrategy(spec, metric, confidence, "bayes") {
    centres_uncertain_ = true;
  }

  Action next(const SearchState& state) const override {
    if (!state.endpoints_verified) {
      return with_candidates_left(sequential_endpoint_phase(state, spec_, metric_),
                                  counted_candidates(*state.graph));
    }
    // Endpoints grow with the number of commits looked at.
    size_t target = endpoint_target(state, visited_commits(state));
    View current = view(state, 0);
    const int left = candidates_left(current.posterior);
    if (!endpoints_have(state, target)) {
      return with_candidates_left(measure_endpoints_to(state, target), left);
    }
    if (finished_under_both(state, current)) return conclude(state, current);
    int pick = best_split(state, current.posterior);
    if (pick < 0) return only_skipped(state, current);
    return with_candidates_left(measure_action(pick), left);
  }
};

}  // namespace

std::unique_ptr<Strategy> make_adaptive_strategy(const BisectSpec& spec, const MetricSpec& metric,
                                                 double confidence) {
  return std::make_unique<AdaptiveStrategy>(spec, metric, confidence);
}

std::unique_ptr<Strategy> make_bayes_strategy(const BisectSpec& spec, const MetricSpec& metric,
                                              double confidence) {
  return std::make_unique<BayesStrategy>(spec, metric, confidence);
}

}  // namespace kbisect
