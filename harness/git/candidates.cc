#include "git/candidates.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "common/error.h"

namespace kbisect {
namespace {

// Commits of `bad ^goods` in the order git rev-list prints them: libgit2's default sort is the
// same reverse-chronological limited walk as git's.
std::vector<git_oid> walk(const Repository& repo, const git_oid& bad,
                          const std::vector<git_oid>& goods) {
  git_revwalk* raw = nullptr;
  check_git(git_revwalk_new(&raw, repo.get()), "cannot walk the history", "check the repository");
  GitRevwalkPtr walker(raw);
  git_revwalk_sorting(walker.get(), GIT_SORT_NONE);
  check_git(git_revwalk_push(walker.get(), &bad), "cannot walk from the bad commit",
            "check the repository (git fsck)");
  for (const git_oid& good : goods) {
    check_git(git_revwalk_hide(walker.get(), &good), "cannot hide a good commit from the walk",
              "check the repository (git fsck)");
  }
  std::vector<git_oid> commits;
  git_oid oid;
  int result;
  while ((result = git_revwalk_next(&oid, walker.get())) == 0) commits.push_back(oid);
  if (result != GIT_ITEROVER) {
    check_git(result, "cannot walk the history", "check the repository (git fsck)");
  }
  return commits;
}

// Compares two trees restricted to the pathspecs, as git's TREESAME test does.
class PathFilter {
 public:
  PathFilter(const Repository& repo, const std::vector<std::string>& paths)
      : repo_(repo), paths_(paths) {
    for (const std::string& path : paths_) pointers_.push_back(const_cast<char*>(path.c_str()));
  }

  bool differs(const git_tree* old_tree, const git_tree* new_tree) const {
    git_diff_options options = GIT_DIFF_OPTIONS_INIT;
    options.pathspec.strings = const_cast<char**>(pointers_.data());
    options.pathspec.count = pointers_.size();
    git_diff* raw = nullptr;
    int result = git_diff_tree_to_tree(&raw, repo_.get(), const_cast<git_tree*>(old_tree),
                                       const_cast<git_tree*>(new_tree), &options);
    GitDiffPtr diff(raw);
    check_git(result, "cannot compare trees for path limiting", "check the repository (git fsck)");
    return git_diff_num_deltas(diff.get()) > 0;
  }

