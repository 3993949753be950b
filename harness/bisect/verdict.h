// Per-commit verdicts: a commit's samples against the good and bad endpoint distributions.
// Values are compared on a log scale oriented so that "worse" is larger (MetricSpec::better),
// which makes multiplicative regressions additive and lognormal noise normal.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bisect/mixture.h"
#include "bisect/statistics.h"
#include "config/scenario.h"

namespace kbisect {

enum class VerdictKind { kGood, kBad, kUndecided, kSkip };
const char* verdict_name(VerdictKind kind);  // "good", "bad", "undecided", "skip"

// Log-scale "badness" of a metric value: larger is worse.
double badness(double value, Better better);
// The relative change of the median from `before` to `after` (statistics.h: relative_change),
// with its sign oriented so that > 0 is worse for the metric.
double worsening(std::span<const double> before, std::span<const double> after, Better better);
// The side of a one-sided rank test on which worse samples lie.
Alternative worse_side(Better better);

// The likelihood model of the search, fitted from samples known to be good and known to be bad
// (the endpoints; later also every commit the posterior has settled). Bad is modelled as good
// shifted by the kernel shift (statistics.h: it aligns the modes of multimodal noise even when
// the two sides hold them in different proportions); the noise is a normal mixture
// (mixture.h) fitted to both sides' samples aligned by that shift, so noise with a second mode
// is modelled as it is. A Cauchy tail keeps one far-off sample (a disturbed boot) from
// deciding anything.
struct EndpointModel {
  double good_center = 0;     // median of the aligned samples, at good
  double bad_center = 0;      // good_center + shift
  double scale = 1;           // robust spread (1.4826 MAD) of the aligned samples
  std::vector<double> shape;  // the aligned samples, placed at good
  NormalMixture noise;        // fitted to the shape: the density at good
  size_t good_samples = 0;    // the samples of each side it was fitted from
  size_t bad_samples = 0;
  // log f_bad(value) - log f_good(value).
  double log_likelihood_ratio(double value_badness) const;
};
// `noise_scale`: the spread of the noise (badness units) when known from more than these
// samples (posterior.h estimates it from the repeats of every commit); else from these.
EndpointModel fit_endpoints(std::span<const double> good, std::span<const double> bad,
                            Better better, std::optional<double> noise_scale = std::nullopt);

struct CommitVerdict {
  VerdictKind kind = VerdictKind::kUndecided;
  double llr = 0;         // log likelihood ratio of its samples, bad vs good; > 0 leans bad
  double p_vs_good = 1;   // Mann-Whitney U, one-sided: worse than good
  double p_vs_bad = 1;    // Mann-Whitney U, one-sided: better than bad
  double ks_vs_good = 1;  // two-sample Kolmogorov-Smirnov, two-sided: differs from good
  double ks_vs_bad = 1;   // and from bad
  double effect = 0;      // relative change of the median against good's, > 0 is worse
  Shift shift;            // Hodges-Lehmann shift against good, in metric units
  int samples = 0;
  int good_samples = 0;
  int bad_samples = 0;
  // Whether the commit boots decided it (bisect.boot_failure_is_bad): the statistics above
  // are unset.
  bool by_boot = false;
};

// The evidence about one commit against the endpoints: rank tests, effect and shift against
// good, sample counts. No decision (kind undecided) and no llr: the strategy's model has those.
CommitVerdict describe(std::span<const double> samples, std::span<const double> good,
                       std::span<const double> bad, Better better);

// One commit decided against the endpoint model: bad once its llr >= threshold, good once
// llr <= -threshold, undecided in between; `final` forces the nearer side (no more samples).
CommitVerdict classify(std::span<const double> samples, std::span<const double> good,
                       std::span<const double> bad, Better better, double threshold, bool final);

// The test beside Mann-Whitney in check_endpoints; both keep their power where a share of the
// samples sits in a second mode, which a rank test loses. Before the search, up to max_samples a
// side, the kernel shift test (statistics.h): the mixture shift test (mixture.h) settles the
// check on fewer samples there and leaves the search's model too few to learn the noise from (it
// named wrong commits in the benchmark's bimodal cells; bench/bisect_accuracy/README.md). Past
// max_samples a side the model has those samples, and the mixture shift test settles sooner. In
// the confirmation nothing is fitted from the samples afterwards, and the mixture shift test
// confirms more right culprits there, on fewer samples.
enum class ShiftTest { kKernel, kMixture };

// An unsettled endpoint check leans worse at p <= this many alphas: at its cap the strategies
// go on measuring while it does (posterior_strategy.cc).
constexpr double kLeaningWorse = 10;

// What the caller of check_endpoints reads. kWhetherSettled: only the kind (an ask that
// measures more unless the check settles), so the shift test draws relabellings only until its
// p must exceed the level needed. That is most asks, and where the mixture shift test runs it
// is most of a session's time: it refits its mixture for every relabelling, and drawn to
// kLeaningWorse alphas a check past max_samples a side took about 5 s of CPU a session in the
// benchmark's cells below 1x. kWithP: p as well. kFinal: p, and no more samples will come.
enum class EndpointAsk { kWhetherSettled, kWithP, kFinal };

// Good vs bad before the search (and the confirmations after it): bad must be worse with
// p <= alpha, p being the smaller of a one-sided Mann-Whitney test and the shift test, doubled
// (Bonferroni), by a change that may be at least min_effect (the upper end of its 1 - alpha
// interval reaches it). kGood ("no regression") once the change is confidently
// below min_effect (with max_samples a side at least), or at the cap (kFinal). kUndecided
// means more samples may still settle it.
struct EndpointCheck {
  VerdictKind kind = VerdictKind::kUndecided;  // kBad: a regression to bisect; kGood: none
  // min(1, 2 min(p Mann-Whitney, p shift test)); the shift test draws relabellings until its
  // p must exceed kLeaningWorse alphas (the level needed where the ask is kWhetherSettled and
  // the check stays undecided), and above that p is a rough figure.
  double p_value = 1;
  double effect = 0;
  std::string message;  // for kGood: medians, spread and p, and what to do
};
EndpointCheck check_endpoints(std::span<const double> good, std::span<const double> bad,
                              const MetricSpec& metric, const BisectSpec& spec, EndpointAsk ask,
                              ShiftTest shift_test = ShiftTest::kKernel);

}  // namespace kbisect
