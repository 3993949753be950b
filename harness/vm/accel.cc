#include "vm/accel.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/local_process.h"
#include "common/process.h"
#include "vm/vm_run.h"

namespace kbisect {
namespace fs = std::filesystem;

AccelHost local_accel_host() {
  std::string version = run_checked({"qemu-system-x86_64", "--version"});
  version = version.substr(0, version.find('\n'));
  AccelHost host;
  host.kvm_possible = ::access("/dev/kvm", R_OK | W_OK) == 0;
  host.key =
      fmt::format("{}|{}|kvm-device={}", this_host_name(), version, host.kvm_possible ? 1 : 0);
  return host;
}

std::string resolve_accel(Accel wanted, const AccelHost& host, const fs::path& cache_file,
                          const std::function<bool()>& kvm_boots, Events* events) {
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
  std::string accel;
  if (auto known = cache.find(host.key); known != cache.end() && known->is_string()) {
    accel = known->get<std::string>();
  } else {
    accel = kvm_boots() ? "kvm" : "tcg";
    cache[host.key] = accel;
    fs::create_directories(cache_file.parent_path());
    fs::path temporary = cache_file;
    temporary += fmt::format(".tmp{}", ::getpid());
    std::ofstream(temporary) << cache.dump(2) << '\n';
    fs::rename(temporary, cache_file);
  }
  if (accel == "tcg") {
    warn(events, fmt::format("accel auto: /dev/kvm is present but a kernel did not boot under KVM "
                             "on this host (probe cached in {}); guests run under TCG",
                             cache_file.string()));
  }
  return accel;
}

}  // namespace kbisect
