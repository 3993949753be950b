#include "bisect/statistics.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <map>
#include <numeric>

#include "common/error.h"

namespace kbisect {
namespace {

// The exact U distributions cost about (n_x n_y)^2 and, past this many pairs, are no better
// than the normal approximation. A bound on the pairs, not on each side: 3 samples against 60
// is exact, where the approximation gave p 75 times too large.
constexpr size_t kExactUMaxPairs = 2500;
// The exact KS walk costs n_x n_y steps. Past this many the limiting law is close enough for
// balanced samples; it is far off for very unbalanced ones (2 against 5001 gave 0.037 for an
// exact 1.6e-7), which now stay exact.
constexpr long kExactKsMaxPairs = 1000000;

void require_samples(std::span<const double> x, std::span<const double> y, const char* test) {
  if (x.empty() || y.empty()) fail("internal error: {} needs samples on both sides", test);
  // The store refuses them; NaN would break the sorts' ordering and the KS walk's loops.
  auto finite = [](double value) { return std::isfinite(value); };
  if (!std::ranges::all_of(x, finite) || !std::ranges::all_of(y, finite)) {
    fail("internal error: {} got a sample that is not a finite number", test);
  }
}

double normal_sf(double z) {
  return boost::math::cdf(boost::math::complement(boost::math::normal(), z));
}

// Midranks of the pooled sample, and the tie term sum(t^3 - t).
struct Ranks {
  std::vector<double> rank;
  double tie_term = 0;
};

Ranks pooled_ranks(std::span<const double> x, std::span<const double> y) {
  const size_t n = x.size() + y.size();
  std::vector<std::pair<double, size_t>> pooled;
  pooled.reserve(n);
  for (size_t i = 0; i < x.size(); ++i) pooled.emplace_back(x[i], i);
  for (size_t j = 0; j < y.size(); ++j) pooled.emplace_back(y[j], x.size() + j);
  std::sort(pooled.begin(), pooled.end());
  Ranks ranks;
  ranks.rank.resize(n);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && pooled[j + 1].first == pooled[i].first) ++j;
    double midrank = (static_cast<double>(i + j) / 2) + 1;
    for (size_t k = i; k <= j; ++k) ranks.rank[pooled[k].second] = midrank;
    double t = static_cast<double>(j - i + 1);
    ranks.tie_term += t * t * t - t;
    i = j + 1;
  }
  return ranks;
}

// Counts of rank configurations of m x's among m + n values by U, built with the recurrence
// N(u; m, n) = N(u - n; m - 1, n) + N(u; m, n - 1); returned as tail probabilities
// P(U >= u). U has one distribution for (m, n) and (n, m), and n sizes the table, so n is the
// smaller. Cached: sequential tests ask for the same sizes again and again.
const std::vector<double>& exact_u_tail(int m, int n) {
  if (n > m) std::swap(m, n);
  thread_local std::map<std::pair<int, int>, std::vector<double>> cache;
  auto found = cache.find({m, n});
  if (found != cache.end()) return found->second;
  // counts[j][v]: arrangements of i x's among i + j with U = v, rolled over i.
  std::vector<std::vector<double>> counts(n + 1, std::vector<double>(m * n + 1, 0.0));
  for (int j = 0; j <= n; ++j) counts[j][0] = 1;  // i = 0
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(m * n + 1, 0.0));
    next[0][0] = 1;
    for (int j = 1; j <= n; ++j) {
      for (int v = 0; v <= i * j; ++v) {
        double with_x_last = v - j >= 0 ? counts[j][v - j] : 0.0;  // largest is an x
        double with_y_last = next[j - 1][v];                       // largest is a y
        next[j][v] = with_x_last + with_y_last;
      }
    }
    counts = std::move(next);
  }
  std::vector<double> tail(m * n + 2, 0.0);
  double total = 0;
  for (int v = 0; v <= m * n; ++v) total += counts[n][v];
  for (int v = m * n; v >= 0; --v) tail[v] = tail[v + 1] + counts[n][v] / total;
  return cache.emplace(std::make_pair(m, n), std::move(tail)).first->second;
}

double exact_u_sf(int u, int m, int n) {
  const auto& tail = exact_u_tail(m, n);
  return tail[std::clamp(u, 0, m * n + 1)];
}

