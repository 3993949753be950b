// What the subcommands that measure share: the scenario (with --db and --workdir applied), the
// results database, and the event output.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

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

  // The variants a command measures, chosen by name as find_variant and select_variants do
  // ("" or no names: the default workload, nullptr). The constructor checks the job files of
  // the declared variants only; the default workload of a scenario with variants is checked
  // here, once a command chooses it, still before anything is built.
  const Variant* variant(const std::string& name);
  std::vector<const Variant*> variants(const std::vector<std::string>& names);

 private:
  void warn_once(const std::vector<std::string>& warnings);
  void check_default_workload();

  bool default_checked_ = false;
  std::set<std::string> warned_;  // each of kdio's warnings is shown once
};

}  // namespace kbisect
