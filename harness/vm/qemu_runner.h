// The qemu runner: QEMU as a direct child process (run_process: own process group, no shell),
// the serial console on its stdout, a pidfile per VM in <workdir>/vms so a later run can kill
// what a crashed one left behind.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "vm/vm_run.h"

namespace kbisect {

// The QEMU command line for a plan; the console is the process's stdout.
std::vector<std::string> qemu_argv(const VmPlan& plan, const std::filesystem::path& pidfile);

// Pins each vCPU thread of QEMU `qemu_pid` ("CPU <n>/TCG" or "CPU <n>/KVM" with
// debug-threads=on) to its host CPU; returns how many it found.
size_t pin_vcpus(int qemu_pid, const std::vector<int>& host_cpus);

class QemuBackend : public VmBackend {
 public:
  explicit QemuBackend(const RunnerContext& context) : context_(context) {}
  std::string name() const override { return "qemu"; }
  std::string choose_accel(Accel wanted, const std::filesystem::path& kernel) override;
  std::string host_name() override;
  std::string hypervisor() override;
  VmEnding boot(const VmPlan& plan, const std::filesystem::path& console_log, PhaseClock& clock,
                ConsoleWatch& watch) override;

 private:
  const RunnerContext& context_;
};

class QemuRunner : public Runner {
 public:
  // Sweeps leftovers of earlier crashed runs first.
  explicit QemuRunner(RunnerContext context);
  RunResult run(const RunRequest& request) override;
  RunPlace place(const RunRequest& request) override;

 private:
  RunnerContext context_;
  QemuBackend backend_;
};

}  // namespace kbisect
