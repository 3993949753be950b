// Options every kbisect subcommand accepts (see the CLI contract in ARCHITECTURE.md).
#pragma once

#include <filesystem>

namespace kbisect {

struct GlobalOptions {
  std::filesystem::path database;  // --db; empty: the config's, else results/kbisect.db
  std::filesystem::path workdir;   // --workdir; empty: the config's
  bool quiet = false;              // --quiet
  bool json = false;               // --json: JSON-lines events on stdout
};

// --db if given, else the scenario's database (when there is a scenario), else the default.
inline std::filesystem::path database_path(const GlobalOptions& globals,
                                           const std::filesystem::path& scenario_database = {}) {
  if (!globals.database.empty()) return globals.database;
  if (!scenario_database.empty()) return scenario_database;
  return "results/kbisect.db";
}

}  // namespace kbisect
