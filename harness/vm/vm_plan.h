// One VM, fully decided: what both runners turn into a QEMU command line or a libvirt domain.
// Built from a RunRequest by run_vm (vm_run.cc); prepare_backing_file and check_passthrough
// below are the device steps it and the runners take.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/scenario.h"

namespace kbisect {

class Events;

struct VmPlan {
  std::string name;  // kbisect-<pid>-<n>: the sweep of leftovers relies on this form
  std::filesystem::path kernel;
  std::filesystem::path initrd;
  std::string cmdline;
  std::string accel = "tcg";  // kvm | tcg
  int vcpus = 2;
  int memory_mib = 1024;
  std::vector<int> vcpu_pinning;  // host CPU per vCPU; empty: none
  DeviceKind device = DeviceKind::kEmulatedNvme;
  std::filesystem::path disk_image;  // emulated NVMe backing file
  std::string disk_cache = "none";   // none (O_DIRECT) or writethrough where O_DIRECT fails
  std::string pci_address;           // passthrough

  // An emulated NVMe drive on `disk_image` goes into the VM (without one it has no disk).
  bool has_backing_file() const {
    return device == DeviceKind::kEmulatedNvme && !disk_image.empty();
  }
};

// The QEMU arguments of the emulated NVMe drive on `plan.disk_image` (has_backing_file()):
// -drive ... -device nvme,...; the libvirt domain passes the same through <qemu:commandline>.
std::vector<std::string> emulated_nvme_args(const VmPlan& plan);

// "kbisect-<pid>-<n>", n counting up in this process.
std::string next_vm_name();
// The pid in a kbisect VM name, or 0 when the name is not one of ours.
int vm_name_pid(std::string_view name);

// What every guest boots with. panic=-1 reboots at once on a panic and oops=panic turns an oops
// into one: with -no-reboot / on_reboot=destroy a crashed kernel ends the VM instead of hanging
// it. random.trust_cpu=on seeds the kernel's RNG from RDRAND (-cpu max / host, libvirt's
// maximum / host-passthrough) at boot: tinyconfig does not trust it, and mkfs then waited
// about 4 s of every boot for entropy a fresh TCG guest does not have.
inline constexpr const char* kGuestBaseCmdline =
    "console=ttyS0,115200 panic=-1 oops=panic rdinit=/init random.trust_cpu=on";

// The guest kernel command line: the base, then the scenario's extra.
std::string guest_cmdline(const Scenario& scenario);

// Creates the emulated NVMe backing file (sparse) at its size if missing or of another size,
// and returns the cache mode it supports: "none" when O_DIRECT works on its filesystem,
// else "writethrough" (with a warning).
std::string prepare_backing_file(const DeviceSpec& device, Events* events);

// Throws Error saying exactly what is wrong when `pci_address` cannot be passed through:
// malformed address, no such device, no IOMMU groups, not an NVMe controller, bound to a
// host driver other than vfio-pci (`need_vfio_bound`; libvirt's managed='yes' rebinds it
// itself), or one of its namespaces mounted or held open on the host.
// `root` is "/" but for tests (it holds sys/ and proc/mounts).
void check_passthrough(const std::string& pci_address, bool need_vfio_bound,
                       const std::filesystem::path& root = "/");

}  // namespace kbisect
