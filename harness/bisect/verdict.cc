#include "bisect/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kbisect {
namespace {

// The heavy tail of the likelihood: this share of samples may be far off. The tail is Cauchy,
// so the evidence of a sample far from both endpoints fades instead of growing with distance.
constexpr double kOutlierShare = 0.1;
constexpr double kOutlierScale = 3;       // in robust sigmas
constexpr double kBandwidthFactor = 1.2;  // times scale * n^(-1/5); Silverman's is 1.06
// The mixture's spread is the one that best fits the aligned samples, but a new sample also
// meets the error of the fitted centres and shift: fitted as it is, the benchmark's cells at
// regression == CV lost 0.5-3 points of accuracy; 10% wider, none.
constexpr double kMixtureWidening = 1.1;
// Relabellings drawn by the shift tests: 1000 read p to about 1/1000, a rough figure but enough
// above the level needed. Where p may be below it, enough that a p of a fifth of the level
// passes most of the time: more than 1000 past max_samples at alpha 0.01, and at any smaller
// alpha, where 1000 could never reach the level. At most kShiftTestMostPermutations: below
// alpha 4e-4 the shift test loses power, and below 8e-5 it settles no check (Mann-Whitney
// still does).
constexpr int kShiftTestPermutations = 1000;
constexpr double kShiftTestDrawsAtLevel = 5;
constexpr double kShiftTestMostPermutations = 100000;

std::vector<double> badness_of(std::span<const double> values, Better better) {
  std::vector<double> result;
  result.reserve(values.size());
  for (double v : values) result.push_back(badness(v, better));
  return result;
}

// Never sharper than a tenth of the shift: identical samples must not give infinite
// confidence.
double robust_scale(double scale, double shift) {
  return std::max({scale, 0.1 * std::fabs(shift), 1e-9});
}

// For the kernel shift and the kernel shift test. Wider than Silverman's rule: with a few
// dozen samples a narrow kernel leaves gaps that read as structure.
double kernel_bandwidth(double scale, size_t samples, double shift) {
  double rule = kBandwidthFactor * scale * std::pow(static_cast<double>(samples), -0.2);
  return std::max({rule, 0.05 * std::fabs(shift), 1e-9});
}

// The smallest step between two different values of either side: a metric's grid (latency in
// whole microseconds, iops in hundreds); 0 when every value is the same.
double resolution(const std::vector<double>& good, const std::vector<double>& bad) {
  std::vector<double> values = good;
  values.insert(values.end(), bad.begin(), bad.end());
  std::sort(values.begin(), values.end());
  double step = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    const double gap = values[i] - values[i - 1];
    if (gap > 0 && (step == 0 || gap < step)) step = gap;
  }
  return step;
}

// The spread of the noise within each side, around the side's own median: the shift left out.
double within_scale(const std::vector<double>& good, const std::vector<double>& bad) {
  std::vector<double> within;
  for (double v : good) within.push_back(v - median(good));
  for (double v : bad) within.push_back(v - median(bad));
  return 1.4826 * mad(within);
}

double cauchy(double x, double scale) {
  double y = x / scale;
  return 1 / (M_PI * scale * (1 + y * y));
}

// One-sided p that bad (badness `b`) sits above good (`g`), for a decision at `level`; drawing
// stops once p must exceed `stop_above`, and p is only a rough figure above it.
double shift_test_p(const std::vector<double>& g, const std::vector<double>& b, ShiftTest test,
                    double level, double stop_above) {
  const double most =
      std::min(kShiftTestMostPermutations, std::ceil(kShiftTestDrawsAtLevel / level));
  const Draws draws{.most = std::max(kShiftTestPermutations, static_cast<int>(most)),
                    .stop_above = stop_above,
                    .level = level,
                    .rough = kShiftTestPermutations};
  if (test == ShiftTest::kMixture) return mixture_shift_test(g, b, draws).p_value;
  // The kernel is sqrt(2) times the model's: in the benchmark's bimodal cells the best of 1,
  // sqrt(2) and 2 times (the fewest real regressions ended as "no regression"). Its scale is at
  // least the data's resolution: on a grid most samples of a side can share one value, and a
  // kernel narrower than the grid step sees no shift at all (the test's p was 1).
  const double scale = std::max(within_scale(g, b), resolution(g, b));
  const double width =
      std::sqrt(2.0) * kernel_bandwidth(robust_scale(scale, 0), g.size() + b.size(), 0);
  return kernel_shift_test(g, b, width, draws).p_value;
}

}  // namespace

