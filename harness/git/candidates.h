// The candidate commits of a bisection, `bad ^good1 ^good2...`, as the CommitGraph the search
// works on: git's default rev-list order, parents restricted to the set, optional path
// limiting as `git rev-list bad ^good -- paths` does it, and the merge bases that git bisect
// would make the user test first when a good commit is not an ancestor of bad.
#pragma once

#include <string>
#include <vector>

#include "bisect/commit_graph.h"
#include "git/repository.h"

namespace kbisect {

struct CandidateQuery {
  std::string bad;                 // any spec Repository::resolve accepts
  std::vector<std::string> goods;  // at least one
  // git pathspecs (`fs/ext4`, `block`); empty: no limiting. touches_paths follows git's
  // default history simplification, with one known difference: where committer dates go
  // backwards near a good commit, git may treat a merge's parent as a candidate before its walk
  // finds out it is not, and call that merge TREESAME where this code does not.
  std::vector<std::string> paths;
};

struct Candidates {
  std::string bad;                 // resolved 40-hex ids
  std::vector<std::string> goods;  // in the order of the query
  CommitGraph graph;
  // Merge bases of bad and the goods that are not known good yet: when a good commit is not an
  // ancestor of bad these must be measured first, one at a time (a good one becomes another
  // good ref; a bad one means the regression is older than the good ref). Empty when every good
  // is an ancestor of bad.
  std::vector<std::string> untested_merge_bases;
};

// Throws Error for unknown refs, for a good equal to bad, and (as git bisect does) when a merge
// base of bad and the goods is bad itself.
Candidates find_candidates(const Repository& repo, const CandidateQuery& query);

}  // namespace kbisect
