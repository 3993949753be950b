// Candidate graphs for the bisect tests: made in memory, ids are fake 40-hex strings.
#pragma once

#include <fmt/format.h>

#include "bisect/commit_graph.h"

namespace kbisect::testing {

inline std::string fake_id(int i) {
  return fmt::format("{:040x}", 0xabc000 + i);
}

// nodes[0] is bad, nodes[size - 1] the oldest candidate; the good endpoint is its parent.
inline CommitGraph linear_graph(int size) {
  CommitGraph graph;
  for (int i = 0; i < size; ++i) {
    CommitNode node;
    node.id = fake_id(i);
    node.subject = fmt::format("commit {}", i);
    if (i + 1 < size) node.parents = {i + 1};
    graph.nodes.push_back(node);
  }
  return graph;
}

// Two branches from node 10 (oldest, 11 nodes each side) merged at node 0.
inline CommitGraph merge_graph() {
  CommitGraph graph;
  graph.nodes.resize(21);
  for (int i = 0; i < 21; ++i) {
    graph.nodes[i].id = fake_id(i);
    graph.nodes[i].subject = fmt::format("commit {}", i);
  }
  // rev-list order by date: 0 merge; 1..19 alternate the two sides; 20 the fork point.
  graph.nodes[0].parents = {1, 2};
  for (int i = 1; i <= 18; ++i) graph.nodes[i].parents = {i + 2};
  graph.nodes[19].parents = {20};
  return graph;
}

inline std::string good_id() {
  return fake_id(999);
}

}  // namespace kbisect::testing
