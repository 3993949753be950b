// Outcome classification of one VM run from what its serial console said and how the VM
// ended. The console is untrusted: only validated frames count as results, one answer (a
// result or an error frame) at most, and everything kept from it is bounded.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vm/console_frame.h"
#include "vm/runner.h"

namespace kbisect {

// Follows the console line by line: frames, progress markers and the first line that shows
// the kernel failed (panic, oops, BUG, no root).
class ConsoleWatch {
 public:
  explicit ConsoleWatch(ConsoleLimits limits = {});
  void line(std::string_view text);
  void finish() { frames_.finish(); }

  const ConsoleFrameParser& frames() const { return frames_; }
  bool init_reached() const { return frames_.saw_progress("init"); }
  // The kernel printed its banner: the VM ran, whatever ends it after.
  bool kernel_started() const { return kernel_started_; }
  const std::string& kernel_failure() const { return kernel_failure_; }
  const std::string& last_line() const { return last_line_; }

 private:
  ConsoleFrameParser frames_;
  std::string kernel_failure_;
  std::string last_line_;
  bool kernel_started_ = false;
};

// The kernel's own words for "this kernel is broken", or nullopt for an ordinary line.
std::optional<std::string> kernel_failure_line(std::string_view line);

// How the VM ended, as the runner saw it.
enum class VmEnd {
  kExited,        // powered off or rebooted by itself
  kDeadline,      // killed: the boot or workload deadline passed
  kConsoleFlood,  // killed: console output over the cap
  kStartFailed,   // QEMU or libvirt could not start it
  kQemuDied,      // QEMU failed or was killed after the kernel started
};

struct Classification {
  Outcome outcome = Outcome::kInfraError;
  std::string detail;     // one line
  std::string kdio_json;  // when outcome is kOk
};

// `end_detail` says more about the end (the deadline in seconds, QEMU's error, ...).
Classification classify(const ConsoleWatch& console, VmEnd end, std::string_view end_detail);

// Empty when `json` is kdio output of the expected shape (an object whose "jobs" is a
// non-empty array of objects with a string "jobname"); else what is wrong.
std::string kdio_json_problem(std::string_view json);

}  // namespace kbisect
