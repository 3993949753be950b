// runner: sim -- FOR STATISTICAL TESTS ONLY. It measures nothing: it draws samples from the
// SimSpec model against the candidate graph, so the search and the statistics can be tested
// and benchmarked without kernels. Each change multiplies the metric of its commit and of
// everything that descends from it; noise is normal, lognormal or bimodal with the given CV;
// drift adds drift_per_sample of relative change per measurement the session has made.
// A commit outside the candidates (a merge base, a parent of a merge) descends from none of
// them, so no change reaches it: it measures as good.
// Deterministic: a sample depends only on the seed, the commit, its attempt number and the
// session's sequence number, so a resumed session draws exactly what an uninterrupted one did.
#pragma once

#include <map>
#include <string>

#include "bisect/commit_graph.h"
#include "bisect/session.h"
#include "config/scenario.h"

namespace kbisect {

class SimMeasurer : public Measurer {
 public:
  // `good` is the good endpoint's id (outside the graph; the model's base value).
  SimMeasurer(const CommitGraph& graph, std::string good, SimSpec spec);

  Measurement measure(const MeasureRequest& request) override;

  // The metric without noise, and "revert `commit` on top of `base`" for the session.
  double true_value(const std::string& commit) const;
  RevertPlan revert(const std::string& base, const std::string& commit) const;

 private:
  // A sha prefix, exact subject or the good id; errors start with `where`.
  int find(const std::string& reference, const std::string& where) const;
  // The node a measured commit is, or the good endpoint's index for a commit outside the
  // candidates.
  int node_of(const std::string& commit) const;

  const CommitGraph& graph_;
  std::string good_;
  SimSpec spec_;
  std::vector<double> factor_;           // per node: product of changes it descends from
  std::map<int, double> own_factor_;     // per node with a change: that change
  std::map<int, std::string> outcomes_;  // per node: build-failed | boot-failed
};

}  // namespace kbisect