struct Tails {
  double at_least = 0;
  double at_most = 0;
};

// The tails at `u` of the U of a sample of m of the pooled values, P(U >= u) and P(U <= u),
// under the null hypothesis given the ties: every choice of m of the pooled values as that
// sample is equally likely. Ties make that distribution asymmetric, so each tail is counted.
// Counts the m-subsets by their sum of doubled midranks (whole numbers), one tie group at a
// time: c of a group's t values add c times its rank, in C(t, c) ways. The work grows with m's
// square, so the caller passes the smaller sample.
Tails exact_tied_u_tails(const Ranks& ranks, int m, double u) {
  std::map<long, int> group_sizes;  // doubled midrank -> values holding it
  for (double rank : ranks.rank) ++group_sizes[std::lround(2 * rank)];
  long max_sum = 0;  // of the m largest
  int counted = 0;
  for (auto group = group_sizes.rbegin(); group != group_sizes.rend() && counted < m; ++group) {
    const int taken = std::min(group->second, m - counted);
    max_sum += group->first * taken;
    counted += taken;
  }
  // ways[k][s]: subsets of k of the values seen so far whose doubled ranks sum to s.
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1;
  for (const auto& [doubled, size] : group_sizes) {
    for (int k = m; k >= 1; --k) {
      double choose = 1;  // C(size, taken)
      for (int taken = 1; taken <= std::min(k, size); ++taken) {
        choose = choose * (size - taken + 1) / taken;
        const long added = doubled * taken;
        for (long s = added; s <= max_sum; ++s) ways[k][s] += ways[k - taken][s - added] * choose;
      }
    }
  }
  // U = R - m (m + 1) / 2, so the doubled rank sum is 2 U + m (m + 1).
  const long observed = std::lround(2 * u) + static_cast<long>(m) * (m + 1);
  Tails tails;
  double total = 0;
  for (long s = 0; s <= max_sum; ++s) {
    total += ways[m][s];
    if (s >= observed) tails.at_least += ways[m][s];
    if (s <= observed) tails.at_most += ways[m][s];
  }
  tails.at_least /= total;
  tails.at_most /= total;
  return tails;
}

// Kernel weight of a difference `z` kernel widths away; 0 beyond 4 widths (below 4e-4).
double gauss(double z) {
  return std::fabs(z) < 4 ? std::exp(-0.5 * z * z) : 0.0;
}

// From `start` up to the top of the peak of the smoothed differences: the point where the
// kernel-weighted mean of the differences is the point itself (the fixed point of mean shift).
// Mean shift alone converges linearly and slowly on wide peaks; where the smoothed density is
// concave a Newton step (from the same sums) takes it there in a few iterations.
double climb(const std::vector<double>& differences, double start, double width) {
  double shift = start;
  for (int iteration = 0; iteration < 1000; ++iteration) {
    auto first = std::lower_bound(differences.begin(), differences.end(), shift - 4 * width);
    auto last = std::upper_bound(first, differences.end(), shift + 4 * width);
    double weight_sum = 0, first_moment = 0, second_moment = 0;
    for (auto it = first; it != last; ++it) {
      double offset = *it - shift;
      double w = gauss(offset / width);
      weight_sum += w;
      first_moment += w * offset;
      second_moment += w * offset * offset;
    }
    if (weight_sum <= 0) break;
    double step = first_moment / weight_sum;  // mean shift
    // density'' < 0 <=> weight_sum > second_moment / width^2; Newton: -density' / density''.
    double curvature = weight_sum - second_moment / (width * width);
    if (curvature > 0.02 * weight_sum) step = first_moment / curvature;
    shift += step;
    if (std::fabs(step) < 1e-13 * width) break;
  }
  return shift;
}

