#include "common/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "common/error.h"
#include "common/fork_for_test.h"
#include "common/local_process.h"

namespace kbisect {
namespace {

TEST(Process, CapturesOutputAndExitCode) {
  ProcessResult result = run_process({"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.timed_out);
  EXPECT_NE(result.output_tail.find("hello"), std::string::npos);
  EXPECT_NE(result.output_tail.find("oops"), std::string::npos);
}

TEST(Process, ExtraEnvironmentReachesTheChild) {
  ProcessOptions options;
  options.extra_environment = {{"KBISECT_TEST_VALUE", "42"}, {"A", "short name"}};
  ProcessResult result = run_process({"sh", "-c", "echo $KBISECT_TEST_VALUE $A"}, options);
  EXPECT_EQ(result.output_tail, "42 short name\n");
}

TEST(Process, RemovedEnvironmentDoesNotReachTheChild) {
  ::setenv("KBISECT_TEST_GONE", "1", 1);
  ::setenv("KBISECT_PREFIX_A", "2", 1);
  ::setenv("KBISECT_KEPT", "kept", 1);
  ProcessOptions options;
  options.removed_environment = {"KBISECT_TEST_GONE", "KBISECT_PREFIX_*"};
  options.extra_environment = {{"KBISECT_PREFIX_B", "set"}};
  ProcessResult result =
      run_process({"sh", "-c",
                   "echo ${KBISECT_TEST_GONE-none} ${KBISECT_PREFIX_A-none} $KBISECT_PREFIX_B "
                   "$KBISECT_KEPT"},
                  options);
  EXPECT_EQ(result.output_tail, "none none set kept\n");
  for (const char* name : {"KBISECT_TEST_GONE", "KBISECT_PREFIX_A", "KBISECT_KEPT"}) {
    ::unsetenv(name);
  }
}

TEST(Process, ArgumentsAreNotInterpretedByAShell) {
  ProcessResult result = run_process({"printf", "%s", "$(echo injected); ls"});
  EXPECT_EQ(result.output_tail, "$(echo injected); ls");
}

// A session of its own, led by the child: no controlling terminal to prompt on (an ssh password,
// a sudo), so an unattended run fails instead of waiting. /proc/PID/stat's 6th field is the
// session id.
TEST(Process, TheChildLeadsASessionOfItsOwn) {
  ProcessResult result = run_process({"sh", "-c", "set -- $(cat /proc/$$/stat); echo $$ $6"});
  ASSERT_TRUE(result.ok()) << result.output_tail;
  std::istringstream fields(result.output_tail);
  long pid = 0;
  long session = 0;
  fields >> pid >> session;
  EXPECT_GT(pid, 0);
  EXPECT_EQ(session, pid);
  EXPECT_NE(session, static_cast<long>(::getsid(0)));
}

// A descriptor opened without O_CLOEXEC (std::ofstream opens its files so) does not reach the
// child: a QEMU left running would hold it open.
TEST(Process, TheChildInheritsNoDescriptorButItsStandardOnes) {
  const int leaked = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leaked, 3);
  ProcessResult result = run_process({"sh", "-c", fmt::format("test -e /proc/self/fd/{}", leaked)});
  ::close(leaked);
  EXPECT_EQ(result.exit_code, 1) << "descriptor " << leaked << " reached the child";
}

// A grandchild that let go of the output pipe does not outlive the program that started it.
TEST(Process, WhatTheProgramLeftRunningIsKilledWhenItExits) {
  ProcessResult result = run_process({"sh", "-c", "sleep 37 >/dev/null 2>&1 & echo $!"});
  ASSERT_TRUE(result.ok()) << result.output_tail;
  const pid_t sleeper = std::stoi(result.output_tail);
  for (int i = 0; i < 50 && process_exists(sleeper); ++i) ::usleep(100'000);
  EXPECT_FALSE(process_exists(sleeper)) << "sleep " << sleeper << " still runs";
  ::kill(sleeper, SIGKILL);
}

TEST(Process, DeadlineKillsTheWholeProcessGroup) {
  // The grandchild keeps the pipe open: only a group kill ends the wait.
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(300);
  ProcessResult result = run_process({"sh", "-c", "sleep 30 & sleep 30"}, options);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.ok());
}

// Ctrl-C, SIGTERM or the terminal closing while a build runs: the child's whole group is
// killed (a make's compilers too) and the caller gets Interrupted. Run in a child process,
// which the signal is for.
class ProcessSignalTest : public ::testing::TestWithParam<int> {};

TEST_P(ProcessSignalTest, SignalKillsTheWholeProcessGroup) {
  // Sleeps only this test starts, found by their unusual length.
  const std::string seconds = std::to_string(100000 + ::getpid());
  auto sleeps = [&] {
    std::string listed = run_process({"pgrep", "-xf", "sleep " + seconds}).output_tail;
    return std::count(listed.begin(), listed.end(), '\n');
  };
  pid_t child = fork_running([&] {
    run_process({"sh", "-c", fmt::format("sleep {0} & sleep {0}", seconds)});
  });
  for (int i = 0; i < 100 && sleeps() < 2; ++i) ::usleep(50000);
  ::kill(child, GetParam());
  int status = 0;
  for (int i = 0; i < 400 && ::waitpid(child, &status, WNOHANG) == 0; ++i) ::usleep(50000);
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    ADD_FAILURE() << "the interrupted run_process did not return";
  }
  EXPECT_TRUE(ended_interrupted(status)) << status;
  for (int i = 0; i < 100 && sleeps() > 0; ++i) ::usleep(50000);
  EXPECT_EQ(sleeps(), 0) << "a process of the interrupted group was left";
}

INSTANTIATE_TEST_SUITE_P(SigintSigtermSighup, ProcessSignalTest,
                         ::testing::Values(SIGINT, SIGTERM, SIGHUP));

TEST(Process, TailIsBoundedAndLinesAreDelivered) {
  ProcessOptions options;
  options.tail_bytes = 100;
  int lines = 0;
  options.on_line = [&](std::string_view) { ++lines; };
  ProcessResult result = run_process({"seq", "1", "10000"}, options);
  EXPECT_EQ(lines, 10000);
  EXPECT_LE(result.output_tail.size(), 100u);
  EXPECT_NE(result.output_tail.find("10000"), std::string::npos);
}

TEST(Process, MissingProgramIsAClearError) {
  EXPECT_THROW(run_process({"kbisect-no-such-program"}), Error);
  try {
    run_checked({"false"});
    FAIL() << "run_checked must throw on a non-zero exit";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("exit 1"), std::string::npos);
  }
}

TEST(Process, DescribeQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(describe_command({"make", "-j2", "O=/tmp/a b", "it's"}),
            "make -j2 'O=/tmp/a b' 'it'\\''s'");
}

TEST(Process, OnLineCanMoveTheDeadline) {
  // The deadline starts far away; the first line pulls it to now, which ends the program.
  auto deadline = std::chrono::steady_clock::time_point::max();
  ProcessOptions options;
  options.deadline = [&] { return deadline; };
  options.on_line = [&](std::string_view) { deadline = std::chrono::steady_clock::now(); };
  ProcessResult result = run_process({"sh", "-c", "echo ready; sleep 30"}, options);
  EXPECT_TRUE(result.timed_out);
}

TEST(Process, OverlongLinesArriveInBoundedPieces) {
  ProcessOptions options;
  options.max_line_bytes = 1000;
  size_t longest = 0, total = 0;
  options.on_line = [&](std::string_view line) {
    longest = std::max(longest, line.size());
    total += line.size();
  };
  run_process({"head", "-c", "100000", "/dev/zero"}, options);
  EXPECT_EQ(longest, 1000u);
  EXPECT_EQ(total, 100000u);
}

}  // namespace
}  // namespace kbisect
