// What the subcommands that measure share: the scenario (with --db and --workdir applied), the
// results database, and the event output.
#pragma once

#include <filesystem>

#include "cli/global_options.h"
#include "common/events.h"
#include "config/scenario.h"
#include "store/store.h"

namespace kbisect {

struct CommandContext {
  Scenario scenario;
  Events events;
  Store store;

  CommandContext(const GlobalOptions& globals, const std::filesystem::path& config_file);
};

}  // namespace kbisect