// The peaks of the sorted pairwise differences smoothed with `width`: the candidate shifts.
// Binned at width / 8 to find them, then climbed exactly; peaks below 5% of the highest are
// pairings of rare modes and are left out. The bins are coarser where width / 8 would take
// more than kMaxBins: samples that mostly repeat one value (fio's bucketed percentiles) have
// a width near 0, and asked for billions of them.
std::vector<double> overlap_peaks(const std::vector<double>& differences, double width) {
  constexpr long kMaxBins = 1 << 16;
  const double low = differences.front();
  const double range = differences.back() - low;
  const double bin = std::max(width / 8, range / kMaxBins);
  const double bins_per_width = bin == width / 8 ? 8 : width / bin;
  const long bins = static_cast<long>(range / bin) + 1;
  std::vector<double> counts(bins, 0);
  for (double d : differences) counts[std::min(bins - 1, static_cast<long>((d - low) / bin))]++;
  const long radius = std::max(1L, std::lround(4 * bins_per_width));  // 4 widths
  std::vector<double> smoothed(bins, 0);
  for (long i = 0; i < bins; ++i) {
    for (long j = std::max(0L, i - radius); j <= std::min(bins - 1, i + radius); ++j) {
      smoothed[i] += counts[j] * gauss(static_cast<double>(j - i) / bins_per_width);
    }
  }
  const double top = *std::max_element(smoothed.begin(), smoothed.end());
  std::vector<double> peaks;
  for (long i = 0; i < bins; ++i) {
    bool rises = i == 0 || smoothed[i] > smoothed[i - 1];
    bool falls = i == bins - 1 || smoothed[i] >= smoothed[i + 1];
    if (!rises || !falls || smoothed[i] < 0.05 * top) continue;
    double start = low + (static_cast<double>(i) + 0.5) * bin;
    if (bins_per_width < 8) {
      // A bin wider than the kernel: its centre may be out of reach of every difference in it,
      // so the climb starts from the middle one of them.
      auto first = std::lower_bound(differences.begin(), differences.end(),
                                    low + static_cast<double>(i) * bin);
      auto last = std::lower_bound(first, differences.end(), start + bin / 2);
      if (first != last) start = *(first + (last - first) / 2);
    }
    double peak = climb(differences, start, width);
    bool known = std::any_of(peaks.begin(), peaks.end(),
                             [&](double p) { return std::fabs(p - peak) < bin; });
    if (!known) peaks.push_back(peak);
  }
  return peaks;
}

// How well each sample is explained by the other sample's kernel density once y is moved
// back by `shift`: sum of log densities (kernels of peak 1, floor 1e-3 for points no kernel
// reaches, so one unexplained point costs a bounded amount).
double cross_log_likelihood(std::span<const double> x, std::span<const double> y, double shift,
                            double bandwidth) {
  std::vector<double> of_y(y.size(), 0), of_x(x.size(), 0);
  for (size_t j = 0; j < y.size(); ++j) {
    for (size_t i = 0; i < x.size(); ++i) {
      double w = gauss((y[j] - shift - x[i]) / bandwidth);
      of_y[j] += w;
      of_x[i] += w;
    }
  }
  constexpr double kFloor = 1e-3;
  double sum = 0;
  for (double v : of_y) sum += std::log(kFloor + v / static_cast<double>(x.size()));
  for (double v : of_x) sum += std::log(kFloor + v / static_cast<double>(y.size()));
  return sum;
}

}  // namespace

TestResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                          Alternative alternative) {
  require_samples(x, y, "Mann-Whitney U");
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  Ranks ranks = pooled_ranks(x, y);
  double rank_sum = 0;
  for (size_t i = 0; i < x.size(); ++i) rank_sum += ranks.rank[i];
  const double u1 = rank_sum - n1 * (n1 + 1) / 2;
  const double u2 = n1 * n2 - u1;
  double u = std::max(u1, u2);
  double factor = 2;
  if (alternative == Alternative::kGreater) u = u1, factor = 1;
  if (alternative == Alternative::kLess) u = u2, factor = 1;

  TestResult result;
  result.statistic = u1;
  result.exact = x.size() * y.size() <= kExactUMaxPairs;
  if (result.exact && ranks.tie_term == 0) {
    result.p_value = exact_u_sf(static_cast<int>(std::lround(u)), static_cast<int>(x.size()),
                                static_cast<int>(y.size()));
  } else if (result.exact) {
    // Not the normal approximation: with ties in small samples it comes out below the exact
    // p, by up to 3.5x at 12 a side, and called quantized endpoints different. P(U1 >= u1) is
    // P(U2 <= u2), so the smaller sample's tails do.
    Tails tails = x.size() <= y.size() ? exact_tied_u_tails(ranks, static_cast<int>(x.size()), u1)
                                       : exact_tied_u_tails(ranks, static_cast<int>(y.size()), u2);
    if (x.size() > y.size()) std::swap(tails.at_least, tails.at_most);
    result.p_value = alternative == Alternative::kGreater ? tails.at_least
                     : alternative == Alternative::kLess  ? tails.at_most
                                                          : std::min(tails.at_least, tails.at_most);
  } else {
    const double n = n1 + n2;
    double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - ranks.tie_term / (n * (n - 1))));
    double z = sigma > 0 ? (u - n1 * n2 / 2 - 0.5) / sigma : 0;
    result.p_value = sigma > 0 ? normal_sf(z) : 1;  // all equal: every ordering is as extreme
  }
  result.p_value = std::clamp(result.p_value * factor, 0.0, 1.0);
  return result;
}

