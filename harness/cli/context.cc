#include "cli/context.h"

#include "config/config.h"
#include "config/variant_selection.h"
#include "pipeline/job_check.h"

namespace kbisect {
namespace {

Scenario with_overrides(Scenario scenario, const GlobalOptions& globals) {
  scenario.database = database_path(globals, scenario.database);
  if (!globals.workdir.empty()) move_workdir(scenario, globals.workdir);
  return scenario;
}

}  // namespace

CommandContext::CommandContext(const GlobalOptions& globals,
                               const std::filesystem::path& config_file)
    : scenario(with_overrides(load_scenario(config_file), globals)),
      events(Events::choose_mode(globals.json, globals.quiet)),
      store(Store::created_when_used(scenario.database)) {
  // Before anything is built: kdio would refuse these job files in every guest.
  if (scenario.vm.runner == RunnerKind::kSim) return;
  warn_once(check_job_files(scenario));
  default_checked_ = scenario.workload.variants.empty();
}

void CommandContext::warn_once(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    if (warned_.insert(warning).second) events.note("warning", warning);
  }
}

const Variant* CommandContext::variant(const std::string& name) {
  const Variant* chosen = find_variant(scenario, name);
  if (!chosen) check_default_workload();
  return chosen;
}

std::vector<const Variant*> CommandContext::variants(const std::vector<std::string>& names) {
  std::vector<const Variant*> chosen = select_variants(scenario, names);
  if (names.empty()) check_default_workload();
  return chosen;
}

void CommandContext::check_default_workload() {
  if (default_checked_ || scenario.vm.runner == RunnerKind::kSim) return;
  default_checked_ = true;
  warn_once(check_job_files(scenario, {nullptr}));
}

}  // namespace kbisect
