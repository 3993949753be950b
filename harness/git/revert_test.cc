#include "git/revert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "git/test_repo.h"

namespace kbisect {
namespace {

class RevertTest : public testing::Test {
 protected:
  void SetUp() override {
    repo_.write("fs/ext4/file.c", "line1\nline2\nline3\nline4\nline5\nline6\nline7\n");
    repo_.write("block/bio.c", "bio\n");
    root_ = repo_.commit("root");
    repo_.write("fs/ext4/file.c", "line1\nCHANGED\nline3\nline4\nline5\nline6\nline7\n");
    change1_ = repo_.commit("ext4: take the inode lock exclusively");
    repo_.write("block/bio.c", "bio2\n");
    repo_.write("block/new.c", "new\n");
    change2_ = repo_.commit("block: add new.c");
    repo_.write("fs/ext4/file.c", "line1\nCHANGED AGAIN\nline3\nline4\nline5\nline6\nline7\n");
    overwrite_ = repo_.commit("ext4: overwrite the same line");
    repo_.write("fs/ext4/file.c", "line1\nCHANGED AGAIN\nline3\nline4\nline5\nline6\nLAST\n");
    head_ = repo_.commit("ext4: change the last line");
  }

  // The tree `git revert --no-commit` leaves on a detached checkout of base.
  std::string git_revert_tree(const std::string& base, const std::vector<std::string>& commits,
                              const std::vector<std::string>& options = {}) {
    repo_.git({"checkout", "-q", "--detach", base});
    std::vector<std::string> args = {"revert", "--no-commit"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), commits.begin(), commits.end());
    repo_.git(args);
    std::string tree = repo_.git({"write-tree"});
    repo_.git({"revert", "--abort"});
    return tree;
  }

  TestRepo repo_;
  std::string root_, change1_, change2_, overwrite_, head_;
};

TEST_F(RevertTest, CleanRevertsGiveGitsTreeAndRealCommits) {
  Repository repo = Repository::open(repo_.dir());
  RevertResult result = revert_commits(repo, change2_, {change1_});
  EXPECT_EQ(result.tree_id, git_revert_tree(change2_, {change1_}));
  EXPECT_EQ(repo_.git({"rev-parse", result.commit_id + "^{tree}"}), result.tree_id);
  EXPECT_EQ(repo_.git({"rev-parse", result.commit_id + "^"}), change2_);
  EXPECT_EQ(repo_.git({"log", "-1", "--format=%B", result.commit_id}),
            "Revert \"ext4: take the inode lock exclusively\"\n\nThis reverts commit " + change1_ +
                ".\n");
  // Not on any branch, and the same revert gives the same commit.
  EXPECT_EQ(repo_.git({"branch", "--contains", result.commit_id}), "");
  EXPECT_EQ(revert_commits(repo, change2_, {change1_}).commit_id, result.commit_id);
  repo_.git({"fsck", "--strict"});
}

// A commit base does not contain is reverted when it applies (a backport's upstream
// original), and named so the command can say so.
TEST_F(RevertTest, CommitsOutsideTheBasesHistoryAreNamed) {
  // A stable branch with head_'s change backported.
  repo_.git({"checkout", "-q", "-b", "stable", change2_});
  repo_.write("fs/ext4/file.c", "line1\nCHANGED\nline3\nline4\nline5\nline6\nLAST\n");
  const std::string backport = repo_.commit("ext4: change the last line (backport)");
  repo_.git({"checkout", "-q", "main"});
  Repository repo = Repository::open(repo_.dir());
  EXPECT_EQ(revert_commits(repo, change2_, {change1_}).not_in_base, std::vector<std::string>());
  EXPECT_EQ(revert_commits(repo, change2_, {change2_}).not_in_base, std::vector<std::string>());
  RevertResult result = revert_commits(repo, backport, {change1_, head_});
  EXPECT_EQ(result.not_in_base, std::vector<std::string>{head_});
  EXPECT_EQ(result.tree_id, git_revert_tree(backport, {change1_, head_}));
}

TEST_F(RevertTest, SeveralRevertsInOrder) {
  Repository repo = Repository::open(repo_.dir());
  RevertResult result = revert_commits(repo, "main", {head_, overwrite_, change2_});
  EXPECT_EQ(result.tree_id, git_revert_tree("main", {head_, overwrite_, change2_}));
  EXPECT_EQ(repo_.git({"log", "--format=%s", "-3", result.commit_id}),
            "Revert \"block: add new.c\"\n"
            "Revert \"ext4: overwrite the same line\"\n"
            "Revert \"ext4: change the last line\"");
  EXPECT_EQ(repo_.git({"rev-parse", result.commit_id + "~3"}), head_);
}

TEST_F(RevertTest, MergesAreRevertedAgainstTheirFirstParent) {
  repo_.git({"checkout", "-q", "-b", "side", root_});
  repo_.write("mm/page.c", "page\n");
  repo_.commit("mm: add page.c");
  repo_.git({"checkout", "-q", "main"});
  std::string merge = repo_.merge("side", "Merge branch side");
  Repository repo = Repository::open(repo_.dir());
  RevertResult result = revert_commits(repo, merge, {merge});
  EXPECT_EQ(result.tree_id, git_revert_tree(merge, {merge}, {"-m", "1"}));
  EXPECT_EQ(result.tree_id, repo_.git({"rev-parse", head_ + "^{tree}"}));
}

TEST_F(RevertTest, ARevertThatChangesNothingIsRefused) {
  Repository repo = Repository::open(repo_.dir());
  const std::string reverted = revert_commits(repo, change2_, {change2_}).commit_id;
  for (const auto& [base, commits] :
       {std::pair{reverted, std::vector<std::string>{change2_}},
        std::pair{change2_, std::vector<std::string>{change2_, change2_}}}) {
    try {
      revert_commits(repo, base, commits);
      ADD_FAILURE() << "a revert that changes nothing was accepted";
    } catch (const Error& error) {
      EXPECT_THAT(error.what(),
                  testing::HasSubstr("(\"block: add new.c\") on top of " + base +
                                     " changes nothing: the base already reverts it or lacks "
                                     "its change, or it is given twice"));
    }
  }
}

TEST_F(RevertTest, ConflictsNameTheFiles) {
  Repository repo = Repository::open(repo_.dir());
  try {
    revert_commits(repo, head_, {change2_, change1_});
    FAIL() << "a conflicting revert was accepted";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("reverting " + change1_));
    EXPECT_THAT(error.what(), testing::HasSubstr("conflicts in: fs/ext4/file.c;"));
    EXPECT_THAT(error.what(), testing::Not(testing::HasSubstr("not in the base's history")));
  }
  // A commit the base does not contain, from a side branch off root that changes the same line.
  repo_.git({"checkout", "-q", "-b", "side", root_});
  repo_.write("fs/ext4/file.c", "line1\nSIDE\nline3\nline4\nline5\nline6\nline7\n");
  const std::string side = repo_.commit("ext4: a change on a side branch");
  try {
    revert_commits(repo, head_, {side});
    FAIL() << "a conflicting revert was accepted";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("the commit is not in the base's history"));
  }
  EXPECT_THROW(revert_commits(repo, head_, {root_}), Error);
  EXPECT_THROW(revert_commits(repo, head_, {"no-such-commit"}), Error);
  EXPECT_THROW(revert_commits(repo, head_, {}), Error);
}

}  // namespace
}  // namespace kbisect
