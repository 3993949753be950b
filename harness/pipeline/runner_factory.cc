#include "pipeline/runner_factory.h"

#include <cstdlib>

#include "common/error.h"
#include "vm/libvirt_runner.h"
#include "vm/qemu_runner.h"

namespace kbisect {

std::filesystem::path kdio_binary() {
  std::filesystem::path path = KBISECT_KDIO_BINARY;
  if (const char* from_environment = std::getenv("KBISECT_KDIO")) path = from_environment;
  if (!std::filesystem::exists(path)) {
    fail(
        "the guest workload engine kdio is missing at {}; build it (make build) or set "
        "KBISECT_KDIO",
        path.string());
  }
  return path;
}

std::unique_ptr<Runner> make_runner(const Scenario& scenario, const std::filesystem::path& workdir,
                                    Events* events) {
  RunnerContext context;
  context.workdir = workdir;
  context.events = events;
  switch (scenario.vm.runner) {
    case RunnerKind::kQemu:
      context.image.kdio = kdio_binary();
      return std::make_unique<QemuRunner>(context);
    case RunnerKind::kLibvirt:
      context.image.kdio = kdio_binary();
      return std::make_unique<LibvirtRunner>(context, scenario.vm.libvirt_uri);
    case RunnerKind::kSim:
      break;
  }
  fail("{}: runner: sim measures no kernel; it serves `kbisect bisect` only (statistical tests)",
       scenario.source_file.string());
}

}  // namespace kbisect
