// The Runner interface: one kernel image in, one measured sample (kdio's JSON) or a
// classified failure out. Implementations: qemu (a QEMU process), libvirt (any URI), and sim
// (draws from a model; statistical tests only).
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "config/scenario.h"

namespace kbisect {

enum class Outcome { kOk, kBuildFailed, kBootFailed, kWorkloadFailed, kTimeout, kInfraError };

// The names in messages, events and the database (runs.outcome).
inline constexpr std::array<std::pair<Outcome, std::string_view>, 6> kOutcomeNames = {{
    {Outcome::kOk, "ok"},
    {Outcome::kBuildFailed, "build-failed"},
    {Outcome::kBootFailed, "boot-failed"},
    {Outcome::kWorkloadFailed, "workload-failed"},
    {Outcome::kTimeout, "timeout"},
    {Outcome::kInfraError, "infra-error"},
}};

// Every name above is a string literal, so data() is NUL-terminated.
constexpr const char* outcome_name(Outcome outcome) {
  for (const auto& [candidate, name] : kOutcomeNames) {
    if (candidate == outcome) return name.data();
  }
  return "unknown";
}

struct RunRequest {
  std::filesystem::path kernel_image;  // bzImage
  std::string commit;                  // for logs and the sim runner
  const Scenario* scenario = nullptr;
  const Variant* variant = nullptr;  // nullptr: the default variant
  std::filesystem::path log_dir;     // console log and runner logs go here
};

struct RunResult {
  Outcome outcome = Outcome::kInfraError;
  std::string kdio_json;        // validated kdio JSON output, when outcome is kOk
  std::string detail;           // one line: why it failed (panic message, timeout phase, ...)
  double image_seconds = 0;     // making the run's initramfs (the base one is cached)
  double boot_seconds = 0;      // VM start until guest init reported in
  double workload_seconds = 0;  // guest init report until results received
  std::string accel;            // "kvm" or "tcg" as actually used
  std::string host;             // the machine the guest ran on (a remote libvirt host's name)
  std::string environment;      // RunPlace::environment
  std::filesystem::path console_log;
  // False when QEMU or libvirt could not start the VM (an infra-error of the host or the VM
  // set-up, not of the kernel under test).
  bool vm_started = true;
  bool init_reached = false;  // the guest's init reported in: the boot ended
};

// Where a guest runs, under which accelerator and with what. Samples compare only with samples
// taken at the same place: TCG is many times slower than KVM, two hosts are two machines, and
// another kdio, guest mkfs or QEMU measures another thing.
struct RunPlace {
  std::string host;
  std::string accel;
  // The guest image (its name holds the hashes of kdio, the init, busybox and the mkfs tools)
  // and the hypervisor's version: "initramfs-0f3a...-9c1d...; QEMU emulator version 7.2.19 ...".
  // Empty for runs stored before kbisect recorded it.
  std::string environment;
  bool operator==(const RunPlace&) const = default;
};

class Runner {
 public:
  virtual ~Runner() = default;
  virtual RunResult run(const RunRequest& request) = 0;
  // The place run(request) would run at, without running it (though choosing the accelerator
  // may boot the kernel once: accel: auto probes KVM).
  virtual RunPlace place(const RunRequest& request) = 0;
};

}  // namespace kbisect
