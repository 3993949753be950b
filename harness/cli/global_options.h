// Options every kbisect subcommand accepts (see the CLI contract in ARCHITECTURE.md).
#pragma once

#include <filesystem>

namespace kbisect {

struct GlobalOptions {
  std::filesystem::path database = "results/kbisect.db";  // --db
  std::filesystem::path workdir;                          // --workdir; empty: from the config
  bool quiet = false;                                     // --quiet
  bool json = false;                                      // --json: JSON-lines events on stdout
};

}  // namespace kbisect
