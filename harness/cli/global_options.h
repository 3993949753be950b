// Options every kbisect subcommand accepts (see the CLI contract in ARCHITECTURE.md).
#pragma once

#include <filesystem>

#include "common/error.h"

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

// The database of a command that reads results and writes none. It must exist: a Store would
// create an empty one, and the command would answer about nothing.
inline std::filesystem::path existing_database_path(const GlobalOptions& globals) {
  std::filesystem::path database = database_path(globals);
  if (!std::filesystem::exists(database)) {
    fail("no results database at {}; run a measurement first or pass --db FILE", database.string());
  }
  return database;
}

}  // namespace kbisect
