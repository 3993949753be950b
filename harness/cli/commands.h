// One function per subcommand, each in its own file: it declares the subcommand's options on
// `app` and, when the subcommand is chosen, leaves the work to do in `action`.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/global_options.h"

namespace kbisect {

using CommandAction = std::function<int()>;

void add_query_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
void add_run_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
void add_bisect_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
// compare and revert-check.
void add_compare_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
void add_log_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
void add_nightly_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);
void add_report_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action);

// nightly --json's result when it stops before it runs (a usage error): verdict "aborted".
nlohmann::json nightly_stopped_result(const std::string& message);

}  // namespace kbisect
