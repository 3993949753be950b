// Search strategies behind one small interface: (candidate DAG, samples and verdicts so far)
// -> the next sample to take, a verdict to record, or done. next() is a pure function of the
// state, which is what makes a resumed session take exactly the samples an uninterrupted one
// would: the session replays its journal into the state and asks again.
//
//   adaptive  (default) probabilistic bisection: every candidate carries its probability of
//             being the culprit (posterior.h), updated by every sample under a likelihood
//             model refitted from every settled commit; visits of min_samples go to the commit
//             that splits that probability best; endpoints re-measured, interleaved, as the
//             search goes on, and clear host drift they show taken out (drift.h); stop
//             once one candidate holds the confidence (0.999), also under a model without
//             the endpoint check's samples, then a verdict for every measured commit.
//   bayes     (comparison) the plain form: one sample at a time, model from the endpoints
//             only, stop at 0.95, also under a model without the endpoint check's samples.
//   classic   (comparison) one sample per commit, threshold halfway between endpoint means.
//   lkp       (comparison) 0-day: 3 samples a side, bad when the ranges separate and the
//             change exceeds the floor.
//   pinpoint  (comparison) Chromium Pinpoint (pinpoint.h): 10 attempts, the commit compared
//             with its nearest good and bad neighbours; different at p <= 0.01, the same above
//             a threshold for the size of change looked for, else +10 attempts.
// All but classic, lkp and pinpoint first measure the endpoints until the endpoint check
// (verdict.h: Mann-Whitney and the kernel shift test, and past max_samples a side the mixture
// shift test; adaptive's with clear host drift taken out) settles that bad is worse than good
// by at least min_effect.
// posterior_strategy.cc holds adaptive and bayes, git_like_strategy.cc the rest, and
// strategy_actions.h what they answer with.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bisect/commit_graph.h"
#include "bisect/drift.h"
#include "bisect/verdict.h"
#include "config/scenario.h"

namespace kbisect {

// The good endpoint is not a candidate (the candidates are `bad ^good`): it has this index.
constexpr int kGoodEndpoint = -1;

struct SearchState {
  const CommitGraph* graph = nullptr;
  std::vector<double> good;                  // samples of the good endpoint
  std::vector<std::vector<double>> samples;  // per node; node 0 is the bad endpoint
  // When each sample above was taken: the session's count of samples before it (drift.h).
  std::vector<int> good_sequence;
  std::vector<std::vector<int>> sequences;
  std::vector<bool> failed;       // per node: could not be measured: skip it
  std::vector<bool> counted_bad;  // per node: could not be measured, counts as bad (boot failure)
  std::vector<std::pair<int, CommitVerdict>> verdicts;  // in the order they were made
  bool endpoints_verified = false;
  size_t endpoint_check_samples = 0;  // of each endpoint, when the endpoint check passed

  explicit SearchState(const CommitGraph& candidates);
  const std::vector<double>& of(int commit) const;
  int total_samples() const;
};

// The drift the endpoints' samples show, when it is clear (drift.h); none otherwise.
std::optional<Drift> clear_drift(const SearchState& state);

enum class SearchOutcome { kFound, kOnlySkipped, kNoTestable };

struct Action {
  enum class Kind {
    kMeasure,       // take one sample of `commit` (`samples`: how many it needs at least)
    kVerdict,       // record `verdict` for `commit` (`message`: why, for a verdict by boot)
    kEndpointsOk,   // the endpoints differ as configured (or `message` says how): search
    kNoRegression,  // they do not: `message` says why
    kDone,          // `outcome`; kFound: `commit` is the culprit; else `candidates`
  };
  Kind kind = Kind::kDone;
  int commit = -1;
  int samples = 1;
  // kMeasure: candidates not ruled out when the search chose `commit` (0 while it completes
  // a visit begun earlier: the visit's first sample carried the count).
  int candidates_left = 0;
  CommitVerdict verdict;
  std::string message;
  SearchOutcome outcome = SearchOutcome::kFound;
  std::vector<int> candidates;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual Action next(const SearchState& state) const = 0;
  // Whether next() weighs every sample of every commit, so that samples added after the
  // search can move its answer: the session then hands it the samples of a culprit its
  // confirmation refuted (session.h). The git-like strategies judge each commit once.
  virtual bool weighs_every_sample() const { return false; }
};

// Where adaptive and bayes stop unless told otherwise: the probability of the named culprit.
constexpr double kAdaptiveConfidence = 0.999;
constexpr double kBayesConfidence = 0.95;

// Attempts per change that Chromium Pinpoint starts with and adds while a comparison is unknown.
constexpr int kPinpointAttempts = 10;

// name: adaptive | bayes | classic | lkp | pinpoint; confidence: adaptive's and bayes' stop;
// pinpoint_attempts: pinpoint's (the benchmark raises it to ask what pinpoint needs to be as
// accurate as adaptive).
std::unique_ptr<Strategy> make_strategy(const std::string& name, const BisectSpec& spec,
                                        const MetricSpec& metric,
                                        std::optional<double> confidence = std::nullopt,
                                        int pinpoint_attempts = kPinpointAttempts);

const std::vector<std::string>& strategy_names();

// A boot regression's search, which the session takes over with once bisect.boot_failure_is_bad
// holds and bad does not boot: one boot a commit, good when it boots, bad when it does not (the
// session records that verdict with the failure); the metric is not looked at.
std::unique_ptr<Strategy> make_boot_strategy();

}  // namespace kbisect
