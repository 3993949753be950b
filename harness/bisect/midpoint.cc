#include "bisect/midpoint.h"

#include <algorithm>
#include <cstdlib>

namespace kbisect {
namespace {

constexpr int kUnknownSingle = -1;  // git: one parent, weight not yet known
constexpr int kUnknownMerge = -2;   // git: several parents, weight not yet known

bool counted(const CommitNode& node) {
  return node.touches_paths;
}

int count_distance(const CommitGraph& graph, int start) {
  auto seen = reachable(graph, start);
  int count = 0;
  for (size_t i = 0; i < seen.size(); ++i) count += seen[i] && counted(graph.nodes[i]);
  return count;
}

// git: 2 and 3 are halfway of 5, 3 of 6; for large sets within ~0.1%.
bool approx_halfway(const CommitNode& node, int weight, int total) {
  if (!counted(node)) return false;
  int diff = 2 * weight - total;
  return std::abs(diff) <= 1 || std::abs(diff) < total / 1024;
}

struct Weights {
  std::vector<int> weight;
  int early_pick = -1;  // set when a node at the half was found on the way (and allowed)
};

// git's do_find_bisection, on git's list order (the rev-list order reversed), including the
// order in which weights get known, because the first node found at the half wins.
Weights compute_weights(const CommitGraph& graph, int total, bool allow_early) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = n - 1 - i;
  Weights result;
  auto& weight = result.weight;
  weight.assign(n, 0);
  int known = 0;
  for (int node : order) {
    size_t parents = graph.nodes[node].parents.size();
    if (parents == 0) {
      if (counted(graph.nodes[node])) {
        weight[node] = 1;
        ++known;
      }
    } else {
      weight[node] = parents == 1 ? kUnknownSingle : kUnknownMerge;
    }
  }
  for (int node : order) {
    if (weight[node] != kUnknownMerge) continue;
    weight[node] = count_distance(graph, node);
    if (allow_early && approx_halfway(graph.nodes[node], weight[node], total)) {
      result.early_pick = node;
      return result;
    }
    ++known;
  }
  while (known < total) {
    bool progress = false;
    for (int node : order) {
      if (weight[node] >= 0) continue;
      int parent = graph.nodes[node].parents.front();
      if (weight[parent] < 0) continue;
      progress = true;
      if (counted(graph.nodes[node])) {
        weight[node] = weight[parent] + 1;
        ++known;
      } else {
        weight[node] = weight[parent];
      }
      if (allow_early && approx_halfway(graph.nodes[node], weight[node], total)) {
        result.early_pick = node;
        return result;
      }
    }
    if (!progress) break;
  }
  return result;
}

int distance(int weight, int total) {
  return std::min(weight, total - weight);
}

// git's best_bisection: the first maximum in list order.
int best_bisection(const CommitGraph& graph, const std::vector<int>& weight, int total) {
  const int n = static_cast<int>(graph.nodes.size());
  int best = n - 1;
  int best_distance = -1;
  for (int node = n - 1; node >= 0; --node) {
    if (!counted(graph.nodes[node])) continue;
    int d = distance(weight[node], total);
    if (d > best_distance) {
      best = node;
      best_distance = d;
    }
  }
  return best;
}

// git's best_bisection_sorted: by distance, descending, then by object id.
std::vector<int> sorted_by_distance(const CommitGraph& graph, const std::vector<int>& weight,
                                    int total) {
  std::vector<int> list;
  for (int node = 0; node < static_cast<int>(graph.nodes.size()); ++node) {
    if (counted(graph.nodes[node])) list.push_back(node);
  }
  std::sort(list.begin(), list.end(), [&](int a, int b) {
    int da = distance(weight[a], total), db = distance(weight[b], total);
    if (da != db) return da > db;
    return graph.nodes[a].id < graph.nodes[b].id;
  });
  return list;
}

constexpr unsigned kPrnModulo = 32768;

// git's get_prn: "man 3 rand" seeded with the count.
unsigned get_prn(unsigned count) {
  count = count * 1103515245u + 12345u;
  return (count / 65536) % kPrnModulo;
}

// git's sqrti, in float on purpose: the rounding decides which commit is picked.
int sqrti(int value) {
  if (value == 0) return 0;
  float x = static_cast<float>(value);
  float d;
  do {
    float y = (x + static_cast<float>(value) / x) / 2;
    d = (y > x) ? y - x : x - y;
    x = y;
  } while (d >= 0.5f);
  return static_cast<int>(x);
}

// git's skip_away: a pseudo-random pick near the front of the filtered list, never bad.
int skip_away(const std::vector<int>& list) {
  int count = static_cast<int>(list.size());
  int prn = static_cast<int>(get_prn(static_cast<unsigned>(count)));
  int index = (count * prn / static_cast<int>(kPrnModulo)) * sqrti(prn) /
              sqrti(static_cast<int>(kPrnModulo));
  if (index >= count) return list.front();
  if (list[index] != 0) return list[index];
  return index > 0 ? list[index - 1] : list.front();
}

}  // namespace

