#include "vm/accel.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/file.h"
#include "common/json_text.h"
#include "common/local_process.h"
#include "common/process.h"
#include "vm/vm_run.h"

namespace kbisect {
namespace fs = std::filesystem;

std::string local_qemu_version() {
  const std::string version = run_checked({"qemu-system-x86_64", "--version"});
  return version.substr(0, version.find('\n'));
}

AccelHost local_accel_host() {
  const std::string version = local_qemu_version();
  AccelHost host;
  host.kvm_possible = ::access("/dev/kvm", R_OK | W_OK) == 0;
  host.key =
      fmt::format("{}|{}|kvm-device={}", this_host_name(), version, host.kvm_possible ? 1 : 0);
  return host;
}

std::string resolve_accel(Accel wanted, const AccelHost& host, const fs::path& cache_file,
                          const std::function<KvmProbe()>& probe_kvm, Events* events) {
  if (wanted == Accel::kKvm) return "kvm";
  if (wanted == Accel::kTcg) return "tcg";
  if (!host.kvm_possible) {
    warn(events, "accel auto: no usable /dev/kvm; guests run under TCG (much slower)");
    return "tcg";
  }
  nlohmann::json cache = nlohmann::json::object();
  if (std::ifstream in(cache_file); in) {
    cache = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!cache.is_object()) cache = nlohmann::json::object();
  }
  // The file may be damaged or in an older form (a bare "tcg"): an entry that is not
  // {"accel": "kvm" or "tcg", "why": ...} is probed again.
  const nlohmann::json known = cache.value(host.key, nlohmann::json::object());
  auto text = [&](const char* key) {
    return known.is_object() && known.contains(key) && known[key].is_string()
               ? known[key].get<std::string>()
               : std::string();
  };
  std::string accel = text("accel");
  std::string why = text("why");
  if (accel != "kvm" && accel != "tcg") {
    const KvmProbe probe = probe_kvm();
    if (probe.answer == KvmProbe::Answer::kUnknown) {
      warn(events, fmt::format("accel auto: the kernel under test boots under neither KVM nor TCG "
                               "({}), which tells nothing about KVM; guests run under KVM, and "
                               "the next kbisect command probes again",
                               probe.why));
      return "kvm";
    }
    accel = probe.answer == KvmProbe::Answer::kWorks ? "kvm" : "tcg";
    why = probe.why;
    cache[host.key] = {{"accel", accel}, {"why", why}};
    fs::create_directories(cache_file.parent_path());
    write_file_atomically(cache_file, json_text(cache, 2) + '\n');
  }
  if (accel == "tcg") {
    warn(events, fmt::format("accel auto: /dev/kvm is present but a kernel did not boot under KVM "
                             "on this host ({}); guests run under TCG, much slower (the answer "
                             "is cached in {}: delete it to probe again)",
                             why, cache_file.string()));
  }
  return accel;
}

}  // namespace kbisect
