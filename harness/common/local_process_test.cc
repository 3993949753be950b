#include "common/local_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kbisect {
namespace {

TEST(LocalProcess, ThisHostHasAName) {
  EXPECT_FALSE(this_host_name().empty());
}

TEST(LocalProcess, ThisProcessExists) {
  EXPECT_TRUE(process_exists(getpid()));
  EXPECT_FALSE(process_name(getpid()).empty());
}

TEST(LocalProcess, AReapedChildIsGone) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(process_exists(child));
  EXPECT_EQ(process_name(child), "");
}

// A killed nightly whose supervisor reaps late (or a container's init that never does).
TEST(LocalProcess, AChildThatEndedButIsNotReapedIsGone) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);  // ended, still unreaped
  EXPECT_FALSE(process_exists(child));
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
}

TEST(LocalProcess, AProcessOfAnotherUserExists) {
  // pid 1 exists everywhere; unprivileged callers get EPERM, which still means "there".
  EXPECT_TRUE(process_exists(1));
}

TEST(LocalProcess, ProcessGroupIdsAreNotProcesses) {
  EXPECT_FALSE(process_exists(0));
  EXPECT_FALSE(process_exists(-1));
}

}  // namespace
}  // namespace kbisect
