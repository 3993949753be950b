#include "bisect/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kbisect {
namespace {

// The heavy tail of the likelihood: this share of samples may be far off (bimodal dips,
// a disturbed boot). The tail is Cauchy, so the evidence of a sample far from both endpoints
// fades to nothing instead of growing with the distance.
constexpr double kOutlierShare = 0.2;
constexpr double kOutlierScale = 3;  // in sigmas

std::vector<double> badness_of(std::span<const double> values, Better better) {
  std::vector<double> result;
  result.reserve(values.size());
  for (double v : values) result.push_back(badness(v, better));
  return result;
}

// Hodges-Lehmann location: the median of the Walsh averages; nearly as efficient as the mean
// for normal noise and not moved by a few outliers.
double robust_center(std::span<const double> values) {
  std::vector<double> averages;
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = i; j < values.size(); ++j) averages.push_back((values[i] + values[j]) / 2);
  }
  return median(averages);
}

double density(double z, double center, double sigma) {
  double x = (z - center) / sigma;
  double normal = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
  double y = x / kOutlierScale;
  double cauchy = 1 / (M_PI * kOutlierScale * (1 + y * y));
  return ((1 - kOutlierShare) * normal + kOutlierShare * cauchy) / sigma;
}

// The spread of both endpoints around their own medians: the median absolute residual sets
// the scale, residuals beyond four of those (bimodal dips, a disturbed run) are left out once
// there are enough samples to tell, and the rest give a standard deviation.
double robust_sigma(std::span<const double> a, std::span<const double> b) {
  std::vector<double> residuals;
  double ca = median(a), cb = median(b);
  for (double v : a) residuals.push_back(v - ca);
  for (double v : b) residuals.push_back(v - cb);
  std::vector<double> absolute;
  for (double r : residuals) absolute.push_back(std::fabs(r));
  double scale = 1.4826 * median(absolute);
  bool trim = residuals.size() >= 10 && scale > 0;
  double sum = 0;
  size_t kept = 0;
  for (double r : residuals) {
    if (trim && std::fabs(r) > 4 * scale) continue;
    sum += r * r;
    ++kept;
  }
  double dof = static_cast<double>(kept) - 2;
  double sd = dof > 0 ? std::sqrt(sum / dof) : 0;
  return std::max(sd, 0.5 * scale);
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

double EndpointModel::log_likelihood_ratio(double z) const {
  return std::log(density(z, bad_center, sigma)) - std::log(density(z, good_center, sigma));
}

EndpointModel fit_endpoints(std::span<const double> good, std::span<const double> bad,
                            Better better) {
  auto g = badness_of(good, better), b = badness_of(bad, better);
  EndpointModel model;
  model.good_center = robust_center(g);
  model.bad_center = robust_center(b);
  double sigma = robust_sigma(g, b);
  // Never sharper than a tenth of the separation, so identical samples cannot give
  // infinite confidence.
  model.sigma = std::max(sigma, 0.1 * std::fabs(model.bad_center - model.good_center));
  model.sigma = std::max(model.sigma, 1e-9);
  return model;
}

CommitVerdict classify(std::span<const double> samples, std::span<const double> good,
                       std::span<const double> bad, Better better, double threshold, bool final) {
  CommitVerdict verdict;
  verdict.samples = static_cast<int>(samples.size());
  verdict.good_samples = static_cast<int>(good.size());
  verdict.bad_samples = static_cast<int>(bad.size());
  if (samples.empty() || good.empty() || bad.empty()) return verdict;
  EndpointModel model = fit_endpoints(good, bad, better);
  for (double v : samples) verdict.llr += model.log_likelihood_ratio(badness(v, better));
  auto worse = better == Better::kHigher ? Alternative::kLess : Alternative::kGreater;
  auto better_side = better == Better::kHigher ? Alternative::kGreater : Alternative::kLess;
  verdict.p_vs_good = mann_whitney_u(samples, good, worse).p_value;
  verdict.p_vs_bad = mann_whitney_u(samples, bad, better_side).p_value;
  double change = relative_change(good, samples);
  verdict.effect = better == Better::kHigher ? -change : change;
  verdict.shift = hodges_lehmann(good, samples);
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
                              const MetricSpec& metric, const BisectSpec& spec, bool final) {
  EndpointCheck check;
  auto worse = metric.better == Better::kHigher ? Alternative::kLess : Alternative::kGreater;
  check.p_value = mann_whitney_u(bad, good, worse).p_value;
  double change = relative_change(good, bad);
  check.effect = metric.better == Better::kHigher ? -change : change;
  // The floor is applied to what the samples allow: a change counts unless it is confidently
  // smaller than min_effect (the upper end of its 1 - alpha interval is below the floor).
  auto g = badness_of(good, metric.better), b = badness_of(bad, metric.better);
  Shift shift = hodges_lehmann(g, b, 1 - spec.alpha);
  bool significant = check.p_value <= spec.alpha;
  bool may_be_large = std::expm1(shift.high) >= spec.min_effect;
  bool enough = good.size() >= 5 && bad.size() >= 5;
  if (significant && may_be_large) {
    check.kind = VerdictKind::kBad;
    return check;
  }
  // Settled without more samples: confidently below the floor, or the cap is reached.
  if (!final && (may_be_large || !enough)) return check;
  check.kind = VerdictKind::kGood;
  check.message = fmt::format(
      "good and bad do not differ: {} median {:.6g} at good (IQR {:.3g}, {} samples), "
      "{:.6g} at bad (IQR {:.3g}, {} samples), change {:+.2f}% in the {} direction "
      "(floor {:.2f}%), one-sided Mann-Whitney p = {:.3g} (alpha {}); check that the good "
      "and bad commits are right and that the metric and its direction ({} is better) "
      "match the regression",
      metric.name, median(good), iqr(good), good.size(), median(bad), iqr(bad), bad.size(),
      100 * check.effect, "worse", 100 * spec.min_effect, check.p_value, spec.alpha,
      metric.better == Better::kHigher ? "higher" : "lower");
  return check;
}

}  // namespace kbisect