const char* verdict_name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kGood:
      return "good";
    case VerdictKind::kBad:
      return "bad";
    case VerdictKind::kUndecided:
      return "undecided";
    case VerdictKind::kSkip:
      return "skip";
  }
  return "?";
}

double badness(double value, Better better) {
  double z = std::log(std::max(value, 1e-300));
  return better == Better::kHigher ? -z : z;
}

double worsening(std::span<const double> before, std::span<const double> after, Better better) {
  const double change = relative_change(before, after);
  return better == Better::kHigher ? -change : change;
}

Alternative worse_side(Better better) {
  return better == Better::kHigher ? Alternative::kLess : Alternative::kGreater;
}

double EndpointModel::log_likelihood_ratio(double z) const {
  const double tail = kOutlierScale * scale;
  double f_good =
      (1 - kOutlierShare) * noise.density(z) + kOutlierShare * cauchy(z - good_center, tail);
  double f_bad = (1 - kOutlierShare) * noise.density(z - (bad_center - good_center)) +
                 kOutlierShare * cauchy(z - bad_center, tail);
  return std::log(f_bad) - std::log(f_good);
}

EndpointModel fit_endpoints(std::span<const double> good, std::span<const double> bad,
                            Better better, std::optional<double> noise_scale) {
  auto g = badness_of(good, better), b = badness_of(bad, better);
  // The spread within each side needs no shift yet; it sets the kernel that finds the shift.
  const double rough_shift = median(b) - median(g);
  const double scale = robust_scale(noise_scale ? *noise_scale : within_scale(g, b), rough_shift);
  const double shift =
      kernel_shift(g, b, kernel_bandwidth(scale, g.size() + b.size(), rough_shift));
  EndpointModel model;
  model.shape = g;
  for (double v : b) model.shape.push_back(v - shift);
  model.good_center = median(model.shape);
  model.bad_center = model.good_center + shift;
  model.scale = robust_scale(noise_scale ? *noise_scale : 1.4826 * mad(model.shape), shift);
  model.noise = fit_normal_mixture(model.shape, robust_scale(0, shift));
  model.noise.sigma *= kMixtureWidening;
  model.good_samples = g.size();
  model.bad_samples = b.size();
  return model;
}

CommitVerdict describe(std::span<const double> samples, std::span<const double> good,
                       std::span<const double> bad, Better better) {
  CommitVerdict verdict;
  verdict.samples = static_cast<int>(samples.size());
  verdict.good_samples = static_cast<int>(good.size());
  verdict.bad_samples = static_cast<int>(bad.size());
  if (samples.empty() || good.empty() || bad.empty()) return verdict;
  verdict.p_vs_good = mann_whitney_u(samples, good, worse_side(better)).p_value;
  verdict.p_vs_bad = mann_whitney_u(bad, samples, worse_side(better)).p_value;
  verdict.ks_vs_good = kolmogorov_smirnov(samples, good).p_value;
  verdict.ks_vs_bad = kolmogorov_smirnov(samples, bad).p_value;
  verdict.effect = worsening(good, samples, better);
  verdict.shift = hodges_lehmann(good, samples);
  return verdict;
}

CommitVerdict classify(std::span<const double> samples, std::span<const double> good,
                       std::span<const double> bad, Better better, double threshold, bool final) {
  CommitVerdict verdict = describe(samples, good, bad, better);
  if (samples.empty() || good.empty() || bad.empty()) return verdict;
  EndpointModel model = fit_endpoints(good, bad, better);
  for (double v : samples) verdict.llr += model.log_likelihood_ratio(badness(v, better));
  if (verdict.llr >= threshold) {
    verdict.kind = VerdictKind::kBad;
  } else if (verdict.llr <= -threshold) {
    verdict.kind = VerdictKind::kGood;
  } else if (final) {
    verdict.kind = verdict.llr > 0 ? VerdictKind::kBad : VerdictKind::kGood;
  }
  return verdict;
}

