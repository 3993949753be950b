#include "bisect/posterior.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "bisect/midpoint.h"
#include "bisect/statistics.h"

namespace kbisect {
namespace {

// The evidence of a failure that counts as bad (boot_failure_is_bad): as good as certain.
constexpr double kCertainLlr = 50;

// Whether the culprit may be `c`: a commit that touches the paths, or bad, which also stands
// for the commits after the last that does when it touches none of them itself: every commit
// touching the paths may be good, and the search must be able to say so, as git does.
bool may_be_culprit(const CommitGraph& graph, size_t c) {
  return c == 0 || graph.nodes[c].touches_paths;
}

// Posterior of each culprit from the per-commit evidence: log P(c) = sum of the llr of the
// commits that reach c, normalised over the candidates (uniform prior over counted commits).
void spread_evidence(const CommitGraph& graph, const std::vector<std::vector<bool>>& reach,
                     CulpritPosterior& posterior) {
  const size_t n = graph.nodes.size();
  std::vector<double> log_post(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (posterior.llr[i] == 0) continue;
    for (size_t c = 0; c < n; ++c) {
      if (reach[i][c]) log_post[c] += posterior.llr[i];
    }
  }
  double top = -HUGE_VAL;
  for (size_t c = 0; c < n; ++c) {
    if (may_be_culprit(graph, c)) top = std::max(top, log_post[c]);
  }
  posterior.culprit.assign(n, 0);
  double sum = 0;
  for (size_t c = 0; c < n; ++c) {
    if (!may_be_culprit(graph, c)) continue;
    posterior.culprit[c] = std::exp(log_post[c] - top);
    sum += posterior.culprit[c];
  }
  posterior.most_likely = 0;
  for (size_t c = 0; c < n; ++c) {
    posterior.culprit[c] /= sum;
    if (posterior.culprit[c] > posterior.culprit[posterior.most_likely]) {
      posterior.most_likely = static_cast<int>(c);
    }
  }
  posterior.bad.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t c = 0; c < n; ++c) {
      if (reach[i][c]) posterior.bad[i] += posterior.culprit[c];
    }
    posterior.bad[i] = std::min(posterior.bad[i], 1.0);
  }
}

// The noise as the repeats of one commit show it, whatever side the commit is on: the median
// distance between two samples of the same commit (endpoints included), scaled to a normal
// sigma (|x - y| of two normal samples has median 0.6745 sqrt(2) sigma). Every visit adds to
// it from the start, where the endpoints alone may by chance sit close together.
std::optional<double> repeat_scale(const PosteriorInput& input) {
  std::vector<double> distances;
  auto add = [&](std::span<const double> values) {
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t j = i + 1; j < values.size(); ++j) {
        distances.push_back(
            std::fabs(badness(values[i], input.better) - badness(values[j], input.better)));
      }
    }
  };
  add(input.good);
  for (const auto& values : input.samples) add(values);
  if (distances.empty()) return std::nullopt;
  return median(distances) / (0.6745 * std::sqrt(2.0));
}

// What m samples of one commit are worth against centres estimated from the model's own
// samples. Under normal noise their mean sits about the estimated midpoint of good and bad with
// variance sigma^2 (1/m + (1/n_good + 1/n_bad) / 4), not sigma^2 / m: the centres' error is
// shared by every sample of the commit. The log likelihood ratio of the mean under that
// variance is the plug-in one times this weight. Without it, bayes' model (the endpoints
// alone, 10-20 samples a side) took a commit's tenth sample to be as telling as its first and
// was right in 82-93.5% of the benchmark's bimodal and regression == CV cells at 0.95.
double commit_weight(size_t m, const EndpointModel& model) {
  if (model.good_samples == 0 || model.bad_samples == 0) return 1;
  const double centre_variance = (1.0 / static_cast<double>(model.good_samples) +
                                  1.0 / static_cast<double>(model.bad_samples)) /
                                 4;
  return 1 / (1 + static_cast<double>(m) * centre_variance);
}

void evaluate(const PosteriorInput& input, const std::vector<std::vector<bool>>& reach,
              CulpritPosterior& posterior) {
  const size_t n = input.graph->nodes.size();
  posterior.llr.assign(n, 0);
  for (size_t i = 1; i < n; ++i) {
    for (double v : input.samples[i]) {
      posterior.llr[i] += posterior.model.log_likelihood_ratio(badness(v, input.better));
    }
    if (input.centres_uncertain) {
      posterior.llr[i] *= commit_weight(input.samples[i].size(), posterior.model);
    }
    if (input.counted_bad[i]) posterior.llr[i] += kCertainLlr;
  }
  spread_evidence(*input.graph, reach, posterior);
}

}  // namespace

std::vector<std::vector<bool>> reach_matrix(const CommitGraph& graph) {
  std::vector<std::vector<bool>> reach;
  reach.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    reach.push_back(reachable(graph, static_cast<int>(i)));
  }
  return reach;
}

CulpritPosterior culprit_posterior(const PosteriorInput& input,
                                   const std::vector<std::vector<bool>>& reach, int rounds,
                                   double settled) {
  CulpritPosterior posterior;
  const std::optional<double> noise = repeat_scale(input);
  posterior.model = fit_endpoints(input.good, input.samples[0], input.better, noise);
  evaluate(input, reach, posterior);
  std::vector<int> sides(input.samples.size(), 0);
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> good(input.good.begin(), input.good.end());
    std::vector<double> bad = input.samples[0];
    std::vector<int> side(input.samples.size(), 0);  // -1 settled good, 1 settled bad
    for (size_t i = 1; i < input.samples.size(); ++i) {
      const auto& values = input.samples[i];
      if (values.empty()) continue;
      if (posterior.bad[i] <= settled) {
        good.insert(good.end(), values.begin(), values.end());
        side[i] = -1;
      } else if (posterior.bad[i] >= 1 - settled) {
        bad.insert(bad.end(), values.begin(), values.end());
        side[i] = 1;
      }
    }
    if (side == sides) break;  // the same pool gives the same model
    sides = side;
    posterior.pooled =
        static_cast<int>(std::count_if(side.begin(), side.end(), [](int s) { return s != 0; }));
    posterior.model = fit_endpoints(good, bad, input.better, noise);
    evaluate(input, reach, posterior);
  }
  return posterior;
}

CulpritPosterior posterior_given(const PosteriorInput& input,
                                 const std::vector<std::vector<bool>>& reach, int answer,
                                 size_t endpoint_samples_left_out) {
  auto kept = [&](std::span<const double> values) {
    return std::vector<double>(values.begin() + std::min(endpoint_samples_left_out, values.size()),
                               values.end());
  };
  std::vector<double> good = kept(input.good), bad = kept(input.samples[0]);
  for (size_t i = 1; i < input.samples.size(); ++i) {
    auto& side = reach[i][static_cast<size_t>(answer)] ? bad : good;
    side.insert(side.end(), input.samples[i].begin(), input.samples[i].end());
  }
  CulpritPosterior posterior;
  posterior.model = fit_endpoints(good, bad, input.better, repeat_scale(input));
  evaluate(input, reach, posterior);
  return posterior;
}

}  // namespace kbisect
