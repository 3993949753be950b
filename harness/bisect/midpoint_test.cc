// The midpoint choice against git itself: generated repositories (linear, with merges, with
// path limiting), `git bisect start --no-checkout`, then good/bad/skip marks; after every mark
// our pick must be git's BISECT_HEAD, or the same "first bad commit" / "only skipped" answer.
#include "bisect/midpoint.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "common/process.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

class Repo {
 public:
  Repo() {
    git({"init", "-q"});
    git({"symbolic-ref", "HEAD", "refs/heads/master"});
  }

  std::string git(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), "git");
    ProcessOptions options;
    options.working_directory = dir_;
    options.extra_environment = {{"GIT_AUTHOR_NAME", "t"},        {"GIT_AUTHOR_EMAIL", "t@x"},
                                 {"GIT_COMMITTER_NAME", "t"},     {"GIT_COMMITTER_EMAIL", "t@x"},
                                 {"GIT_CONFIG_NOSYSTEM", "1"},    {"HOME", dir_.string()},
                                 {"GIT_INDEX_FILE", index_file()}};
    for (auto& [k, v] : env) options.extra_environment[k] = v;
    return run_checked(args, options);
  }

  // A commit with these parents; when `path` is set, the tree changes that file.
  std::string commit(const std::vector<std::string>& parents, const std::string& path = {}) {
    ++count_;
    if (!path.empty()) {
      auto file = dir_ / "content";
      std::ofstream(file) << "change " << count_ << "\n";
      std::string blob = trim(git({"hash-object", "-w", file.string()}));
      git({"update-index", "--add", "--cacheinfo", fmt::format("100644,{},{}", blob, path)});
    }
    if (tree_.empty() || !path.empty()) tree_ = trim(git({"write-tree"}));
    std::vector<std::string> args{"commit-tree", tree_, "-m", fmt::format("c{}", count_)};
    for (const auto& parent : parents) {
      args.push_back("-p");
      args.push_back(parent);
    }
    std::string date = std::to_string(1600000000 + count_) + " +0000";
    return trim(git(args, {{"GIT_AUTHOR_DATE", date}, {"GIT_COMMITTER_DATE", date}}));
  }

  const std::filesystem::path& dir() const { return dir_; }

  static std::string trim(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }

 private:
  std::string index_file() const { return (dir_ / "test-index").string(); }
  TempDir temp_;
  const std::filesystem::path dir_ = temp_.path();
  std::string tree_;
  int count_ = 0;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) result.push_back(line);
  }
  return result;
}

// The candidate graph as the lead builds it, parsed from `git rev-list --parents`.
CommitGraph rev_list_graph(Repo& repo, const std::string& bad,
                           const std::vector<std::string>& goods,
                           const std::vector<std::string>& paths) {
  std::vector<std::string> args{"rev-list", "--parents", bad};
  for (const auto& good : goods) args.push_back(fmt::format("^{}", good));
  CommitGraph graph;
  std::vector<std::vector<std::string>> parent_ids;
  std::map<std::string, int> index;
  for (const auto& line : lines(repo.git(args))) {
    std::istringstream in(line);
    CommitNode node;
    in >> node.id;
    index[node.id] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back(node);
    parent_ids.emplace_back();
    for (std::string parent; in >> parent;) parent_ids.back().push_back(parent);
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const auto& parent : parent_ids[i]) {
      if (index.count(parent)) graph.nodes[i].parents.push_back(index[parent]);
    }
  }
  if (!paths.empty()) {
    args.erase(args.begin() + 1);  // --parents would rewrite the parents
    args.push_back("--");
    args.insert(args.end(), paths.begin(), paths.end());
    std::set<std::string> touching;
    for (const auto& id : lines(repo.git(args))) touching.insert(id);
    for (auto& node : graph.nodes) node.touches_paths = touching.count(node.id) > 0;
  }
  return graph;
}

struct GitAnswer {
  Midpoint::Kind kind;
  std::string commit;
  std::set<std::string> candidates;
};

