#include "common/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace kbisect {
namespace {

std::atomic<int> received_signal{0};
int wake_pipe[2] = {-1, -1};

// The first signal is the cause: Ctrl-C on `kbisect ... | tee` also ends tee, and the SIGPIPE
// that follows is its consequence.
void on_signal(int signal_number) {
  int none = 0;
  received_signal.compare_exchange_strong(none, signal_number);
  const char byte = 1;
  [[maybe_unused]] auto ignored = ::write(wake_pipe[1], &byte, 1);
}

}  // namespace

Interrupted::Interrupted(int signal_number)
    : Error(fmt::format("interrupted by SIG{}; everything started was stopped",
                        ::sigabbrev_np(signal_number))),
      signal_number_(signal_number) {}

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      fail("cannot create the interrupt pipe: {}", errno_text(errno));
    }
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    // The terminal closing (an ssh session dropped) must clean up too: by default SIGHUP
    // ends kbisect at once and leaves its make or QEMU running.
    ::sigaction(SIGHUP, &action, nullptr);
    // By default a closed output pipe kills kbisect at once, as uncleanly as SIGHUP would.
    ::sigaction(SIGPIPE, &action, nullptr);
  });
}

int pending_interrupt() {
  return received_signal.load();
}

int interrupt_fd() {
  return wake_pipe[0];
}

void throw_if_interrupted() {
  if (int signal_number = pending_interrupt()) throw Interrupted(signal_number);
}

}  // namespace kbisect
