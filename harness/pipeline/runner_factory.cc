#include "pipeline/runner_factory.h"

#include <cstdlib>

#include "common/error.h"
#include "vm/libvirt_runner.h"
#include "vm/qemu_runner.h"
#include "vm/vm_plan.h"

namespace kbisect {
namespace {

// The static kdio binary for the guest: $KBISECT_KDIO if set, else the one built with this
// kbisect.
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

}  // namespace

std::unique_ptr<Runner> make_runner(const Scenario& scenario, const std::filesystem::path& workdir,
                                    Events* events) {
  RunnerContext context;
  context.workdir = workdir;
  context.events = events;
  // A device that cannot be passed through is found before any kernel is built (each boot
  // checks it again: a namespace may be mounted meanwhile). QEMU needs it bound to vfio-pci;
  // libvirt binds it itself, and a remote host's devices are not visible here.
  const bool passthrough = scenario.device.kind == DeviceKind::kNvmePassthrough;
  switch (scenario.vm.runner) {
    case RunnerKind::kQemu:
      if (passthrough) check_passthrough(scenario.device.pci_address, true);
      context.image.kdio = kdio_binary();
      return std::make_unique<QemuRunner>(context);
    case RunnerKind::kLibvirt:
      if (passthrough && is_local_uri(scenario.vm.libvirt_uri)) {
        check_passthrough(scenario.device.pci_address, false);
      }
      context.image.kdio = kdio_binary();
      return std::make_unique<LibvirtRunner>(context, scenario.vm.libvirt_uri);
    case RunnerKind::kSim:
      break;
  }
  fail(
      "{}: runner: sim measures no kernel; it serves `kbisect bisect` and `kbisect nightly` only "
      "(statistical tests)",
      scenario.source_file.string());
}

}  // namespace kbisect
