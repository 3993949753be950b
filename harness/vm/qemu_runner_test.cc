#include "vm/qemu_runner.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "common/error.h"
#include "common/file.h"
#include "common/process.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

VmPlan emulated_plan() {
  VmPlan plan;
  plan.name = "kbisect-1-2";
  plan.kernel = "/k/bzImage";
  plan.initrd = "/k/initrd.cpio";
  plan.cmdline = "console=ttyS0,115200 panic=-1";
  plan.accel = "tcg";
  plan.vcpus = 4;
  plan.memory_mib = 2048;
  plan.disk_image = "/data/a,b/nvme.img";
  plan.disk_cache = "none";
  return plan;
}

// The value after `option`, or "" when absent.
std::string value_of(const std::vector<std::string>& argv, std::string_view option) {
  auto it = std::find(argv.begin(), argv.end(), option);
  return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

// A thread of this process named as QEMU names a vCPU thread stands in for QEMU's.
class VcpuThread {
 public:
  VcpuThread() : thread_([this] { released_.wait(false); }) {
    pthread_setname_np(thread_.native_handle(), "CPU 0/TCG");
  }
  ~VcpuThread() {
    released_ = true;
    released_.notify_one();
    thread_.join();
  }

 private:
  std::atomic<bool> released_{false};
  std::thread thread_;
};

// A CPU this process may run on (a container's cpuset need not hold CPU 0).
int allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) return cpu;
  }
  return 0;
}

TEST(PinVcpus, PinsTheThreadsQemuNamesAsVcpus) {
  VcpuThread vcpu;
  EXPECT_EQ(pin_vcpus(getpid(), {allowed_cpu()}), 1u);
}

TEST(PinVcpus, AHostCpuThatIsNotThereIsAnErrorNamingTheKey) {
  VcpuThread vcpu;
  try {
    pin_vcpus(getpid(), {1023});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("host CPU 1023: Invalid argument; check vm.pin "),
              std::string::npos)
        << error.what();
  }
}

TEST(QemuArgv, DirectKernelBootWithEmulatedNvme) {
  auto argv = qemu_argv(emulated_plan(), "/w/vms/kbisect-1-2.pid");
  EXPECT_EQ(argv.front(), "qemu-system-x86_64");
  EXPECT_EQ(value_of(argv, "-kernel"), "/k/bzImage");
  EXPECT_EQ(value_of(argv, "-initrd"), "/k/initrd.cpio");
  EXPECT_EQ(value_of(argv, "-append"), "console=ttyS0,115200 panic=-1");
  EXPECT_EQ(value_of(argv, "-accel"), "tcg");
  EXPECT_EQ(value_of(argv, "-m"), "2048");
  EXPECT_EQ(value_of(argv, "-smp"), "4");
  EXPECT_EQ(value_of(argv, "-serial"), "stdio");
  EXPECT_EQ(value_of(argv, "-pidfile"), "/w/vms/kbisect-1-2.pid");
  EXPECT_EQ(value_of(argv, "-name"), "kbisect-1-2,debug-threads=on");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-no-reboot"), argv.end());
  // The comma in the path is doubled for QEMU's option parser.
  EXPECT_EQ(value_of(argv, "-drive"),
            "file=/data/a,,b/nvme.img,if=none,id=nvm,format=raw,cache=none");
  EXPECT_EQ(value_of(argv, "-device"), "nvme,serial=kbisect0,drive=nvm");
}

TEST(QemuArgv, KvmUsesTheHostCpu) {
  VmPlan plan = emulated_plan();
  plan.accel = "kvm";
  auto argv = qemu_argv(plan, "/p");
  EXPECT_EQ(value_of(argv, "-accel"), "kvm");
  EXPECT_EQ(value_of(argv, "-cpu"), "host");
}

TEST(QemuArgv, PassthroughUsesVfioAndNoDrive) {
  VmPlan plan = emulated_plan();
  plan.device = DeviceKind::kNvmePassthrough;
  plan.pci_address = "0000:01:00.0";
  auto argv = qemu_argv(plan, "/p");
  EXPECT_EQ(value_of(argv, "-device"), "vfio-pci,host=0000:01:00.0");
  EXPECT_EQ(value_of(argv, "-drive"), "");
}

TEST(QemuArgv, ProbeHasNoDevice) {
  VmPlan plan = emulated_plan();
  plan.disk_image.clear();
  auto argv = qemu_argv(plan, "/p");
  EXPECT_EQ(value_of(argv, "-drive"), "");
  EXPECT_EQ(value_of(argv, "-device"), "");
}

