#include "git/revert.h"

#include <fmt/ranges.h>

#include "common/error.h"

namespace kbisect {
namespace {

GitIndexPtr revert_in_memory(const Repository& repo, git_commit* commit, git_commit* onto) {
  git_merge_options options = GIT_MERGE_OPTIONS_INIT;
  unsigned mainline = git_commit_parentcount(commit) > 1 ? 1 : 0;
  git_index* raw = nullptr;
  int result = git_revert_commit(&raw, repo.get(), commit, onto, mainline, &options);
  GitIndexPtr index(raw);
  std::string id = oid_hex(*git_commit_id(commit));
  check_git(result, fmt::format("cannot revert {} (\"{}\")", id, commit_subject(commit)),
            "a root commit cannot be reverted; give commits that have a parent");
  if (git_index_has_conflicts(index.get())) {
    // A commit from another branch may revert cleanly (a backport's upstream original), so it
    // is not refused; but where it conflicts, a base without it is the likelier mistake.
    const bool in_base =
        git_graph_descendant_of(repo.get(), git_commit_id(onto), git_commit_id(commit)) == 1;
    fail(
        "reverting {} (\"{}\") on top of {} conflicts in: {}; {}revert a different set of "
        "commits, change their order, or choose a base where they revert cleanly",
        id, commit_subject(commit), oid_hex(*git_commit_id(onto)),
        fmt::join(conflicted_paths(index.get()), ", "),
        in_base ? "" : "the commit is not in the base's history (is the base right?); ");
  }
  return index;
}

}  // namespace

RevertResult revert_commits(const Repository& repo, std::string_view base,
                            const std::vector<std::string>& commits) {
  if (commits.empty()) fail("no commit to revert; give at least one commit id");
  const std::string base_id = repo.resolve(base);
  GitCommitPtr onto = repo.lookup_commit(base_id);
  GitSignaturePtr who = kbisect_signature(git_commit_committer(onto.get())->when.time);
  RevertResult result;
  for (const std::string& spec : commits) {
    const std::string id = repo.resolve(spec);
    if (id != base_id && !repo.is_ancestor(id, base_id)) result.not_in_base.push_back(id);
    GitCommitPtr commit = repo.lookup_commit(id);
    GitIndexPtr index = revert_in_memory(repo, commit.get(), onto.get());
    git_oid tree_id;
    check_git(git_index_write_tree_to(&tree_id, index.get(), repo.get()),
              "cannot write the reverted tree", "check free disk space in the repository");
    // git revert refuses it too ("nothing to commit"): measured, it would be the base again.
    if (git_oid_equal(&tree_id, git_commit_tree_id(onto.get()))) {
      fail(
          "reverting {} (\"{}\") on top of {} changes nothing: the base already reverts it or "
          "lacks its change, or it is given twice; leave it out",
          id, commit_subject(commit.get()), base);
    }
    git_tree* raw_tree = nullptr;
    check_git(git_tree_lookup(&raw_tree, repo.get(), &tree_id), "cannot read the reverted tree",
              "check the repository (git fsck)");
    GitTreePtr tree(raw_tree);
    std::string message =
        fmt::format("Revert \"{}\"\n\nThis reverts commit {}.\n", commit_subject(commit.get()),
                    oid_hex(*git_commit_id(commit.get())));
    const git_commit* parents[] = {onto.get()};
    git_oid commit_id;
    check_git(git_commit_create(&commit_id, repo.get(), nullptr, who.get(), who.get(), nullptr,
                                message.c_str(), tree.get(), 1, parents),
              "cannot write the revert commit", "check free disk space in the repository");
    onto = repo.lookup_commit(oid_hex(commit_id));
    result.commit_id = oid_hex(commit_id);
    result.tree_id = oid_hex(tree_id);
  }
  return result;
}

}  // namespace kbisect
