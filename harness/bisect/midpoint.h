// git bisect's choice of the next commit to test, reproduced exactly (git's bisect.c:
// find_bisection, managed_skipped, skip_away) so a kbisect session and `git bisect` walk the
// same commits: weight = candidates a commit reaches (itself included), pick the one that
// maximises min(weight, N - weight), stop early near the exact half; skipped commits are
// avoided with git's own pseudo-random nearby pick.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "bisect/commit_graph.h"

namespace kbisect {

struct Midpoint {
  enum class Kind {
    kTest,         // commit: the next commit to test
    kFound,        // commit: the first bad commit (nodes[0], the current bad)
    kOnlySkipped,  // only skipped commits are left: the culprit is one of `candidates`
    kNoTestable,   // no candidate touches the limiting paths
  };
  Kind kind = Kind::kNoTestable;
  int commit = -1;              // index into CommitGraph::nodes
  std::vector<int> candidates;  // kOnlySkipped: as git lists them (skipped ones, then bad)
};

// `skipped` holds ids of every commit marked skip in the session, also those no longer among
// the candidates: like git, any skip at all switches to the sorted, skip-avoiding choice.
Midpoint choose_midpoint(const CommitGraph& graph, const std::set<std::string>& skipped);

// Everything `start` reaches inside the graph (its ancestors among the nodes), itself included.
std::vector<bool> reachable(const CommitGraph& graph, int start);

// The candidates of `bad ^goods...` inside `graph`, in the same order; `original` maps the new
// indexes to the old ones. bad becomes nodes[0].
struct Subgraph {
  CommitGraph graph;
  std::vector<int> original;
};
Subgraph restrict_candidates(const CommitGraph& graph, int bad, const std::vector<int>& goods);

}  // namespace kbisect
