// accel: auto. KVM only when it can really boot a kernel on the host (a /dev/kvm that exists
// is not enough: nested hosts may refuse ordinary guests), else TCG with a warning. The
// probe's answer is cached per host in a small JSON file in the workdir.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "config/scenario.h"

namespace kbisect {

class Events;

struct AccelHost {
  std::string key;           // what the cached answer is valid for: host, QEMU version, /dev/kvm
  bool kvm_possible = true;  // false: do not even probe (no /dev/kvm)
};

// This machine: hostname, qemu-system-x86_64 --version, whether /dev/kvm is usable.
AccelHost local_accel_host();

// The first line of qemu-system-x86_64 --version.
std::string local_qemu_version();

// What booting one kernel under KVM, and under TCG when that failed, tells about KVM here.
struct KvmProbe {
  // kUnknown: the kernel booted under neither, so its failure is the kernel's.
  enum class Answer { kWorks, kFails, kUnknown };
  Answer answer = Answer::kUnknown;
  std::string why;  // why the KVM boot failed (kFails, kUnknown)
};

// "kvm" or "tcg". `probe_kvm` boots a kernel under KVM with a short deadline (vm_run.h). Its
// answer is cached unless it is kUnknown: then this call says "kvm" and the next one probes
// again.
std::string resolve_accel(Accel wanted, const AccelHost& host,
                          const std::filesystem::path& cache_file,
                          const std::function<KvmProbe()>& probe_kvm, Events* events);

}  // namespace kbisect
