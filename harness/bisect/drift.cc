#include "bisect/drift.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>

#include "bisect/statistics.h"

namespace kbisect {
namespace {

struct Point {
  double value = 0;
  double sequence = 0;
  bool good = false;
};

struct Fit {
  std::vector<double> coefficients;  // good's intercept, bad's, then each bend's slope
  double residual = 0;               // sum of squares
};

// The model's terms at one point: the two intercepts, then the bends (drift.h).
std::vector<double> terms(const Point& point, std::span<const double> bends) {
  std::vector<double> row{point.good ? 1.0 : 0.0, point.good ? 0.0 : 1.0};
  for (double from : bends) row.push_back(std::max(0.0, point.sequence - from));
  return row;
}

// Gaussian elimination with partial pivoting: the system is at most 6 by 6. (Boost's uBLAS,
// which would do it, does not compile as C++20 with Debian 12's Boost.)
std::optional<std::vector<double>> solve(std::vector<std::vector<double>> a,
                                         std::vector<double> b) {
  const size_t n = b.size();
  double scale = 0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(a[i][i]));
  for (size_t column = 0; column < n; ++column) {
    size_t pivot = column;
    for (size_t row = column + 1; row < n; ++row) {
      if (std::fabs(a[row][column]) > std::fabs(a[pivot][column])) pivot = row;
    }
    if (std::fabs(a[pivot][column]) <= 1e-12 * scale) return std::nullopt;
    std::swap(a[pivot], a[column]), std::swap(b[pivot], b[column]);
    for (size_t row = column + 1; row < n; ++row) {
      const double factor = a[row][column] / a[column][column];
      for (size_t k = column; k < n; ++k) a[row][k] -= factor * a[column][k];
      b[row] -= factor * b[column];
    }
  }
  std::vector<double> x(n);
  for (size_t row = n; row-- > 0;) {
    double sum = b[row];
    for (size_t k = row + 1; k < n; ++k) sum -= a[row][k] * x[k];
    x[row] = sum / a[row][row];
  }
  return x;
}

std::optional<Fit> least_squares(std::span<const Point> points, std::span<const double> bends) {
  const size_t width = 2 + bends.size();
  std::vector<std::vector<double>> rows;
  std::vector<std::vector<double>> normal(width, std::vector<double>(width));
  std::vector<double> moment(width);
  for (const Point& point : points) {
    const std::vector<double>& row = rows.emplace_back(terms(point, bends));
    for (size_t i = 0; i < width; ++i) {
      moment[i] += row[i] * point.value;
      for (size_t j = 0; j < width; ++j) normal[i][j] += row[i] * row[j];
    }
  }
  std::optional<std::vector<double>> solution = solve(std::move(normal), std::move(moment));
  if (!solution) return std::nullopt;  // an endpoint's samples all at one sequence number
  Fit fit{std::move(*solution)};
  for (size_t p = 0; p < points.size(); ++p) {
    double fitted = 0;
    for (size_t i = 0; i < width; ++i) fitted += rows[p][i] * fit.coefficients[i];
    fit.residual += (points[p].value - fitted) * (points[p].value - fitted);
  }
  return fit;
}

// The line's start, then `inner` bends evenly spaced over the endpoints' sequence numbers; none
// when a stretch between them would hold too few samples to show its slope.
std::optional<std::vector<double>> bends_at(std::span<const Point> points, int inner) {
  std::vector<double> bends{0};
  if (inner == 0) return bends;
  const auto [first, last] = std::ranges::minmax(points, {}, &Point::sequence);
  const double step = (last.sequence - first.sequence) / (inner + 1);
  for (int i = 1; i <= inner; ++i) bends.push_back(first.sequence + i * step);
  for (size_t i = 0; i < bends.size(); ++i) {
    const double end = i + 1 < bends.size() ? bends[i + 1] : std::numeric_limits<double>::max();
    const auto in_stretch = std::ranges::count_if(points, [&](const Point& point) {
      return point.sequence >= bends[i] && point.sequence < end;
    });
    if (in_stretch < kSamplesPerStretch) return std::nullopt;
  }
  return bends;
}

// About the values' own mean: what no drift at all leaves of one endpoint.
double squares_about_mean(std::span<const double> values) {
  const double center = mean(values);
  double squares = 0;
  for (double value : values) squares += (value - center) * (value - center);
  return squares;
}

}  // namespace

double Drift::at(double sequence) const {
  double offset = 0;
  for (const Bend& bend : bends) offset += bend.slope * std::max(0.0, sequence - bend.from);
  return offset;
}

std::vector<double> Drift::taken_out(std::span<const double> values, std::span<const int> sequence,
                                     double reference) const {
  std::vector<double> result(values.begin(), values.end());
  for (size_t i = 0; i < result.size(); ++i) result[i] -= at(sequence[i]) - at(reference);
  return result;
}