Midpoint choose_midpoint(const CommitGraph& graph, const std::set<std::string>& skipped) {
  Midpoint result;
  int total = 0;
  for (const auto& node : graph.nodes) total += counted(node);
  if (total == 0) return result;

  auto is_skipped = [&](int node) { return skipped.count(graph.nodes[node].id) > 0; };
  auto found_or_test = [&](int pick, const std::vector<int>& tried) {
    if (pick != 0) {
      result.kind = Midpoint::Kind::kTest;
      result.commit = pick;
    } else if (tried.empty()) {
      result.kind = Midpoint::Kind::kFound;
      result.commit = 0;
    } else {
      result.kind = Midpoint::Kind::kOnlySkipped;
      result.candidates = tried;
      result.candidates.push_back(0);
    }
    return result;
  };

  if (skipped.empty()) {
    Weights weights = compute_weights(graph, total, true);
    int pick =
        weights.early_pick >= 0 ? weights.early_pick : best_bisection(graph, weights.weight, total);
    return found_or_test(pick, {});
  }
  Weights weights = compute_weights(graph, total, false);
  std::vector<int> list = sorted_by_distance(graph, weights.weight, total);
  if (!is_skipped(list.front())) return found_or_test(list.front(), {});
  std::vector<int> filtered, tried;
  for (int node : list) (is_skipped(node) ? tried : filtered).push_back(node);
  if (filtered.empty()) {
    result.kind = Midpoint::Kind::kOnlySkipped;
    result.candidates = tried;
    return result;
  }
  return found_or_test(skip_away(filtered), tried);
}

std::vector<bool> reachable(const CommitGraph& graph, int start) {
  std::vector<bool> seen(graph.nodes.size(), false);
  std::vector<int> todo{start};
  seen[start] = true;
  while (!todo.empty()) {
    int node = todo.back();
    todo.pop_back();
    for (int parent : graph.nodes[node].parents) {
      if (!seen[parent]) {
        seen[parent] = true;
        todo.push_back(parent);
      }
    }
  }
  return seen;
}

Subgraph restrict_candidates(const CommitGraph& graph, int bad, const std::vector<int>& goods) {
  std::vector<bool> excluded(graph.nodes.size(), false);
  for (int good : goods) {
    auto seen = reachable(graph, good);
    for (size_t i = 0; i < seen.size(); ++i) excluded[i] = excluded[i] || seen[i];
  }
  auto wanted = reachable(graph, bad);
  Subgraph result;
  std::vector<int> new_index(graph.nodes.size(), -1);
  // bad first: git's walk starts there whatever the dates say.
  std::vector<int> order{bad};
  for (int i = 0; i < static_cast<int>(graph.nodes.size()); ++i) {
    if (i != bad) order.push_back(i);
  }
  for (int i : order) {
    if (!wanted[i] || excluded[i]) continue;
    new_index[i] = static_cast<int>(result.original.size());
    result.original.push_back(i);
  }
  for (int old : result.original) {
    CommitNode node = graph.nodes[old];
    node.parents.clear();
    for (int parent : graph.nodes[old].parents) {
      if (new_index[parent] >= 0) node.parents.push_back(new_index[parent]);
    }
    result.graph.nodes.push_back(std::move(node));
  }
  return result;
}

}  // namespace kbisect
