// What the qemu and libvirt runners share: turning a RunRequest into a VmPlan (guest image,
// test device, accel), the phase deadlines, the bounded console log, classification, and one
// retry of an infrastructure error. A backend only starts one VM and reports its console.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "vm/accel.h"
#include "vm/classify.h"
#include "vm/initramfs.h"
#include "vm/runner.h"
#include "vm/vm_plan.h"

namespace kbisect {

class Events;

struct RunnerContext {
  std::filesystem::path workdir;  // pidfiles, initramfs and accel caches live here
  GuestImageInputs image;         // image.kdio: the static kdio binary
  Events* events = nullptr;       // warnings; nullptr: stderr
  size_t max_console_bytes = 16u << 20;
};

void warn(Events* events, const std::string& text);

// The boot deadline until the guest init reports in, then the workload deadline; once the
// guest has sent its frame, a short grace for it to power off (a VM that hangs in its reboot,
// seen once in a few hundred TCG boots, would otherwise hold the run for the whole workload
// limit).
class PhaseClock {
 public:
  static constexpr std::chrono::seconds kShutdownGrace{30};

  PhaseClock(const VmSpec& vm);
  // Called with every console line the watch has seen: moves the deadline on.
  void follow(const ConsoleWatch& watch);
  std::chrono::steady_clock::time_point deadline() const;
  double boot_seconds() const;
  double workload_seconds() const;
  // "120 s" of the phase that is running: for the timeout message.
  std::string phase_limit() const;

 private:
  void init_reached();

  std::chrono::steady_clock::time_point start_;
  std::optional<std::chrono::steady_clock::time_point> init_time_;
  std::optional<std::chrono::steady_clock::time_point> frame_time_;
  std::chrono::seconds boot_limit_;
  std::chrono::seconds workload_limit_;
};

// The console log on disk, capped: past the cap nothing more is written and flooded() is set.
class ConsoleLog {
 public:
  ConsoleLog(const std::filesystem::path& path, size_t max_bytes);
  void line(std::string_view text);
  bool flooded() const { return flooded_; }

 private:
  std::ofstream out_;
  size_t written_ = 0;
  size_t max_bytes_;
  bool flooded_ = false;
};

struct VmEnding {
  VmEnd end = VmEnd::kExited;
  std::string detail;
};

// One VM of a run; an implementation boots it, feeds every console line to `watch` (and
// calls clock.follow(watch) after each), enforces clock.deadline() and the
// console cap, and leaves nothing running when it returns or throws.
class VmBackend {
 public:
  virtual ~VmBackend() = default;
  virtual std::string name() const = 0;  // "qemu" or "libvirt"
  // The accel for `wanted` on the host this backend runs VMs on (probing kvm if needed).
  virtual std::string choose_accel(Accel wanted, const std::filesystem::path& kernel) = 0;
  // The name of the machine the guests run on, as runs and samples record it.
  virtual std::string host_name() = 0;
  // What runs the guests there, with its version ("QEMU emulator version 7.2.19 ...").
  virtual std::string hypervisor() = 0;
  virtual VmEnding boot(const VmPlan& plan, const std::filesystem::path& console_log,
                        PhaseClock& clock, ConsoleWatch& watch) = 0;

  // choose_accel once per backend and `wanted`: the host does not change between the runs
  // of one process, and its warning is said once.
  const std::string& accel_for(Accel wanted, const std::filesystem::path& kernel) {
    auto known = accels_.find(wanted);
    if (known == accels_.end()) known = accels_.emplace(wanted, choose_accel(wanted, kernel)).first;
    return known->second;
  }

  // hypervisor once per backend, for the same reason: place_of asks before every run.
  const std::string& known_hypervisor() {
    if (!hypervisor_) hypervisor_ = hypervisor();
    return *hypervisor_;
  }

 private:
  std::map<Accel, std::string> accels_;
  std::optional<std::string> hypervisor_;
};

// The accel probe: boots `kernel` with the probe guest under KVM (20 s to init), and when that
// fails, under TCG (the default boot timeout), so that a kernel that does not boot at all is
// not taken for a KVM that does not work.
KvmProbe probe_kvm(VmBackend& backend, const RunnerContext& context,
                   const std::filesystem::path& kernel);

// The backend's host, the accelerator it chooses for the request's scenario and kernel, and
// the environment: the guest image and the hypervisor.
RunPlace place_of(VmBackend& backend, const RunnerContext& context, const RunRequest& request);

// What differs between two of place_of's environments, for a person: "kdio", "QEMU (QEMU
// emulator version 7.2.15 ... -> ...)", ...
std::string environment_change(const std::string& before, const std::string& after);

// A whole run through a backend: plan, boot, classify, retry an infra-error once.
RunResult run_vm(VmBackend& backend, const RunnerContext& context, const RunRequest& request);

// The plan for booting `kernel` with the probe image (init reports in, then stops).
VmPlan probe_plan(const RunnerContext& context, const std::filesystem::path& kernel,
                  const std::string& accel, const std::filesystem::path& dir);

}  // namespace kbisect
