// kbisect: find the Linux kernel commit behind an I/O performance regression.
#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/bisect_session.h"
#include "cli/commands.h"
#include "cli/git_bisect_run.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/json_text.h"
#include "kdio/spelling.h"

namespace {

void add_global_options(CLI::App& app, kbisect::GlobalOptions& globals) {
  app.add_option("--db", globals.database, "results database (SQLite)")
      ->capture_default_str()
      ->check(kbisect::not_empty_check("the database file"));
  app.add_option("--workdir", globals.workdir,
                 "where source trees, builds and VM files go (default: from the config)");
  app.add_flag("--quiet", globals.quiet, "no progress output");
  app.add_flag("--json", globals.json, "JSON-lines events on stdout");
}

bool has_argument(int argc, char** argv, std::string_view argument) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == argument) return true;
  }
  return false;
}

// The exit code of an error that stops a command before or after its own work: 1, as the
// commands' tables say (CLI11's own codes, 105-109, mean nothing to a caller). Under
// `git bisect run` 1 would mark the commit bad: such an error aborts instead.
int error_exit(int argc, char** argv) {
  return has_argument(argc, argv, "--git-bisect-run") ? kbisect::kGitBisectAbort : 1;
}

// A command that only reads the database (query, log, report) started nothing that a signal
// stopped; when the reader of its output goes away (`kbisect query ... | head`), it ends
// quietly, as cat and git log do.
bool only_reads(const CLI::App& app) {
  for (const CLI::App* command : app.get_subcommands()) {
    const std::string& name = command->get_name();
    if (name == "query" || name == "log" || name == "report") return true;
  }
  return false;
}

// The exit code of a command a signal stopped, and why, unless a reader lost its reader.
int stopped_by(int signal_number, bool reads_only, std::string_view cause = "") {
  if (!(reads_only && signal_number == SIGPIPE)) {
    fmt::print(stderr, "kbisect: {}{}\n", kbisect::Interrupted(signal_number).what(), cause);
  }
  return 128 + signal_number;
}

// `code`, unless what was printed to stdout could not all be written (a full disk, a closed
// pipe): a log or a report cut short must not pass for a whole one.
int after_writing_output(int code, int argc, char** argv, bool reads_only) {
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  const int error = errno;
  if (int signal_number = kbisect::pending_interrupt()) {  // the reader went away (SIGPIPE)
    return stopped_by(signal_number, reads_only);
  }
  fmt::print(stderr, "kbisect: error: cannot write the output: {}\n", std::strerror(error));
  return code != 0 ? code : error_exit(argc, argv);
}

// With --json, bisect and nightly end with their result object also when they stop on an error
// (the CLI contract), and a usage error stops them before they run. The flag is looked for in
// argv: parsing stopped at the error, perhaps before it.
void print_stopped_result(const CLI::App& app, int argc, char** argv, const std::string& message) {
  if (!has_argument(argc, argv, "--json")) return;
  for (const CLI::App* command : app.get_subcommands()) {
    if (command->get_name() == "bisect") {
      fmt::print("{}\n", kbisect::json_text(kbisect::stopped_result(nullptr, 0, message)));
    } else if (command->get_name() == "nightly") {
      fmt::print("{}\n", kbisect::json_text(kbisect::nightly_stopped_result(message)));
    }
  }
}

// The first word that is no option nor an option's value: what should have been a command.
std::optional<std::string> first_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--db" || argument == "--workdir") {
      ++i;
    } else if (!argument.starts_with("-")) {
      return std::string(argument);
    }
  }
  return std::nullopt;
}

// CLI11 says only "A subcommand is required" for `kbisect reprot 1`.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (!app.get_subcommands().empty()) return std::nullopt;
  const std::optional<std::string> word = first_word(argc, argv);
  if (!word) return std::nullopt;
  std::vector<std::string> commands;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(command->get_name());
  }
  const std::optional<std::string> close = kdio::closest_match(*word, commands);
  return fmt::format("unknown command '{}'{}; the commands: {}", *word,
                     close ? fmt::format(" (did you mean '{}'?)", *close) : "",
                     fmt::join(commands, ", "));
}

// An error that a signal caused: a write to a closed pipe (SIGPIPE) fails, and so may whatever
// was running when Ctrl-C came.
int interrupted(int signal_number, const std::exception& error, bool reads_only) {
  return stopped_by(signal_number, reads_only, fmt::format(" ({})", error.what()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbisect: find the Linux kernel commit behind an I/O performance regression"};
  app.set_version_flag("--version", "kbisect 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand
  app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
    return "kbisect: error: " + CLI::FailureMessage::simple(failed, error);
  });

  kbisect::GlobalOptions globals;
  add_global_options(app, globals);
  kbisect::CommandAction action;
  kbisect::add_query_command(app, globals, action);
  kbisect::add_run_command(app, globals, action);
  kbisect::add_bisect_command(app, globals, action);
  kbisect::add_compare_command(app, globals, action);
  kbisect::add_log_command(app, globals, action);
  kbisect::add_nightly_command(app, globals, action);
  kbisect::add_report_command(app, globals, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const bool asked_for_help = error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    if (auto unknown = unknown_command(app, argc, argv); unknown && !asked_for_help) {
      fmt::print(stderr, "kbisect: error: {}\n", *unknown);
      return error_exit(argc, argv);
    }
    if (app.exit(error) == 0) return 0;
    print_stopped_result(app, argc, argv, error.what());
    return error_exit(argc, argv);
  }

  kbisect::install_interrupt_handlers();
  const bool reads_only = only_reads(app);
  try {
    return after_writing_output(action(), argc, argv, reads_only);
  } catch (const kbisect::Interrupted& interrupted) {
    return stopped_by(interrupted.signal_number(), reads_only);
  } catch (const kbisect::Error& error) {
    if (int signal_number = kbisect::pending_interrupt()) {
      return interrupted(signal_number, error, reads_only);
    }
    fmt::print(stderr, "kbisect: error: {}\n", error.what());
    return 1;
  } catch (const std::exception& error) {
    // Caught so that the stack unwinds (an uncaught exception may skip the destructors that
    // release locks and stop child processes).
    if (int signal_number = kbisect::pending_interrupt()) {
      return interrupted(signal_number, error, reads_only);
    }
    fmt::print(stderr, "kbisect: internal error: {}; please report it\n", error.what());
    return 1;
  }
}
