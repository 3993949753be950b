#include "common/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kbisect {
namespace {

// The message is what a user reads after Ctrl-C: the signal's name, not strsignal's
// "Interrupt" ("interrupted by Interrupt").
TEST(Interrupted, NamesTheSignal) {
  EXPECT_STREQ(Interrupted(SIGINT).what(), "interrupted by SIGINT; everything started was stopped");
  EXPECT_STREQ(Interrupted(SIGTERM).what(),
               "interrupted by SIGTERM; everything started was stopped");
  EXPECT_EQ(Interrupted(SIGTERM).signal_number(), SIGTERM);
}

// Handlers are for the whole process: each case runs in a child, which exits with what it saw.
int in_child(int (*body)()) {
  pid_t child = fork();
  if (child == 0) {
    install_interrupt_handlers();
    _exit(body());
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// `kbisect --json ... | head`: the write fails, and kbisect lives to clean up.
TEST(InterruptHandlers, AClosedPipeIsAnInterruptNotADeath) {
  EXPECT_EQ(in_child([] {
              int ends[2];
              if (pipe(ends) != 0) return 100;
              close(ends[0]);
              if (write(ends[1], "x", 1) != -1 || errno != EPIPE) return 101;
              return pending_interrupt();
            }),
            SIGPIPE);
}

TEST(InterruptHandlers, TheFirstSignalIsTheCause) {
  EXPECT_EQ(in_child([] {
              raise(SIGINT);
              raise(SIGPIPE);
              return pending_interrupt();
            }),
            SIGINT);
}

}  // namespace
}  // namespace kbisect
