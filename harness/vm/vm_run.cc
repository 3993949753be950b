#include "vm/vm_run.h"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <regex>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/events.h"
#include "common/interrupt.h"
#include "common/unique_fd.h"

namespace kbisect {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void warn(Events* events, const std::string& text) {
  if (events != nullptr) {
    events->note("warning", text);
  } else {
    fmt::print(stderr, "warning: {}\n", text);
  }
}

PhaseClock::PhaseClock(const VmSpec& vm)
    : start_(Clock::now()),
      boot_limit_(vm.boot_timeout_seconds),
      workload_limit_(vm.workload_timeout_seconds) {}

void PhaseClock::follow(const ConsoleWatch& watch) {
  if (watch.init_reached()) init_reached();
  if (!frame_time_ && !watch.frames().frames().empty()) frame_time_ = Clock::now();
}

void PhaseClock::init_reached() {
  if (!init_time_) init_time_ = Clock::now();
}

Clock::time_point PhaseClock::deadline() const {
  auto phase_end = init_time_ ? *init_time_ + workload_limit_ : start_ + boot_limit_;
  return frame_time_ ? std::min(phase_end, *frame_time_ + kShutdownGrace) : phase_end;
}

double PhaseClock::boot_seconds() const {
  return std::chrono::duration<double>(init_time_.value_or(Clock::now()) - start_).count();
}

double PhaseClock::workload_seconds() const {
  if (!init_time_) return 0;
  return std::chrono::duration<double>(Clock::now() - *init_time_).count();
}

std::string PhaseClock::phase_limit() const {
  return fmt::format("{} s", (init_time_ ? workload_limit_ : boot_limit_).count());
}

ConsoleLog::ConsoleLog(const fs::path& path, size_t max_bytes)
    : out_(path, std::ios::binary | std::ios::trunc), max_bytes_(max_bytes) {
  if (!out_) fail("cannot write the console log {}: {}", path.string(), errno_text(errno));
}

void ConsoleLog::line(std::string_view text) {
  if (flooded_) return;
  if (written_ + text.size() + 1 > max_bytes_) {
    flooded_ = true;
    out_ << "\n[kbisect: console output over " << max_bytes_ << " bytes; the VM was stopped]\n";
    out_.flush();
    return;
  }
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  // Flushed per line: the log can be followed while the VM runs.
  out_ << '\n' << std::flush;
  written_ += text.size() + 1;
}

namespace {

VmPlan plan_for(const RunnerContext& context, const RunRequest& request, const std::string& accel,
                const fs::path& initrd, Events* events) {
  const Scenario& scenario = *request.scenario;
  VmPlan plan;
  plan.name = next_vm_name();
  plan.kernel = fs::absolute(request.kernel_image);
  plan.initrd = fs::absolute(initrd);
  plan.cmdline = guest_cmdline(scenario);
  plan.accel = accel;
  plan.vcpus = scenario.vm.vcpus;
  plan.memory_mib = scenario.vm.memory_mib;
  plan.vcpu_pinning = scenario.vm.vcpu_pinning;
  plan.device = scenario.device.kind;
  if (plan.device == DeviceKind::kEmulatedNvme) {
    DeviceSpec device = scenario.device;
    if (device.image.empty()) device.image = context.workdir / "nvme.img";
    plan.disk_cache = prepare_backing_file(device, events);
    plan.disk_image = fs::absolute(device.image);
  } else {
    plan.pci_address = scenario.device.pci_address;
  }
  return plan;
}

// Removes a file however the scope ends, Ctrl-C and errors included.
class RemovedAtEnd {
 public:
  explicit RemovedAtEnd(fs::path path) : path_(std::move(path)) {}
  ~RemovedAtEnd() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  RemovedAtEnd(const RemovedAtEnd&) = delete;
  RemovedAtEnd& operator=(const RemovedAtEnd&) = delete;