EndpointCheck check_endpoints(std::span<const double> good, std::span<const double> bad,
                              const MetricSpec& metric, const BisectSpec& spec, EndpointAsk ask,
                              ShiftTest shift_test) {
  EndpointCheck check;
  auto g = badness_of(good, metric.better), b = badness_of(bad, metric.better);
  check.effect = worsening(good, bad, metric.better);
  // The floor is applied to what the samples allow: a change counts unless it is confidently
  // smaller than min_effect (the upper end of its 1 - alpha interval is below the floor).
  // The shift is in log badness; the floor is a relative worsening of the metric itself
  // (for iops 1 - bad/good, not good/bad - 1), as the effect printed beside it.
  Shift shift = hodges_lehmann(g, b, 1 - spec.alpha);
  const double largest_worsening =
      metric.better == Better::kHigher ? -std::expm1(-shift.high) : std::expm1(shift.high);
  bool may_be_large = largest_worsening >= spec.min_effect;
  // "No regression" before the cap only when the change is confidently below the floor: an
  // early stop on a few unlucky samples would end a session that more samples would start.
  // Not before max_samples each: with fewer the interval is the range of the differences and
  // covers less than it claims.
  bool below_floor =
      !may_be_large && std::min(good.size(), bad.size()) >= static_cast<size_t>(spec.max_samples);
  const bool says_no_regression = ask == EndpointAsk::kFinal || below_floor;
  // A tip that did not regress is asked until its cap, many times: past max_samples a side
  // the strategies ask only every few pairs, and those asks need p <= alpha / 4.
  const bool late = std::min(good.size(), bad.size()) > static_cast<size_t>(spec.max_samples);
  const double needed = late ? spec.alpha / 4 : spec.alpha;
  // Two tests, each at half of that (Bonferroni): Mann-Whitney and the shift test (ShiftTest).
  // The mixture shift test refits its mixture for every relabelling: it is left out where
  // Mann-Whitney alone settles the check.
  const double level = needed / 2;
  const double p_rank = mann_whitney_u(bad, good, worse_side(metric.better)).p_value;
  const bool rank_settles = p_rank <= level && shift_test == ShiftTest::kMixture;
  // Drawn out past the level needed where p is read: at its cap the check goes on while bad
  // leans worse, and "no regression" prints p.
  const bool p_read = ask != EndpointAsk::kWhetherSettled || below_floor;
  const double drawn_to = p_read ? kLeaningWorse * spec.alpha : level;
  const double p_shift = rank_settles ? 1 : shift_test_p(g, b, shift_test, level, drawn_to);
  check.p_value = std::min(1.0, 2 * std::min(p_rank, p_shift));
  if (check.p_value <= needed && may_be_large) {
    check.kind = VerdictKind::kBad;
    return check;
  }
  if (!says_no_regression) return check;
  check.kind = VerdictKind::kGood;
  // What decided it: a difference smaller than the floor, or none shown in these samples.
  const std::string outcome =
      !may_be_large ? fmt::format("good and bad {}: at most {:.2f}% worse at {:g}%",
                                  check.p_value <= needed ? "differ, by less than the floor"
                                                          : "do not differ by the floor",
                                  100 * largest_worsening, 100 * (1 - spec.alpha))
                    : fmt::format(
                          "good and bad do not differ in {} samples a side (a regression this "
                          "near the noise may need more: bisect.max_samples)",
                          std::min(good.size(), bad.size()));
  check.message = fmt::format(
      "{}: {} median {:.6g} at good (IQR {:.3g}, {} samples), {:.6g} at bad (IQR {:.3g}, {} "
      "samples), change {:+.2f}% in the worse direction (floor {:.2f}%), p = {:.3g} (needs <= "
      "{}{}; the smaller p of one-sided Mann-Whitney and the {} shift test, doubled)",
      outcome, metric.name, median(good), iqr(good), good.size(), median(bad), iqr(bad), bad.size(),
      100 * check.effect, 100 * spec.min_effect, check.p_value, needed,
      late ? ", alpha / 4 past max_samples a side" : ", alpha",
      shift_test == ShiftTest::kKernel ? "kernel" : "mixture");
  return check;
}

}  // namespace kbisect
