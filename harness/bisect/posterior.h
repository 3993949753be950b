// Where the culprit is, as probabilities: every candidate's chance of being the first bad
// commit given every sample taken so far. Under hypothesis "c is the culprit" the commits that
// reach c are bad and the others good, so the posterior of c is the prior times the product of
// the likelihood ratios of the samples of every commit that reaches c.
//
// The likelihood model (verdict.h's EndpointModel: a shift-aligned normal mixture) is fitted
// from the endpoints and then refitted from every commit whose side the posterior has settled:
// late in a search most samples sit near the culprit, and the endpoints alone would leave the
// model as uncertain as their own few samples.
#pragma once

#include <span>
#include <vector>

#include "bisect/commit_graph.h"
#include "bisect/verdict.h"
#include "config/scenario.h"

namespace kbisect {

struct PosteriorInput {
  const CommitGraph* graph = nullptr;
  std::span<const double> good;                  // the good endpoint's samples
  std::span<const std::vector<double>> samples;  // per node; node 0 is the bad endpoint
  std::vector<bool> counted_bad;                 // per node: a failure that counts as bad
  Better better = Better::kHigher;
  // Weigh a commit's samples by how well the model knows the centres it judges them against
  // (commit_weight, posterior.cc); for a model fitted from the endpoints alone.
  bool centres_uncertain = false;
};

struct CulpritPosterior {
  std::vector<double> culprit;  // per node: P(it is the culprit); 0 where it cannot be
  std::vector<double> bad;      // per node: P(it is bad), the mass of the culprits it reaches
  std::vector<double> llr;      // per node: log likelihood ratio of its own samples, bad vs good
  int most_likely = 0;          // the node with the largest culprit probability
  int pooled = 0;               // commits besides the endpoints that the model was fitted from
  EndpointModel model;
};

// Which candidates each node reaches: reach[i][c] (a node reaches itself).
std::vector<std::vector<bool>> reach_matrix(const CommitGraph& graph);

// `rounds` refits of the model from the commits settled to within `settled` (P(bad) below it
// or above 1 - it).
CulpritPosterior culprit_posterior(const PosteriorInput& input,
                                   const std::vector<std::vector<bool>>& reach, int rounds,
                                   double settled);

// The posterior under a model fitted from every measured commit on the side that `answer`
// being the culprit puts it, settled or not, and from the endpoint samples after the first
// `endpoint_samples_left_out` of each (the noise scale still comes from all of them). It
// tells whether an answer still holds once the samples that led to it stop vouching for the
// model themselves.
CulpritPosterior posterior_given(const PosteriorInput& input,
                                 const std::vector<std::vector<bool>>& reach, int answer,
                                 size_t endpoint_samples_left_out);

}  // namespace kbisect
