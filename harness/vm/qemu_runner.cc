#include "vm/qemu_runner.h"

#include <sched.h>
#include <signal.h>

#include "common/error.h"
#include "common/file.h"
#include "common/local_process.h"
#include "common/printable.h"
#include "common/process.h"
#include "vm/accel.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

// The most of QEMU's last output line a failure's detail quotes.
constexpr size_t kMaxQemuLine = 300;

int read_pid(const fs::path& pidfile) {
  try {
    return std::stoi(read_file(pidfile));
  } catch (const std::exception&) {
    return 0;
  }
}

// Kills QEMU processes recorded in <workdir>/vms whose kbisect process is gone; returns how
// many it killed.
int sweep_stale_qemu(const fs::path& workdir) {
  int killed = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(workdir / "vms", error)) {
    if (entry.path().extension() != ".pid") continue;
    std::string name = entry.path().stem().string();
    int owner = vm_name_pid(name);
    if (owner == 0 || process_exists(owner)) continue;
    int qemu = read_pid(entry.path());
    // Only a process that is this VM's QEMU: its command line names the VM.
    std::string cmdline = read_file_if_present(fmt::format("/proc/{}/cmdline", qemu)).value_or("");
    if (qemu > 0 && cmdline.find(name + ",debug-threads=on") != std::string::npos &&
        ::kill(qemu, SIGKILL) == 0) {
      ++killed;
    }
    fs::remove(entry.path(), error);
  }
  return killed;
}

}  // namespace

size_t pin_vcpus(int qemu_pid, const std::vector<int>& host_cpus) {
  size_t pinned = 0;
  std::error_code error;
  for (const auto& task : fs::directory_iterator(fmt::format("/proc/{}/task", qemu_pid), error)) {
    std::string comm = read_file_if_present(task.path() / "comm").value_or("");
    int vcpu = -1;
    if (std::sscanf(comm.c_str(), "CPU %d/", &vcpu) != 1 || vcpu < 0 ||
        vcpu >= static_cast<int>(host_cpus.size())) {
      continue;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(host_cpus[vcpu], &set);
    int tid = std::stoi(task.path().filename().string());
    if (::sched_setaffinity(tid, sizeof set, &set) != 0) {
      fail("cannot pin vCPU {} to host CPU {}: {}; check vm.pin against nproc", vcpu,
           host_cpus[vcpu], errno_text(errno));
    }
    ++pinned;
  }
  return pinned;
}

std::vector<std::string> qemu_argv(const VmPlan& plan, const fs::path& pidfile) {
  std::vector<std::string> argv = {
      "qemu-system-x86_64",
      "-name",
      plan.name + ",debug-threads=on",
      "-accel",
      plan.accel,
      "-cpu",
      plan.accel == "kvm" ? "host" : "max",
      "-m",
      std::to_string(plan.memory_mib),
      "-smp",
      std::to_string(plan.vcpus),
      "-nodefaults",
      "-no-user-config",
      "-display",
      "none",
      "-serial",
      "stdio",
      "-monitor",
      "none",
      "-no-reboot",
      "-pidfile",
      pidfile.string(),
      "-kernel",
      plan.kernel.string(),
      "-initrd",
      plan.initrd.string(),
      "-append",
      plan.cmdline,
  };
  if (plan.has_backing_file()) {
    const auto drive = emulated_nvme_args(plan);
    argv.insert(argv.end(), drive.begin(), drive.end());
  } else if (plan.device == DeviceKind::kNvmePassthrough) {
    argv.insert(argv.end(), {"-device", "vfio-pci,host=" + plan.pci_address});
  }
  return argv;
}

std::string QemuBackend::host_name() {
  return this_host_name();
}

std::string QemuBackend::hypervisor() {
  return local_qemu_version();
}

std::string QemuBackend::choose_accel(Accel wanted, const fs::path& kernel) {
  return resolve_accel(
      wanted, local_accel_host(), context_.workdir / "accel-cache.json",
      [&] { return probe_kvm(*this, context_, kernel); }, context_.events);
}

VmEnding QemuBackend::boot(const VmPlan& plan, const fs::path& console_log, PhaseClock& clock,
                           ConsoleWatch& watch) {
  if (plan.device == DeviceKind::kNvmePassthrough) check_passthrough(plan.pci_address, true);
  fs::path pidfile = context_.workdir / "vms" / (plan.name + ".pid");
  fs::create_directories(pidfile.parent_path());
  ConsoleLog log(console_log, context_.max_console_bytes);
  bool pinned = plan.vcpu_pinning.empty();
  // An error inside the output callback must not leave run_process before it kills QEMU:
  // it ends the VM through the deadline and is thrown afterwards.
  std::exception_ptr callback_error;

  ProcessOptions options;
  options.tail_bytes = 4096;
  options.on_line = [&](std::string_view line) {
    // QEMU has made its vCPU threads (and its pidfile) by the time the guest prints.
    if (!pinned && !callback_error) {
      try {
        pinned = pin_vcpus(read_pid(pidfile), plan.vcpu_pinning) == plan.vcpu_pinning.size();
      } catch (...) {
        callback_error = std::current_exception();
      }
    }
    log.line(line);
    if (log.flooded()) return;
    watch.line(line);
    clock.follow(watch);
  };
  options.deadline = [&] {
    return log.flooded() || callback_error ? std::chrono::steady_clock::now() : clock.deadline();
  };
  ProcessResult result;
  try {
    result = run_process(qemu_argv(plan, pidfile), options);
  } catch (...) {
    std::error_code ignored;
    fs::remove(pidfile, ignored);
    throw;
  }
  std::error_code ignored;
  fs::remove(pidfile, ignored);
  if (callback_error) std::rethrow_exception(callback_error);

  if (log.flooded())
    return {VmEnd::kConsoleFlood, fmt::format("{} bytes", context_.max_console_bytes)};
  if (result.timed_out) return {VmEnd::kDeadline, clock.phase_limit()};
  std::string tail = result.output_tail;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  // With -serial stdio, QEMU's last line can be the guest's.
  const std::string last_line = printable_ascii(tail.substr(tail.rfind('\n') + 1), kMaxQemuLine);
  if (result.exit_code != 0) {
    return {watch.kernel_started() ? VmEnd::kQemuDied : VmEnd::kStartFailed,
            fmt::format("QEMU exited with {}: {}", result.exit_code, last_line)};
  }
  // A SIGTERM from outside (pkill, a host shutdown) ends QEMU with status 0, as a guest's
  // power-off does: the guest did not end this run.
  if (last_line.find(": terminating on signal ") != std::string::npos) {
    return {VmEnd::kQemuDied, last_line};
  }
  return {VmEnd::kExited, ""};
}

QemuRunner::QemuRunner(RunnerContext context) : context_(std::move(context)), backend_(context_) {
  if (int killed = sweep_stale_qemu(context_.workdir)) {
    warn(context_.events,
         fmt::format("killed {} QEMU process(es) left by an earlier kbisect run", killed));
  }
}

RunResult QemuRunner::run(const RunRequest& request) {
  return run_vm(backend_, context_, request);
}

RunPlace QemuRunner::place(const RunRequest& request) {
  return place_of(backend_, context_, request);
}

}  // namespace kbisect
