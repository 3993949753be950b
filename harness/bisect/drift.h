// Host drift: a metric that moves with time rather than with the commit (the host's page cache
// and thermal state, other tenants). The endpoints are measured interleaved from a session's
// start to its end, so their samples, each side about its own mean, show how the metric moves
// with the order in which the session takes samples. A commit measured late in a drifting
// session would otherwise be compared with endpoint samples mostly taken early.
#pragma once

#include <span>

namespace kbisect {

struct Drift {
  double per_sample = 0;     // metric units per sample the session takes
  double p_value = 1;        // two-sided, of no drift (Student's t of the slope)
  double good_at_start = 0;  // the good endpoint's fitted value at sequence number 0
};

// Drift is clear at p <= kClearDrift. The slope is fitted anew at every step of a search,
// early on from a few samples, so a level that one fit would call clear turns up by chance
// when asked that often (in the benchmark without drift, |t| >= 3 cost a 2x cell 1.5 points
// and |t| >= 5 still moved the CV 1% cells; at p <= 1e-6 none of the grid's cells changes).
constexpr double kClearDrift = 1e-6;

// The least-squares slope of both endpoints' values against their sequence numbers (the
// session's count of samples taken before each), with an intercept per endpoint. Fewer than
// two samples of an endpoint, or a sequence number missing: no drift, p = 1.
Drift endpoint_drift(std::span<const double> good, std::span<const int> good_sequence,
                     std::span<const double> bad, std::span<const int> bad_sequence);

}  // namespace kbisect
