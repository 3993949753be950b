// Running external programs: always an argv vector (never a shell), in a session and process
// group of their own, so a timeout or Ctrl-C kills the whole tree (make -j, QEMU), what they leave
// running dies with them, and none of them can prompt on the terminal; with output captured to an
// optional log file and a bounded in-memory tail.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kbisect {

struct ProcessOptions {
  std::filesystem::path working_directory;  // empty: inherit
  std::map<std::string, std::string> extra_environment;
  // Inherited variables the child does not get: a name, or "PREFIX*" for every name that
  // starts with PREFIX. extra_environment is set after these are left out.
  std::vector<std::string> removed_environment;
  std::chrono::milliseconds timeout{0};  // 0: no deadline
  std::filesystem::path log_file;        // empty: no log; stdout and stderr both go here
  size_t tail_bytes = 64 * 1024;         // how much of the end of the output to keep
  std::function<void(std::string_view line)> on_line;  // called for every output line
  size_t max_line_bytes = 1 << 20;  // longer lines reach on_line in pieces: memory stays bounded
  // When set, replaces `timeout` and is asked again after every chunk of output, so on_line can
  // move the deadline as the program reports progress (a VM's boot, then its workload deadline).
  std::function<std::chrono::steady_clock::time_point()> deadline;
  // Called once the program runs, with its process group (to find it again after a crash).
  std::function<void(int process_group)> on_start;
};

struct ProcessResult {
  int exit_code = -1;      // -1 when killed by a signal
  int term_signal = 0;     // the signal that ended the process, if any
  bool timed_out = false;  // killed because the deadline passed
  std::string output_tail;

  bool ok() const { return exit_code == 0 && !timed_out; }
};

// Runs argv[0] (looked up in PATH unless it contains a slash). Throws Error when the program
// cannot be started and Interrupted (after killing the process group) on SIGINT/SIGTERM/SIGHUP.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// run_process that throws Error with the output tail unless the program exits with 0.
std::string run_checked(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// "a b 'c d'": argv rendered for messages and logs only, never for execution.
std::string describe_command(const std::vector<std::string>& argv);

}  // namespace kbisect
