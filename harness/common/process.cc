#include "common/process.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <fstream>

#include "common/error.h"
#include "common/interrupt.h"

namespace kbisect {
namespace bp = boost::process;
namespace {

boost::filesystem::path resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  auto found = bp::search_path(program);
  if (found.empty()) fail("cannot run '{}': not found in PATH; install it (make deps)", program);
  return found;
}

// The child starts a session of its own, so it has no controlling terminal: nothing it runs
// (ssh, sudo, a credential helper) can stop to ask on the user's terminal, where an unattended
// run would wait until its deadline; it fails at once instead. The session's process group,
// whose id is the child's pid, holds everything it starts: a timeout or Ctrl-C kills that.
// Descriptors other than stdin, stdout and stderr close at the exec: one that kbisect or a
// library opened without O_CLOEXEC would otherwise live on in a QEMU left behind (marked, not
// closed, so that Boost can still report a failed exec through its own pipe; Linux 5.11 and
// later, Debian 12 has 6.1).
struct NewSession : bp::extend::handler {
  template <typename Executor>
  void on_exec_setup(Executor&) const {
    ::setsid();
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  }
};

// Kills whatever is left in the program's process group on every way out of run_process: a
// grandchild that let go of the output pipe, or a make's compilers when an error ends the wait
// early. On the normal path this runs after the program itself was waited for.
class GroupKill {
 public:
  explicit GroupKill(pid_t group) : group_(group) {}
  ~GroupKill() { ::kill(-group_, SIGKILL); }
  GroupKill(const GroupKill&) = delete;
  GroupKill& operator=(const GroupKill&) = delete;

 private:
  pid_t group_;
};

// Splits the captured output into lines for the callback, keeps a bounded tail and copies
// everything to the log.
class OutputSink {
 public:
  explicit OutputSink(const ProcessOptions& options) : options_(options) {
    if (!options.log_file.empty()) {
      log_.open(options.log_file, std::ios::binary | std::ios::trunc);
      if (!log_) fail("cannot write log file {}: {}", options.log_file.string(), errno_text(errno));
    }
  }

  void add(std::string_view chunk) {
    if (log_.is_open()) {
      // Flushed per chunk so that a person can follow a long build with tail -f.
      log_.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      log_.flush();
    }
    tail_.append(chunk);
    if (tail_.size() > 2 * options_.tail_bytes) tail_.erase(0, tail_.size() - options_.tail_bytes);
    if (!options_.on_line) return;
    partial_line_.append(chunk);
    size_t start = 0;
    for (size_t end; (end = partial_line_.find('\n', start)) != std::string::npos;
         start = end + 1) {
      options_.on_line(std::string_view(partial_line_).substr(start, end - start));
    }
    partial_line_.erase(0, start);
    while (partial_line_.size() > options_.max_line_bytes) {
      options_.on_line(std::string_view(partial_line_).substr(0, options_.max_line_bytes));
      partial_line_.erase(0, options_.max_line_bytes);
    }
  }

  // The last line may lack its newline; it is still a line.
  void finish() {
    if (options_.on_line && !partial_line_.empty()) options_.on_line(partial_line_);
    partial_line_.clear();
  }

  std::string take_tail() {
    if (tail_.size() > options_.tail_bytes) tail_.erase(0, tail_.size() - options_.tail_bytes);
    return std::move(tail_);
  }

 private:
  const ProcessOptions& options_;
  std::ofstream log_;
  std::string tail_;
  std::string partial_line_;
};

bool is_removed(std::string_view name, const std::vector<std::string>& removed) {
  return std::ranges::any_of(removed, [&](std::string_view pattern) {
    return pattern.ends_with('*') ? name.starts_with(pattern.substr(0, pattern.size() - 1))
                                  : name == pattern;
  });
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) fail("internal error: empty command line");
  install_interrupt_handlers();
  // Built with set() alone: Boost 1.74's find() behind operator[] and erase() reads past the
  // end of environment strings shorter than the name (AddressSanitizer reports it).
  bp::environment child_environment;
  for (const auto& entry : boost::this_process::environment()) {
    const std::string name = entry.get_name();
    if (!is_removed(name, options.removed_environment)) {
      child_environment.set(name, entry.to_string());
    }
  }
  for (const auto& [name, value] : options.extra_environment) child_environment.set(name, value);

  bp::pipe output;
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  auto start_dir = options.working_directory.empty() ? std::filesystem::current_path()
                                                     : options.working_directory;
  bp::child child;
  try {
    child =
        bp::child(resolve_program(argv[0]), bp::args = args,
                  bp::std_in<bp::null, (bp::std_out & bp::std_err)> output,
                  bp::env = child_environment, bp::start_dir = start_dir.string(), NewSession());
  } catch (const bp::process_error& error) {
    fail("cannot run {}: {}", describe_command(argv), error.what());
  }
  const pid_t process_group = child.id();
  const GroupKill group_kill(process_group);
  if (options.on_start) options.on_start(process_group);
  // Our copy of the write end must go, or the read loop never sees EOF.
  ::close(output.native_sink());
  output.assign_sink(-1);

  OutputSink sink(options);
  ProcessResult result;
  const auto fixed_deadline = std::chrono::steady_clock::now() + options.timeout;
  const bool has_deadline = options.deadline || options.timeout.count() > 0;
  int interrupt_signal = 0;
  char buffer[16384];
  for (;;) {
    int wait_ms = -1;
    if (has_deadline) {
      auto deadline = options.deadline ? options.deadline() : fixed_deadline;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 3600 * 1000));
    }
    pollfd fds[2] = {{output.native_source(), POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) fail("poll failed: {}", errno_text(errno));
    if ((interrupt_signal = pending_interrupt()) != 0) break;
    if (ready <= 0 || fds[0].revents == 0) continue;
    ssize_t got = ::read(output.native_source(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: every process holding the pipe has exited
    sink.add(std::string_view(buffer, static_cast<size_t>(got)));
  }
  if (result.timed_out || interrupt_signal != 0) {
    ::kill(-process_group, SIGKILL);
  }
  sink.finish();
  child.wait();
  result.exit_code = child.exit_code();
  result.term_signal = child.native_exit_code() & 0x7f;
  if (result.term_signal != 0) result.exit_code = -1;
  result.output_tail = sink.take_tail();
  if (interrupt_signal != 0) throw Interrupted(interrupt_signal);
  return result;
}

std::string run_checked(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result = run_process(argv, options);
  if (result.timed_out) {
    fail("{} timed out after {} ms; output ends with:\n{}", describe_command(argv),
         options.timeout.count(), result.output_tail);
  }
  if (result.exit_code != 0) {
    fail("{} failed (exit {}); output ends with:\n{}", describe_command(argv), result.exit_code,
         result.output_tail);
  }
  return std::move(result.output_tail);
}

std::string describe_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& arg : argv) {
    if (!text.empty()) text += ' ';
    bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      text += arg;
      continue;
    }
    text += '\'';
    for (char c : arg) text += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
}

}  // namespace kbisect
