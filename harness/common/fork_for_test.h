// For tests of what a signal does to kbisect: the code under test runs in a child process,
// which the test then signals. The child exits kInterruptedExit when the code ends by
// Interrupted (as kbisect does on Ctrl-C), 0 when it returns and 1 on any other exception.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <system_error>

#include "common/interrupt.h"

namespace kbisect {

constexpr int kInterruptedExit = 42;

inline pid_t fork_running(const std::function<void()>& body) {
  pid_t child = ::fork();
  // A test goes on to signal the pid: never let it be -1 (every process) or 0 (its group).
  if (child < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (child != 0) return child;
  install_interrupt_handlers();
  try {
    body();
  } catch (const Interrupted&) {
    ::_exit(kInterruptedExit);
  } catch (...) {
    ::_exit(1);
  }
  ::_exit(0);
}

// Whether a child of fork_running ended by Interrupted.
inline bool ended_interrupted(int status) {
  return WIFEXITED(status) && WEXITSTATUS(status) == kInterruptedExit;
}

}  // namespace kbisect
