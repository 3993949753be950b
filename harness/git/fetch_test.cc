#include "git/fetch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "git/repository.h"
#include "git/test_repo.h"

namespace kbisect {
namespace {

using testing::HasSubstr;
constexpr std::chrono::seconds kTimeout{120};

class FetchTest : public testing::Test {
 protected:
  void SetUp() override {
    upstream_.write("a.txt", "one\n");
    upstream_.commit("first");
    local_.git({"remote", "add", "origin", upstream_.dir().string()});
  }

  std::string tip_after_fetch() {
    std::string ref = fetch_branch(local_.dir(), "origin", "main", kTimeout);
    EXPECT_EQ(ref, "refs/remotes/origin/main");
    return Repository::open(local_.dir()).resolve(ref);
  }

  TestRepo upstream_;
  TestRepo local_;
};

TEST_F(FetchTest, TheRemoteTrackingRefFollowsTheRemoteBranch) {
  EXPECT_EQ(tip_after_fetch(), upstream_.git({"rev-parse", "main"}));
  upstream_.write("a.txt", "two\n");
  const std::string second = upstream_.commit("second");
  EXPECT_EQ(tip_after_fetch(), second);
}

TEST_F(FetchTest, AForcePushedBranchIsFollowedToo) {
  upstream_.write("a.txt", "two\n");
  upstream_.commit("second");
  tip_after_fetch();
  upstream_.git({"reset", "-q", "--hard", "HEAD~1"});
  upstream_.write("a.txt", "rewritten\n");
  const std::string rewritten = upstream_.commit("second, rewritten");
  EXPECT_EQ(tip_after_fetch(), rewritten);
}

TEST_F(FetchTest, FailuresSayWhatToCheck) {
  try {
    fetch_branch(local_.dir(), "nowhere", "main", kTimeout);
    ADD_FAILURE() << "fetched from a remote that does not exist";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("cannot fetch branch main from remote nowhere"));
    EXPECT_THAT(error.what(), HasSubstr("remote -v"));
  }
  try {
    fetch_branch(local_.dir(), "origin", "no-such-branch", kTimeout);
    ADD_FAILURE() << "fetched a branch that does not exist";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("ls-remote origin no-such-branch"));
  }
}

}  // namespace
}  // namespace kbisect