std::string describe(const Drift& drift) {
  auto percent = [&](double sequence) {
    return fmt::format("{:+.2g}%", 1e2 * drift.at(sequence) / drift.good_at_start);
  };
  if (drift.straight()) {
    return fmt::format("{} of good at the start per 100 samples (p = {:.2g})", percent(100),
                       drift.p_value);
  }
  const double last = drift.last_sequence;
  double furthest = last;  // a host that slowed down and came back: where it went furthest
  for (const Bend& bend : drift.bends) {
    const bool further = std::fabs(drift.at(bend.from)) > std::fabs(drift.at(furthest));
    if (bend.from < last && further) furthest = bend.from;
  }
  // Said once the host came back a quarter of the way or more, not for a fit's wobble.
  const bool came_back =
      std::fabs(drift.at(furthest) - drift.at(last)) > std::fabs(drift.at(furthest)) / 4;
  const std::string moved = came_back ? fmt::format("{} of good at the start at sample {:.0f}, {}",
                                                    percent(furthest), furthest, percent(last))
                                      : fmt::format("{} of good at the start", percent(last));
  return fmt::format("{} by sample {:.0f}, not at an even pace (p = {:.2g})", moved, last,
                     drift.p_value);
}

Drift endpoint_drift(std::span<const double> good, std::span<const int> good_sequence,
                     std::span<const double> bad, std::span<const int> bad_sequence) {
  if (good.size() != good_sequence.size() || bad.size() != bad_sequence.size() || good.size() < 2 ||
      bad.size() < 2) {
    return {};
  }
  std::vector<Point> points;
  for (size_t i = 0; i < good.size(); ++i)
    points.push_back({good[i], 1.0 * good_sequence[i], true});
  for (size_t i = 0; i < bad.size(); ++i) points.push_back({bad[i], 1.0 * bad_sequence[i], false});
  const double n = static_cast<double>(points.size());
  // Round-off leaves a residual of about 1e-28 where a fit is exact, so "nothing varies" and
  // "an exact fit" are measured against the data's own scale.
  const double unexplained = squares_about_mean(good) + squares_about_mean(bad);
  double squares = 0;
  for (const Point& point : points) squares += point.value * point.value;
  if (unexplained <= 1e-24 * squares) return {};
  const double exact = 1e-14 * unexplained;
  // The Bayesian information criterion: each bend must pay for itself, log(n) a term.
  std::vector<double> best_bends;
  std::optional<Fit> best;
  double best_criterion = std::numeric_limits<double>::infinity();
  int models = 0;
  for (int inner = 0; inner <= 3; ++inner) {
    const std::optional<std::vector<double>> bends = bends_at(points, inner);
    if (!bends) continue;
    std::optional<Fit> fit = least_squares(points, *bends);
    if (!fit) continue;
    ++models;
    fit->residual = std::max(fit->residual, exact);
    const double criterion =
        n * std::log(fit->residual / n) + static_cast<double>(2 + bends->size()) * std::log(n);
    if (criterion < best_criterion) best_criterion = criterion, best = fit, best_bends = *bends;
  }
  if (!best) return {};
  Drift drift;
  for (size_t i = 0; i < best_bends.size(); ++i) {
    drift.bends.push_back({best_bends[i], best->coefficients[2 + i]});
  }
  drift.good_at_start = best->coefficients[0];
  drift.last_sequence = static_cast<int>(std::ranges::max(points, {}, &Point::sequence).sequence);
  if (best->residual <= exact) {  // an exact line through values that vary: clear
    drift.p_value = 0;
    return drift;
  }
  // Degrees of freedom left: the samples less the two intercepts and the slopes. The p of the
  // model the criterion chose is multiplied by the number it chose among (Bonferroni): each
  // one's own p is exact, as its bends depend on the sequence numbers alone.
  const double slopes = static_cast<double>(best_bends.size());
  const double left = n - 2 - slopes;
  const double f = std::max(0.0, unexplained - best->residual) / slopes / (best->residual / left);
  drift.p_value =
      std::min(1.0, models * boost::math::cdf(boost::math::complement(
                                 boost::math::fisher_f_distribution<double>(slopes, left), f)));
  return drift;
}

PairWithoutDrift without_clear_drift(std::span<const double> a, std::span<const int> a_sequence,
                                     std::span<const double> b, std::span<const int> b_sequence) {
  const Drift drift = endpoint_drift(a, a_sequence, b, b_sequence);
  if (drift.p_value > kClearDrift) return {{a.begin(), a.end()}, {b.begin(), b.end()}};
  const int first = std::min(std::ranges::min(a_sequence), std::ranges::min(b_sequence));
  return {drift.taken_out(a, a_sequence, first), drift.taken_out(b, b_sequence, first), true};
}

}  // namespace kbisect