GitAnswer parse_git_answer(Repo& repo, const std::string& output) {
  GitAnswer answer;
  if (output.find("only 'skip'ped commits left") != std::string::npos) {
    answer.kind = Midpoint::Kind::kOnlySkipped;
    for (const auto& line : lines(output)) {
      if (line.size() == 40 && line.find(' ') == std::string::npos) answer.candidates.insert(line);
    }
  } else if (auto at = output.find(" is the first bad commit"); at != std::string::npos) {
    answer.kind = Midpoint::Kind::kFound;
    answer.commit = output.substr(at - 40, 40);
  } else {
    answer.kind = Midpoint::Kind::kTest;
    answer.commit = Repo::trim(repo.git({"rev-parse", "BISECT_HEAD"}));
  }
  return answer;
}

std::string run_bisect(Repo& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv{"git", "bisect"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.working_directory = repo.dir();
  return run_process(argv, options).output_tail;
}

// Builds a random history: commits on several branches, forks and merges, all merged into the
// final commit. Returns the commits in creation order.
std::vector<std::string> random_history(Repo& repo, std::mt19937& random, int size, bool merges,
                                        const std::vector<std::string>& files) {
  std::vector<std::string> all{repo.commit({}, files.empty() ? "" : files[0])};
  std::vector<std::string> tips{all[0]};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random); };
  while (static_cast<int>(all.size()) < size) {
    double r = std::uniform_real_distribution<double>(0, 1)(random);
    std::string file = files.empty() ? "" : files[pick(files.size())];
    if (merges && r < 0.15 && tips.size() >= 2) {
      size_t a = pick(tips.size()), b = pick(tips.size());
      if (a == b) continue;
      tips[a] = repo.commit({tips[a], tips[b]});
      tips.erase(tips.begin() + static_cast<long>(b));
      all.push_back(tips[a > b ? a - 1 : a]);
    } else if (merges && r < 0.3) {
      tips.push_back(repo.commit({all[pick(all.size())]}, file));
      all.push_back(tips.back());
    } else {
      size_t t = pick(tips.size());
      tips[t] = repo.commit({tips[t]}, file);
      all.push_back(tips[t]);
    }
  }
  if (tips.size() > 1) {
    all.push_back(repo.commit(tips));
  }
  return all;
}

// One whole bisection driven by random marks, comparing every step with git.
void compare_with_git(uint32_t seed, int size, bool merges, double skip_rate,
                      const std::vector<std::string>& paths) {
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937 random(seed);
  Repo repo;
  std::vector<std::string> files;
  if (!paths.empty()) files = {"fs/a", "block/b", "mm/c"};
  auto all = random_history(repo, random, size, merges, files);
  repo.git({"update-ref", "refs/heads/master", all.back()});
  std::string bad = all.back();
  std::vector<std::string> goods{all[0]};
  std::set<std::string> skipped;

  CommitGraph full = rev_list_graph(repo, bad, goods, paths);
  std::map<std::string, int> full_index;
  for (size_t i = 0; i < full.nodes.size(); ++i) full_index[full.nodes[i].id] = static_cast<int>(i);

  std::vector<std::string> start{"start", "--no-checkout", bad, goods[0]};
  if (!paths.empty()) {
    start.push_back("--");
    start.insert(start.end(), paths.begin(), paths.end());
  }
  std::string output = run_bisect(repo, start);
  for (int step = 0; step < 200; ++step) {
    SCOPED_TRACE(fmt::format("step {}", step));
    CommitGraph graph = rev_list_graph(repo, bad, goods, paths);
    std::vector<int> good_indexes;  // the first good is outside the candidates already
    for (size_t i = 1; i < goods.size(); ++i) good_indexes.push_back(full_index.at(goods[i]));
    Subgraph sub = restrict_candidates(full, full_index[bad], good_indexes);
    ASSERT_EQ(sub.graph.nodes.size(), graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      ASSERT_EQ(sub.graph.nodes[i].id, graph.nodes[i].id);
      ASSERT_EQ(sub.graph.nodes[i].parents, graph.nodes[i].parents);
    }

    Midpoint ours = choose_midpoint(graph, skipped);
    GitAnswer theirs = parse_git_answer(repo, output);
    ASSERT_EQ(static_cast<int>(ours.kind), static_cast<int>(theirs.kind)) << output;
    if (ours.kind == Midpoint::Kind::kOnlySkipped) {
      std::set<std::string> listed;
      for (int node : ours.candidates) listed.insert(graph.nodes[node].id);
      EXPECT_EQ(listed, theirs.candidates) << output;
      return;
    }
    ASSERT_EQ(graph.nodes[ours.commit].id, theirs.commit) << output;
    if (ours.kind == Midpoint::Kind::kFound) return;

    std::string pick = theirs.commit;
    double r = std::uniform_real_distribution<double>(0, 1)(random);
    if (r < skip_rate) {
      skipped.insert(pick);
      output = run_bisect(repo, {"skip", pick});
    } else if (r < skip_rate + (1 - skip_rate) / 2) {
      goods.push_back(pick);
      output = run_bisect(repo, {"good", pick});
    } else {
      bad = pick;
      output = run_bisect(repo, {"bad", pick});
    }
  }
  FAIL() << "bisection did not end";
}

