#include "cli/context.h"

#include "config/config.h"
#include "pipeline/job_check.h"

namespace kbisect {
namespace {

// --workdir moves everything that defaulted to a place under the config's workdir.
Scenario with_overrides(Scenario scenario, const GlobalOptions& globals) {
  scenario.database = database_path(globals, scenario.database);
  if (globals.workdir.empty()) return scenario;
  const auto old_workdir = scenario.workdir;
  scenario.workdir = globals.workdir;
  if (scenario.build.cache_dir == old_workdir / "cache") {
    scenario.build.cache_dir = scenario.workdir / "cache";
  }
  if (scenario.device.image == old_workdir / "nvme.img") {
    scenario.device.image = scenario.workdir / "nvme.img";
  }
  return scenario;
}

}  // namespace

CommandContext::CommandContext(const GlobalOptions& globals,
                               const std::filesystem::path& config_file)
    : scenario(with_overrides(load_scenario(config_file), globals)),
      events(Events::choose_mode(globals.json, globals.quiet)),
      store(scenario.database) {
  // Before anything is built: kdio would refuse these job files in every guest.
  if (scenario.vm.runner == RunnerKind::kSim) return;
  for (const std::string& warning : check_job_files(scenario)) events.note("warning", warning);
}

}  // namespace kbisect
