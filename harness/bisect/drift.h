// Host drift: a metric that moves with time rather than with the commit (the host's page cache
// and thermal state, other tenants). The endpoints are measured interleaved from a session's
// start to its end, so their samples, each side about its own mean, show how the metric moves
// with the order in which the session takes samples. A commit measured late in a drifting
// session would otherwise be compared with endpoint samples mostly taken early.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace kbisect {

// Where the slope of the host's offset changes: from `from` on, it changes by `slope`.
struct Bend {
  double from = 0;   // a sequence number
  double slope = 0;  // metric units per sample
};

// A line through 0 at sequence number 0 that bends where the endpoints show it does: a host
// that warms up and then holds, or that holds and then slows down.
struct Drift {
  std::vector<Bend> bends;   // the first from 0: the slope at the start
  double p_value = 1;        // of no drift (F test of all the slopes against none)
  double good_at_start = 0;  // the good endpoint's fitted value at sequence number 0
  int last_sequence = 0;     // the last endpoint sample's

  // The host's offset at a sequence number against sequence number 0, in metric units.
  double at(double sequence) const;
  // `values`, taken at `sequence`, as the host was at sequence number `reference`.
  std::vector<double> taken_out(std::span<const double> values, std::span<const int> sequence,
                                double reference = 0) const;
  bool straight() const { return bends.size() <= 1; }
};

// Drift is clear at p <= kClearDrift. The drift is fitted anew at every step of a search,
// early on from a few samples, so a level that one fit would call clear turns up by chance
// when asked that often (in the benchmark without drift, with the straight line's t test:
// |t| >= 3 cost a 2x cell 1.5 points and |t| >= 5 still moved the CV 1% cells; at p <= 1e-6
// none of the grid's cells changes, with the straight line or the bent one).
constexpr double kClearDrift = 1e-6;

// Least squares of both endpoints' values against their sequence numbers (the session's count
// of samples taken before each), with an intercept per endpoint: a straight line, or one that
// bends at 1-3 evenly spaced sequence numbers where every stretch between bends holds at least
// kSamplesPerStretch endpoint samples, whichever has the smallest Bayesian information
// criterion; its p is multiplied by the number of lines it was chosen among. Fewer than two
// samples of an endpoint, a sequence number missing, or values that do not vary: no drift,
// p = 1.
constexpr int kSamplesPerStretch = 8;
Drift endpoint_drift(std::span<const double> good, std::span<const int> good_sequence,
                     std::span<const double> bad, std::span<const int> bad_sequence);

// Two commits measured in alternation (the confirmation's), as the host was at the first of
// their samples: the drift they show taken out when it is clear, as they are otherwise. A host
// that warms up while they are measured would otherwise hide the difference between them.
struct PairWithoutDrift {
  std::vector<double> a, b;
  bool drift_taken_out = false;
};
PairWithoutDrift without_clear_drift(std::span<const double> a, std::span<const int> a_sequence,
                                     std::span<const double> b, std::span<const int> b_sequence);

// How far the host moved, against good at the start: "-8% of good at the start per 100 samples
// (p = 1e-09)", or for a bent line "-5% of good at the start by sample 130, not at an even pace
// (p = 3e-12)", and where it went further than that, "-10% of good at the start at sample 80,
// +0.2% by sample 159, ...".
std::string describe(const Drift& drift);

}  // namespace kbisect