TEST(Midpoint, LinearHistoryLikeGit) {
  for (uint32_t seed = 1; seed <= 3; ++seed)
    ASSERT_NO_FATAL_FAILURE(compare_with_git(seed, 20 + 9 * seed, false, 0, {}));
}

TEST(Midpoint, MergesLikeGit) {
  for (uint32_t seed = 10; seed <= 15; ++seed)
    ASSERT_NO_FATAL_FAILURE(compare_with_git(seed, 30 + 3 * seed, true, 0, {}));
}

TEST(Midpoint, SkipsLikeGit) {
  for (uint32_t seed = 30; seed <= 37; ++seed)
    ASSERT_NO_FATAL_FAILURE(compare_with_git(seed, 40, seed % 2, 0.35, {}));
}

TEST(Midpoint, PathLimitingLikeGit) {
  for (uint32_t seed = 50; seed <= 52; ++seed)
    ASSERT_NO_FATAL_FAILURE(compare_with_git(seed, 30, false, 0.2, {"fs"}));
}

// A merge weighs only the commits below it that touch the paths, as git's count_distance skips
// TREESAME ones: the merge here halves the 8 commits that do, however many below it do not
// (counting those too made it look far from the half, and the pick split 3 to 5).
TEST(Midpoint, AMergeWeighsOnlyTheCommitsThatTouchThePaths) {
  CommitGraph graph;
  auto add = [&](std::vector<int> parents, bool touches) {
    graph.nodes.push_back(
        CommitNode{fmt::format("c{}", graph.nodes.size()), "", std::move(parents), touches});
  };
  for (int node = 0; node < 4; ++node) add({node + 1}, true);  // 0-3 above the merge
  add({5, 8}, true);                                           // 4: the merge
  add({6}, true);                                              // 5-7 on its first side
  add({7}, true);
  add({11}, true);
  add({9}, false);  // 8-10 on its second side, touching none of the paths
  add({10}, false);
  add({}, false);
  for (int node = 11; node < 17; ++node) add({node + 1}, false);  // 11-17 below 7, the same
  add({}, false);
  Midpoint pick = choose_midpoint(graph, {});
  EXPECT_EQ(pick.kind, Midpoint::Kind::kTest);
  EXPECT_EQ(pick.commit, 4);
}

TEST(Midpoint, SmallCases) {
  CommitGraph one{{CommitNode{"b", "", {}, true}}};
  EXPECT_EQ(choose_midpoint(one, {}).kind, Midpoint::Kind::kFound);
  CommitGraph chain{{{"c", "", {1}, true}, {"b", "", {2}, true}, {"a", "", {}, true}}};
  Midpoint pick = choose_midpoint(chain, {});
  EXPECT_EQ(pick.kind, Midpoint::Kind::kTest);
  EXPECT_EQ(pick.commit, 1);
  Midpoint only = choose_midpoint(chain, {"a", "b"});
  EXPECT_EQ(only.kind, Midpoint::Kind::kOnlySkipped);
  EXPECT_EQ(only.candidates.size(), 3u);
  for (auto& node : chain.nodes) node.touches_paths = false;
  EXPECT_EQ(choose_midpoint(chain, {}).kind, Midpoint::Kind::kNoTestable);
}

}  // namespace
}  // namespace kbisect