double mann_whitney_smallest_p(size_t n_x, size_t n_y) {
  if (n_x == 0 || n_y == 0) return 1;
  std::vector<double> x(n_x), y(n_y);
  std::iota(x.begin(), x.end(), 0.0);
  std::iota(y.begin(), y.end(), static_cast<double>(n_x));
  return mann_whitney_u(x, y).p_value;
}

namespace {

// Location scores -f'(z)/f(z) of every pooled sample under the leave-one-out kernel density
// of the others, clipped where a sample has no neighbours to speak of.
std::vector<double> location_scores(std::span<const double> pooled, double width) {
  std::vector<double> scores(pooled.size());
  const double clip = 3 / width;
  for (size_t k = 0; k < pooled.size(); ++k) {
    double density = 0, slope = 0;
    for (size_t i = 0; i < pooled.size(); ++i) {
      if (i == k) continue;
      double u = (pooled[k] - pooled[i]) / width;
      if (std::fabs(u) > 8) continue;
      double weight = std::exp(-0.5 * u * u);
      density += weight;
      slope += u / width * weight;
    }
    scores[k] = density > 1e-12 ? std::clamp(slope / density, -clip, clip) : 0;
  }
  return scores;
}

}  // namespace

TestResult kernel_shift_test(std::span<const double> x, std::span<const double> y, double width,
                             Draws draws) {
  require_samples(x, y, "the kernel shift test");
  if (!(width > 0)) fail("internal error: the kernel shift test needs a positive width");
  std::vector<double> pooled(x.begin(), x.end());
  pooled.insert(pooled.end(), y.begin(), y.end());
  std::vector<double> scores = location_scores(pooled, width);
  auto y_sum = [&] {
    double sum = 0;
    for (size_t k = x.size(); k < scores.size(); ++k) sum += scores[k];
    return sum;
  };
  return permutation_test(scores, y_sum, draws, 1e-12);
}

