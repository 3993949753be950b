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

// "kvm" or "tcg". `kvm_probe_failure` is the probe: boot a kernel under KVM with a short
// deadline, and say why it did not boot (nothing when it did).
std::string resolve_accel(Accel wanted, const AccelHost& host,
                          const std::filesystem::path& cache_file,
                          const std::function<std::optional<std::string>()>& kvm_probe_failure,
                          Events* events);

}  // namespace kbisect