// The argv is accepted by the real QEMU: it parses every option before it needs the kernel.
TEST(QemuArgv, QemuAcceptsTheOptions) {
  VmPlan plan = emulated_plan();
  plan.kernel = "/nonexistent/bzImage";
  plan.disk_image.clear();
  auto argv = qemu_argv(plan, "/tmp/kbisect-argv-test.pid");
  ProcessResult result = run_process(argv);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.output_tail.find("/nonexistent/bzImage"), std::string::npos)
      << result.output_tail;
}

TEST(VmName, CarriesThePid) {
  std::string name = next_vm_name();
  EXPECT_EQ(vm_name_pid(name), ::getpid());
  EXPECT_NE(next_vm_name(), name);
  for (std::string_view other :
       {"kbisect-", "kbisect-12", "kbisect-x-1", "other-1-2", "kbisect--1-2"}) {
    EXPECT_EQ(vm_name_pid(other), 0) << other;
  }
  EXPECT_EQ(vm_name_pid("kbisect-123-7"), 123);
}

TEST(BackingFile, CreatedSparseWithItsSizeAndCacheModeChecked) {
  DeviceSpec device;
  TempDir dir("/var/tmp");
  device.image = dir.path() / "sub/nvme.img";
  device.size_bytes = 1ull << 30;
  EXPECT_EQ(prepare_backing_file(device, nullptr), "none");  // ext4 here: O_DIRECT works
  EXPECT_EQ(std::filesystem::file_size(device.image), 1ull << 30);
  struct stat info {};
  ::stat(device.image.c_str(), &info);
  EXPECT_LT(info.st_blocks * 512, 1 << 20) << "the backing file must be sparse";
}

// QEMU stand-ins: `script` as qemu-system-x86_64 first in PATH while the object lives.
class FakeQemu {
 public:
  explicit FakeQemu(const std::string& script) : path_(std::getenv("PATH")) {
    write_file(dir_.path() / "qemu-system-x86_64", "#!/bin/sh\n" + script);
    std::filesystem::permissions(dir_.path() / "qemu-system-x86_64",
                                 std::filesystem::perms::owner_all);
    ::setenv("PATH", (dir_.path().string() + ":" + path_).c_str(), 1);
  }
  ~FakeQemu() { ::setenv("PATH", path_.c_str(), 1); }

  // One boot of an emulated plan through this QEMU.
  VmEnding boot() {
    RunnerContext context;
    context.workdir = dir_.path() / "work";
    QemuBackend backend(context);
    VmPlan plan = emulated_plan();
    plan.name = next_vm_name();
    VmSpec spec;
    PhaseClock clock(spec);
    ConsoleWatch watch;
    return backend.boot(plan, dir_.path() / "console.log", clock, watch);
  }

 private:
  TempDir dir_;
  std::string path_;
};

TEST(QemuBackend, QemuThatFailsBeforeTheKernelDidNotStartTheVm) {
  FakeQemu qemu("echo 'qemu-system-x86_64: could not open kernel file' >&2; exit 1\n");
  VmEnding ending = qemu.boot();
  EXPECT_EQ(ending.end, VmEnd::kStartFailed);
  EXPECT_NE(ending.detail.find("could not open kernel file"), std::string::npos) << ending.detail;
}

// An emulated device's assertion that the guest set off: the VM did start, so it is no fault
// of this host's set-up that would stop the bisection.
TEST(QemuBackend, QemuThatDiesAfterTheKernelStartedIsNotAStartFailure) {
  FakeQemu qemu(
      "echo '[    0.000000] Linux version 6.1.0'\n"
      "echo 'KBISECT-PROGRESS init'\n"
      "echo 'qemu-system-x86_64: ../hw/nvme/ctrl.c:1234: Assertion failed.' >&2\n"
      "kill -ABRT $$\n");
  VmEnding ending = qemu.boot();
  EXPECT_EQ(ending.end, VmEnd::kQemuDied);
  EXPECT_NE(ending.detail.find("Assertion failed"), std::string::npos) << ending.detail;
}

TEST(QemuBackend, QemuStoppedBySigtermIsNotTheGuestsEnd) {
  FakeQemu qemu(
      "echo '[    0.000000] Linux version 6.1.0'\n"
      "echo 'KBISECT-PROGRESS init'\n"
      "echo 'qemu-system-x86_64: terminating on signal 15 from pid 42 (pkill)' >&2\n"
      "exit 0\n");
  VmEnding ending = qemu.boot();
  EXPECT_EQ(ending.end, VmEnd::kQemuDied);
  EXPECT_NE(ending.detail.find("terminating on signal 15"), std::string::npos) << ending.detail;
}

}  // namespace
}  // namespace kbisect
