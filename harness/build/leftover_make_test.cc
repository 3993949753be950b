#include "build/leftover_make.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <system_error>

#include "common/file.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

// A stand-in for a make left behind: a process group whose leader names `dir` on its command
// line, as make's O=DIR does.
pid_t start_leftover(const fs::path& dir) {
  pid_t child = ::fork();
  // The test signals -child: never let that be -(-1), init.
  if (child < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (child == 0) {
    ::setpgid(0, 0);
    std::string object_dir = "O=" + dir.string();
    ::execlp("sh", "sh", "-c", "sleep 300 & sleep 300", "sh", object_dir.c_str(),
             static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(child, child);  // also here, so it holds before the test goes on
  // Until the exec, the child's command line is this test's.
  for (int i = 0; i < 500; ++i) {
    auto cmdline = read_file_if_present(fmt::format("/proc/{}/cmdline", child));
    if (cmdline && cmdline->find(dir.string()) != std::string::npos) break;
    ::usleep(10000);
  }
  return child;
}

pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

class LeftoverMakeTest : public ::testing::Test {
 protected:
  void TearDown() override {
    ::kill(-leftover_, SIGKILL);
    ::waitpid(leftover_, nullptr, 0);
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
  pid_t leftover_ = start_leftover(dir_);
};

TEST_F(LeftoverMakeTest, AMakeWhoseKbisectIsGoneIsStopped) {
  int owner = dead_pid();
  write_file(dir_ / ".kbisect-make", fmt::format("{} {}\n", owner, leftover_));
  std::optional<std::string> stopped = stop_leftover_make(dir_);
  ASSERT_TRUE(stopped.has_value());
  EXPECT_EQ(*stopped, fmt::format("stopped a make left running in {} by kbisect process {}, "
                                  "which was killed (process group {})",
                                  dir_.string(), owner, leftover_));
  int status = 0;
  ASSERT_EQ(::waitpid(leftover_, &status, 0), leftover_);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_FALSE(fs::exists(dir_ / ".kbisect-make"));
}

TEST_F(LeftoverMakeTest, AMakeOfALiveKbisectOrAReusedGroupIdIsLeftAlone) {
  // Its kbisect (here: this process) still runs.
  write_file(dir_ / ".kbisect-make", fmt::format("{} {}\n", ::getpid(), leftover_));
  EXPECT_EQ(stop_leftover_make(dir_), std::nullopt);
  // The group's leader builds somewhere else: the id was reused.
  TempDir elsewhere;
  write_file(elsewhere.path() / ".kbisect-make", fmt::format("{} {}\n", dead_pid(), leftover_));
  EXPECT_EQ(stop_leftover_make(elsewhere.path()), std::nullopt);
  EXPECT_EQ(::waitpid(leftover_, nullptr, WNOHANG), 0) << "the group was stopped";
  // Nothing noted, or a note that is not one.
  EXPECT_EQ(stop_leftover_make(temp_.path() / "absent"), std::nullopt);
  write_file(dir_ / ".kbisect-make", "garbage\n");
  EXPECT_EQ(stop_leftover_make(dir_), std::nullopt);
}

TEST(MakeGroupNote, NotesWhileItLives) {
  TempDir temp;
  {
    MakeGroupNote note(temp.path());
    note.note(4242);
    EXPECT_EQ(read_file(temp.path() / ".kbisect-make"), fmt::format("{} 4242\n", ::getpid()));
  }
  EXPECT_FALSE(fs::exists(temp.path() / ".kbisect-make"));
}

}  // namespace
}  // namespace kbisect