 private:
  fs::path path_;
};

// Every boot gets a console log of its own, the first of console-1.log, console-2.log, ... not
// taken: the runs of a commit share `dir`, and each row of the runs table names its boot's log.
fs::path new_console_log(const fs::path& dir) {
  for (int n = 1;; ++n) {
    fs::path path = dir / fmt::format("console-{}.log", n);
    UniqueFd created(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (created) return path;
    if (errno != EEXIST) fail("cannot create {}: {}", path.string(), errno_text(errno));
  }
}

}  // namespace

VmPlan probe_plan(const RunnerContext& context, const fs::path& kernel, const std::string& accel,
                  const fs::path& dir) {
  GuestRun probe;
  probe.probe = true;
  fs::path initrd = dir / "probe-initramfs.cpio";
  write_run_initramfs(base_initramfs(context.image, context.workdir), probe, initrd);
  VmPlan plan;
  plan.name = next_vm_name();
  plan.kernel = fs::absolute(kernel);
  plan.initrd = fs::absolute(initrd);
  plan.cmdline = kGuestBaseCmdline;
  plan.accel = accel;
  plan.vcpus = 1;
  plan.memory_mib = 256;
  return plan;
}

RunPlace place_of(VmBackend& backend, const RunnerContext& context, const RunRequest& request) {
  if (request.scenario == nullptr) fail("internal error: run request without a scenario");
  return {backend.host_name(), backend.accel_for(request.scenario->vm.accel, request.kernel_image),
          fmt::format("{}; {}", base_initramfs(context.image, context.workdir).stem().string(),
                      backend.known_hypervisor())};
}

std::string environment_change(const std::string& before, const std::string& after) {
  // "initramfs-KDIO-RECIPE; HYPERVISOR", as place_of writes it.
  struct Parts {
    std::string kdio, recipe, hypervisor;
  };
  auto parts_of = [](const std::string& environment) -> std::optional<Parts> {
    static const std::regex kForm("initramfs-([0-9a-f]+)-([0-9a-f]+); (.*)");
    std::smatch match;
    if (!std::regex_match(environment, match, kForm)) return std::nullopt;
    return Parts{match[1], match[2], match[3]};
  };
  const std::optional<Parts> was = parts_of(before);
  const std::optional<Parts> is = parts_of(after);
  if (!was || !is) return "the guest image or the hypervisor";
  std::vector<std::string> changes;
  if (was->kdio != is->kdio) changes.push_back("kdio");
  if (was->recipe != is->recipe) {
    changes.push_back("the guest's init, busybox, mkfs tools or their libraries");
  }
  if (was->hypervisor != is->hypervisor) {
    changes.push_back(fmt::format("the hypervisor ({} -> {})", was->hypervisor, is->hypervisor));
  }
  return fmt::format("{}", fmt::join(changes, ", "));
}

RunResult run_vm(VmBackend& backend, const RunnerContext& context, const RunRequest& request) {
  const RunPlace place = place_of(backend, context, request);
  const Scenario& scenario = *request.scenario;
  fs::path log_dir = request.log_dir.empty() ? context.workdir / "runs" : request.log_dir;
  fs::create_directories(log_dir);

  fs::path initrd = log_dir / "initramfs.cpio";
  // The per-run image is only a copy of cached parts.
  RemovedAtEnd remove_initrd(initrd);
  const auto image_start = Clock::now();
  write_run_initramfs(base_initramfs(context.image, context.workdir),
                      guest_run_for(scenario, request.variant), initrd);

  RunResult result;
  result.host = place.host;
  result.environment = place.environment;
  result.image_seconds = std::chrono::duration<double>(Clock::now() - image_start).count();
  for (int attempt = 1; attempt <= 2; ++attempt) {
    VmPlan plan = plan_for(context, request, place.accel, initrd, context.events);
    result.console_log = new_console_log(log_dir);
    PhaseClock clock(scenario.vm);
    ConsoleWatch watch;
    VmEnding ending = backend.boot(plan, result.console_log, clock, watch);
    watch.finish();
    Classification verdict = classify(watch, ending.end, ending.detail);
    result.outcome = verdict.outcome;
    result.detail = verdict.detail;
    result.kdio_json = std::move(verdict.kdio_json);
    result.boot_seconds = clock.boot_seconds();
    result.workload_seconds = clock.workload_seconds();
    result.accel = place.accel;
    result.vm_started = ending.end != VmEnd::kStartFailed;
    result.init_reached = watch.init_reached();
    if (result.outcome != Outcome::kInfraError || attempt == 2) break;
    warn(context.events, fmt::format("{} run of {} failed ({}); retrying once", backend.name(),
                                     plan.name, result.detail));
  }
  return result;
}

namespace {

// Why the probe guest under `accel` did not report in within `boot_timeout_seconds`; nothing
// when it did.
std::optional<std::string> probe_boot_failure(VmBackend& backend, const RunnerContext& context,
                                              const fs::path& kernel, const std::string& accel,
                                              int boot_timeout_seconds) {
  fs::path dir = context.workdir / "accel-probe";
  fs::create_directories(dir);
  // Planned before the clock starts: the plan may build the base initramfs first.
  const VmPlan plan = probe_plan(context, kernel, accel, dir);
  VmSpec quick;
  quick.boot_timeout_seconds = boot_timeout_seconds;
  // The answer is in once init reports in; a guest that then hangs is not kept for long.
  quick.workload_timeout_seconds = 30;
  PhaseClock clock(quick);
  ConsoleWatch watch;
  VmEnding ending = backend.boot(plan, dir / "console.log", clock, watch);
  if (watch.init_reached()) return std::nullopt;
  if (ending.detail.empty()) return "the guest ended before its init reported in";
  // One line: libvirt's errors quote QEMU's stderr, lines and all.
  std::replace(ending.detail.begin(), ending.detail.end(), '\n', ' ');
  return ending.detail;
}

}  // namespace

KvmProbe probe_kvm(VmBackend& backend, const RunnerContext& context,
                   const std::filesystem::path& kernel) {
  std::optional<std::string> kvm = probe_boot_failure(backend, context, kernel, "kvm", 20);
  if (!kvm) return {KvmProbe::Answer::kWorks, ""};
  const int tcg_timeout = VmSpec{}.boot_timeout_seconds;
  if (probe_boot_failure(backend, context, kernel, "tcg", tcg_timeout)) {
    return {KvmProbe::Answer::kUnknown, *kvm};
  }
  return {KvmProbe::Answer::kFails, *kvm};
}

}  // namespace kbisect
