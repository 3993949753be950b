#include "bisect/strategy.h"

#include "bisect/git_like_strategy.h"
#include "bisect/posterior_strategy.h"
#include "common/error.h"

namespace kbisect {

SearchState::SearchState(const CommitGraph& candidates)
    : graph(&candidates),
      samples(candidates.nodes.size()),
      sequences(candidates.nodes.size()),
      failed(candidates.nodes.size(), false),
      counted_bad(candidates.nodes.size(), false) {}

const std::vector<double>& SearchState::of(int commit) const {
  return commit == kGoodEndpoint ? good : samples.at(static_cast<size_t>(commit));
}

int SearchState::total_samples() const {
  size_t total = good.size();
  for (const auto& s : samples) total += s.size();
  return static_cast<int>(total);
}

std::optional<Drift> clear_drift(const SearchState& state) {
  const Drift drift =
      endpoint_drift(state.good, state.good_sequence, state.samples[0], state.sequences[0]);
  if (drift.p_value > kClearDrift) return std::nullopt;
  return drift;
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"adaptive", "bayes", "classic", "lkp", "pinpoint"};
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const BisectSpec& spec,
                                        const MetricSpec& metric, std::optional<double> confidence,
                                        int pinpoint_attempts) {
  if (name == "adaptive") {
    return make_adaptive_strategy(spec, metric, confidence.value_or(kAdaptiveConfidence));
  }
  if (name == "bayes")
    return make_bayes_strategy(spec, metric, confidence.value_or(kBayesConfidence));
  if (name == "classic") return make_classic_strategy(spec, metric);
  if (name == "lkp") return make_lkp_strategy(spec, metric);
  if (name == "pinpoint") return make_pinpoint_strategy(spec, metric, pinpoint_attempts);
  fail("unknown strategy '{}'; use one of adaptive, bayes, classic, lkp, pinpoint", name);
}

}  // namespace kbisect
