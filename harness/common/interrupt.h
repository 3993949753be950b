// Ctrl-C, SIGTERM, SIGHUP and SIGPIPE handling. The handlers only record the signal; long-running
// loops (child processes, VM waits) poll interrupt_fd() and clean up what they own before
// throwing Interrupted, so nothing is left behind. A closed pipe (`kbisect --json ... | head`)
// makes the write fail as well, and the error that unwinds from there counts as the signal.
#pragma once

#include "common/error.h"

namespace kbisect {

class Interrupted : public Error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const { return signal_number_; }

 private:
  int signal_number_;
};

// Installs SIGINT, SIGTERM, SIGHUP and SIGPIPE handlers. Safe to call more than once.
void install_interrupt_handlers();

// The first signal received (the cause; a SIGPIPE may follow a Ctrl-C), or 0.
int pending_interrupt();

// Readable once a signal arrived: add it to poll() sets to wake up at once.
int interrupt_fd();

// Throws Interrupted if a signal arrived.
void throw_if_interrupted();

}  // namespace kbisect
