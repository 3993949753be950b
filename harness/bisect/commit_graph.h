// The candidate commits of a bisection as a plain DAG, independent of libgit2: the search
// and the statistics talk to the repository only through this (built by git/candidates.h).
#pragma once

#include <string>
#include <vector>

namespace kbisect {

struct CommitNode {
  std::string id;            // 40-hex sha
  std::string subject;       // first line of the message
  std::vector<int> parents;  // indexes into CommitGraph::nodes; parents outside the set are omitted
  bool touches_paths = true;  // false when path limiting is on and the commit changes none of them
};

// Candidates in `bad ^good...`: nodes are in git's default rev-list order (newest first,
// as `git rev-list bad ^good...` prints them); nodes[0] is bad.
struct CommitGraph {
  std::vector<CommitNode> nodes;
};

}  // namespace kbisect
