#include "vm/vm_run.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/sha256.h"

namespace kbisect {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

VmSpec limits() {
  VmSpec vm;
  vm.boot_timeout_seconds = 1000;
  vm.workload_timeout_seconds = 2000;
  return vm;
}

TEST(PhaseClock, BootLimitUntilInitThenWorkloadLimit) {
  PhaseClock clock(limits());
  ConsoleWatch watch;
  watch.line("[    0.52] Run /init as init process");
  clock.follow(watch);
  EXPECT_LT(clock.deadline(), Clock::now() + seconds(1001));
  watch.line("KBISECT-PROGRESS init");
  clock.follow(watch);
  EXPECT_GT(clock.deadline(), Clock::now() + seconds(1500));
  EXPECT_EQ(clock.phase_limit(), "2000 s");
}

TEST(PhaseClock, AFrameLeavesTheGuestOnlyTheShutdownGrace) {
  PhaseClock clock(limits());
  ConsoleWatch watch;
  watch.line("KBISECT-PROGRESS init");
  const std::string payload = R"({"jobs":[{"jobname":"a"}]})";
  watch.line(fmt::format("KBISECT-BEGIN result {} {}", payload.size(), sha256_hex(payload)));
  watch.line("KBISECT-DATA eyJqb2JzIjpbeyJqb2JuYW1lIjoiYSJ9XX0=");
  clock.follow(watch);
  EXPECT_GT(clock.deadline(), Clock::now() + seconds(1500)) << "an unfinished frame is no end";
  watch.line("KBISECT-END result");
  clock.follow(watch);
  EXPECT_LE(clock.deadline(), Clock::now() + PhaseClock::kShutdownGrace);
  EXPECT_GT(clock.deadline(), Clock::now());
}

// A resumed session refused for its environment says which part of it changed.
TEST(Environment, AChangeSaysWhichPartChanged) {
  EXPECT_EQ(environment_change("initramfs-aa-bb; QEMU 7.2", "initramfs-cc-bb; QEMU 7.2"), "kdio");
  EXPECT_EQ(environment_change("initramfs-aa-bb; QEMU 7.2", "initramfs-aa-dd; QEMU 8.0"),
            "the guest's init, busybox, mkfs tools or their libraries, the hypervisor (QEMU 7.2 "
            "-> QEMU 8.0)");
  EXPECT_EQ(environment_change("sim", "initramfs-aa-bb; QEMU 7.2"),
            "the guest image or the hypervisor");
}

}  // namespace
}  // namespace kbisect
