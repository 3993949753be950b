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

void check_runner_boots_kernels(const Scenario& scenario) {
  if (scenario.vm.runner != RunnerKind::kSim) return;
  fail(
      "{}: runner: sim measures no kernel; it serves `kbisect bisect` and `kbisect nightly` only "
      "(statistical tests)",
      scenario.source_file.string());
}

std::unique_ptr<Runner> make_runner(const Scenario& scenario, const std::filesystem::path& workdir,
                                    Events* events) {
  check_runner_boots_kernels(scenario);
  RunnerContext context;
  context.workdir = workdir;
  context.events = events;
  context.image.kdio = kdio_binary();
  // A device that cannot be passed through is found before any kernel is built (each boot
  // checks it again: a namespace may be mounted meanwhile). QEMU needs it bound to vfio-pci;
  // libvirt binds it itself, and a remote host's devices are not visible here.
  const bool passthrough = scenario.device.kind == DeviceKind::kNvmePassthrough;
  if (scenario.vm.runner == RunnerKind::kQemu) {
    if (passthrough) check_passthrough(scenario.device.pci_address, true);
    return std::make_unique<QemuRunner>(context);
  }
  if (passthrough && is_local_uri(scenario.vm.libvirt_uri)) {
    check_passthrough(scenario.device.pci_address, false);
  }
  return std::make_unique<LibvirtRunner>(context, scenario.vm.libvirt_uri);
}

}  // namespace kbisect