 private:
  const Repository& repo_;
  const std::vector<std::string>& paths_;
  std::vector<char*> pointers_;
};

GitTreePtr commit_tree(const git_commit* commit) {
  git_tree* raw = nullptr;
  check_git(git_commit_tree(&raw, commit), "cannot read a commit's tree",
            "check the repository (git fsck)");
  return GitTreePtr(raw);
}

// git's try_to_simplify_commit in its default mode. A parent is relevant when it is a candidate
// or one of the good commits themselves (git's BOTTOM commits). A commit equal to a relevant
// parent is TREESAME (does not touch the paths) and only that parent is followed; otherwise it
// touches the paths when it differs from a relevant parent, or, having none, from any parent.
// `followed` receives the candidate parents the simplified history goes through.
bool touches(const PathFilter& filter, const git_commit* commit,
             const std::unordered_map<std::string, int>& index,
             const std::vector<std::string>& goods, std::vector<int>& followed) {
  GitTreePtr tree = commit_tree(commit);
  unsigned count = git_commit_parentcount(commit);
  if (count == 0) return filter.differs(nullptr, tree.get());
  bool relevant_change = false, irrelevant_change = false, any_relevant = false;
  std::vector<int> all;
  for (unsigned i = 0; i < count; ++i) {
    std::string parent_id = oid_hex(*git_commit_parent_id(commit, i));
    auto found = index.find(parent_id);
    bool relevant =
        found != index.end() || std::find(goods.begin(), goods.end(), parent_id) != goods.end();
    any_relevant = any_relevant || relevant;
    if (found != index.end()) all.push_back(found->second);
    git_commit* raw = nullptr;
    check_git(git_commit_parent(&raw, commit, i), "cannot read a parent commit",
              "check the repository (git fsck)");
    GitCommitPtr parent(raw);
    GitTreePtr parent_tree = commit_tree(parent.get());
    if (filter.differs(parent_tree.get(), tree.get())) {
      (relevant ? relevant_change : irrelevant_change) = true;
    } else if (relevant) {
      followed.clear();
      if (found != index.end()) followed.push_back(found->second);
      return false;
    }
  }
  followed = std::move(all);
  return any_relevant ? relevant_change : irrelevant_change;
}

void limit_to_paths(const Repository& repo, const std::vector<std::string>& paths,
                    const std::vector<std::string>& goods, const std::vector<GitCommitPtr>& commits,
                    const std::unordered_map<std::string, int>& index, CommitGraph& graph) {
  PathFilter filter(repo, paths);
  std::vector<std::vector<int>> followed(commits.size());
  std::vector<bool> differs(commits.size());
  for (size_t i = 0; i < commits.size(); ++i) {
    differs[i] = touches(filter, commits[i].get(), index, goods, followed[i]);
  }
  // Side branches that a TREESAME merge cuts off are not in git's output at all.
  std::vector<bool> reached(commits.size());
  std::deque<int> queue;
  if (!commits.empty()) {
    reached[0] = true;
    queue.push_back(0);
  }
  while (!queue.empty()) {
    int next = queue.front();
    queue.pop_front();
    for (int parent : followed[next]) {
      if (!reached[parent]) {
        reached[parent] = true;
        queue.push_back(parent);
      }
    }
  }
  for (size_t i = 0; i < commits.size(); ++i) {
    graph.nodes[i].touches_paths = reached[i] && differs[i];
  }
}

// git bisect's check_merge_bases: bases of bad against all goods that are not good already.
std::vector<std::string> untested_merge_bases(const Repository& repo, const git_oid& bad,
                                              const std::vector<git_oid>& goods,
                                              const std::vector<std::string>& good_ids) {
  // The goods that bad does not descend from, as git's "Some good revs are not ancestors of the
  // bad rev" names them: a fix can only lie between the merge base and these.
  std::vector<std::string> unrelated;
  for (size_t i = 0; i < goods.size(); ++i) {
    if (git_graph_descendant_of(repo.get(), &bad, &goods[i]) != 1) unrelated.push_back(good_ids[i]);
  }
  if (unrelated.empty()) return {};
  std::vector<git_oid> input = {bad};
  input.insert(input.end(), goods.begin(), goods.end());
  git_oidarray bases = {nullptr, 0};
  int result = git_merge_bases_many(&bases, repo.get(), input.size(), input.data());
  std::vector<std::string> untested;
  if (result == GIT_ENOTFOUND) {
    fail(
        "the bad commit {} and the good commits share no history; give good commits from the "
        "same history as bad",
        oid_hex(bad));
  }
  check_git(result, "cannot compute the merge bases of the good and bad commits",
            "check the repository (git fsck)");
  for (size_t i = 0; i < bases.count; ++i) {
    std::string base = oid_hex(bases.ids[i]);
    if (std::find(good_ids.begin(), good_ids.end(), base) != good_ids.end()) continue;
    untested.push_back(base);
  }
  git_oidarray_dispose(&bases);
  for (const std::string& base : untested) {
    if (base == oid_hex(bad)) {
      fail(
          "the merge base {} is bad: the regression was fixed between {} and [{}], or good and "
          "bad are swapped; check the --good and --bad refs",
          base, base, fmt::join(unrelated, " "));
    }
  }
  return untested;
}

}  // namespace

Candidates find_candidates(const Repository& repo, const CandidateQuery& query) {
  if (query.goods.empty()) fail("no good commit given; give at least one --good REF");
  Candidates candidates;
  candidates.bad = repo.resolve(query.bad);
  git_oid bad = parse_oid(candidates.bad, "bad commit");
  std::vector<git_oid> goods;
  for (const std::string& spec : query.goods) {
    candidates.goods.push_back(repo.resolve(spec));
    if (candidates.goods.back() == candidates.bad) {
      fail("good '{}' and bad '{}' are the same commit {}; give a good commit older than bad", spec,
           query.bad, candidates.bad);
    }
    goods.push_back(parse_oid(candidates.goods.back(), "good commit"));
  }
  candidates.untested_merge_bases = untested_merge_bases(repo, bad, goods, candidates.goods);

  std::vector<git_oid> order = walk(repo, bad, goods);
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < order.size(); ++i) index.emplace(oid_hex(order[i]), static_cast<int>(i));
  std::vector<GitCommitPtr> commits;
  for (const git_oid& oid : order) commits.push_back(repo.lookup_commit(oid_hex(oid)));
  for (const GitCommitPtr& commit : commits) {
    CommitNode node;
    node.id = oid_hex(*git_commit_id(commit.get()));
    node.subject = commit_subject(commit.get());
    for (unsigned i = 0; i < git_commit_parentcount(commit.get()); ++i) {
      auto found = index.find(oid_hex(*git_commit_parent_id(commit.get(), i)));
      if (found != index.end()) node.parents.push_back(found->second);
    }
    candidates.graph.nodes.push_back(std::move(node));
  }
  if (!query.paths.empty()) {
    limit_to_paths(repo, query.paths, candidates.goods, commits, index, candidates.graph);
    const auto& nodes = candidates.graph.nodes;
    if (std::none_of(nodes.begin(), nodes.end(), [](const auto& n) { return n.touches_paths; })) {
      fail(
          "no commit between the good and bad commits touches {}: nothing to test; check the "
          "paths (git log --oneline {} ^{} -- {})",
          fmt::join(query.paths, " "), candidates.bad, fmt::join(candidates.goods, " ^"),
          fmt::join(query.paths, " "));
    }
  }
  return candidates;
}

}  // namespace kbisect