double kolmogorov_sf(double lambda) {
  if (lambda <= 0) return 1;
  if (lambda < 0.2) {
    // The alternating series converges badly here; use the theta-function form of the CDF.
    double cdf = 0;
    const double c = std::sqrt(2 * M_PI) / lambda;
    for (int k = 1; k <= 20; ++k) {
      double t = (2 * k - 1) * M_PI / (2 * lambda);
      cdf += std::exp(-t * t / 2);
    }
    return 1 - c * cdf;
  }
  double sum = 0;
  for (int k = 1; k <= 100; ++k) {
    double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-16) break;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

TestResult kolmogorov_smirnov(std::span<const double> x, std::span<const double> y) {
  require_samples(x, y, "Kolmogorov-Smirnov");
  std::vector<double> a(x.begin(), x.end()), b(y.begin(), y.end());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const long m = static_cast<long>(a.size()), n = static_cast<long>(b.size());
  // D * m * n as an integer, so the lattice walk below compares exactly.
  long scaled = 0;
  for (size_t i = 0, j = 0; i < a.size() || j < b.size();) {
    double v = (j == b.size() || (i < a.size() && a[i] <= b[j])) ? a[i] : b[j];
    while (i < a.size() && a[i] == v) ++i;
    while (j < b.size() && b[j] == v) ++j;
    scaled = std::max(scaled, std::labs(static_cast<long>(i) * n - static_cast<long>(j) * m));
  }
  TestResult result;
  result.statistic = static_cast<double>(scaled) / static_cast<double>(m * n);
  if (m * n <= kExactKsMaxPairs) {
    // Every lattice path from (0,0) to (m,n) is equally likely, so from (i,j) the next step
    // is along i with probability (m - i) / (m - i + n - j). p is the probability of touching
    // |i n - j m| >= D m n, summed over the first touches: positive terms only, so a small p
    // keeps its precision (one minus the probability of staying inside was 0 below 1e-15).
    auto step = [&](long left, long i, long j) {  // `left` of the m - i + n - j steps
      return static_cast<long double>(left) / static_cast<long double>(m - i + n - j);
    };
    std::vector<long double> inside(n + 1, 0.0L);  // row i: P(reach (i, j) without a touch)
    long double touched = 0;
    for (long i = 0; i <= m; ++i) {
      for (long j = 0; j <= n; ++j) {
        long double reach = i == 0 && j == 0 ? 1.0L : 0.0L;
        if (i > 0) reach += inside[j] * step(m - i + 1, i - 1, j);
        if (j > 0) reach += inside[j - 1] * step(n - j + 1, i, j - 1);
        const bool touches = std::labs(i * n - j * m) >= scaled;
        if (touches) touched += reach;
        inside[j] = touches ? 0.0L : reach;
      }
    }
    result.exact = true;
    result.p_value = std::clamp(static_cast<double>(touched), 0.0, 1.0);
  } else {
    double en = std::sqrt(static_cast<double>(m * n) / static_cast<double>(m + n));
    result.p_value = kolmogorov_sf(en * result.statistic);
  }
  return result;
}

double quantile(std::span<const double> values, double q) {
  if (values.empty()) fail("internal error: quantile of no values");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(below);
  if (fraction == 0) return sorted[below];  // not 0 * (inf - x), which is NaN
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double median(std::span<const double> values) {
  return quantile(values, 0.5);
}

double mean(std::span<const double> values) {
  if (values.empty()) fail("internal error: mean of no values");
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double stddev(std::span<const double> values) {
  if (values.size() < 2) return 0;
  double m = mean(values), sum = 0;
  for (double v : values) sum += (v - m) * (v - m);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

double mad(std::span<const double> values) {
  double center = median(values);
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::fabs(v - center));
  return median(deviations);
}

double iqr(std::span<const double> values) {
  return quantile(values, 0.75) - quantile(values, 0.25);
}

Shift hodges_lehmann(std::span<const double> x, std::span<const double> y, double confidence) {
  require_samples(x, y, "Hodges-Lehmann");
  std::vector<double> differences;
  differences.reserve(x.size() * y.size());
  for (double b : y) {
    for (double a : x) differences.push_back(b - a);
  }
  std::sort(differences.begin(), differences.end());
  Shift shift;
  shift.estimate = median(differences);
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  double z = boost::math::quantile(boost::math::normal(), 0.5 + confidence / 2);
  double c = std::floor(n1 * n2 / 2 - z * std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12));
  long k = std::max(0L, static_cast<long>(c));  // the (k+1)-th smallest, 0-based index k
  long last = static_cast<long>(differences.size()) - 1;
  shift.low = differences[std::min(k, last)];
  shift.high = differences[std::max(0L, last - k)];
  return shift;
}

double kernel_shift(std::span<const double> x, std::span<const double> y, double bandwidth) {
  require_samples(x, y, "kernel shift");
  if (!(bandwidth > 0)) fail("internal error: kernel shift needs a positive bandwidth");
  std::vector<double> differences;
  differences.reserve(x.size() * y.size());
  for (double b : y) {
    for (double a : x) differences.push_back(b - a);
  }
  std::sort(differences.begin(), differences.end());
  double best_shift = differences.front(), best = -HUGE_VAL;
  for (double shift : overlap_peaks(differences, std::sqrt(2.0) * bandwidth)) {
    double fit = cross_log_likelihood(x, y, shift, bandwidth);
    if (fit > best) best = fit, best_shift = shift;
  }
  return best_shift;
}

double relative_change(std::span<const double> before, std::span<const double> after) {
  double base = median(before);
  if (base == 0) {
    fail(
        "the metric's median at good is 0, so its relative change is undefined; choose a metric "
        "that good reports above 0 (write.iops of a job that only reads is 0)");
  }
  return (median(after) - base) / base;
}

double relative_change_or_nan(std::span<const double> before, std::span<const double> after) {
  return median(before) == 0 ? std::nan("") : relative_change(before, after);
}

}  // namespace kbisect
