// The qemu runner against a real guest kernel: a short kdio job on ext4 and on xfs, a kernel
// that panics, a guest that never reaches init, a stale QEMU swept, and SIGTERM mid-run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/file.h"
#include "common/fork_for_test.h"
#include "tests/vm/vm_test_support.h"
#include "vm/initramfs.h"
#include "vm/qemu_runner.h"

namespace kbisect::testing {
namespace {

class QemuRunnerTest : public VmRunnerTest {
 protected:
  RunResult run(Scenario& scenario) {
    QemuRunner runner(test_context(dir_));
    return VmRunnerTest::run(runner, scenario);
  }
};

// With a second job whose description shows the environment kdio runs with: it is the one the
// host checks job files with.
TEST_F(QemuRunnerTest, ShortJobOnExt4) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  scenario.workload.job_files.push_back(KBISECT_SOURCE_DIR "/tests/vm/jobs/guest-env.fio");
  scenario.workload.vars = {{"waited", "a value of the workload"}};
  RunResult result = run(scenario);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(result));
  EXPECT_NE(read_file(result.console_log).find("KBISECT-PROGRESS mkfs-done"), std::string::npos);

  const auto jobs = nlohmann::json::parse(result.kdio_json)["jobs"];
  ASSERT_EQ(jobs.size(), 2u);
  const std::string seen = jobs[1]["job options"]["description"];
  const std::map<std::string, std::string> model =
      guest_environment(guest_run_for(scenario, nullptr));
  std::string expected;
  for (const char* name :
       {"KBISECT_DIR", "KBISECT_DEVICE", "KBISECT_FS", "KBISECT_MOUNT_OPTIONS", "PATH", "HOME",
        "TERM", "LD_LIBRARY_PATH", "SHLVL", "OLDPWD", "PWD", "waited"}) {
    expected += fmt::format("{}{}={}", expected.empty() ? "" : " ", name, model.at(name));
  }
  EXPECT_EQ(seen, expected);
}

// Runs of one commit share a log directory: each keeps its own console log, which the runs
// table names, and the per-run image does not stay behind.
TEST_F(QemuRunnerTest, EachRunKeepsItsOwnConsoleLog) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  const RunResult first = run(scenario);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(first));
  EXPECT_TRUE(first.init_reached);
  const std::string first_log = read_file(first.console_log);
  const RunResult second = run(scenario);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(second));
  EXPECT_NE(second.console_log, first.console_log);
  EXPECT_EQ(read_file(first.console_log), first_log);
  EXPECT_NE(read_file(second.console_log).find("KBISECT-PROGRESS mkfs-done"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "logs" / "initramfs.cpio"));
}

TEST_F(QemuRunnerTest, ShortJobOnXfs) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kXfs);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(run(scenario)));
}

TEST_F(QemuRunnerTest, PanickingKernelIsBootFailed) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  // No initramfs init and no root device: the kernel panics, panic=-1 ends the VM.
  scenario.kernel.cmdline_extra = "rdinit=/nonexistent root=/dev/nonexistent";
  RunResult result = run(scenario);
  EXPECT_EQ(outcome_name(result.outcome), std::string("boot-failed"));
  EXPECT_NE(result.detail.find("Kernel panic"), std::string::npos) << result.detail;
  EXPECT_FALSE(result.init_reached);
}

TEST_F(QemuRunnerTest, HangBeforeInitIsBootFailedAtTheDeadline) {
  Scenario scenario = hanging_init_scenario(dir_, 15);
  ASSERT_NO_FATAL_FAILURE(expect_boot_deadline(run(scenario), 15));
}

TEST_F(QemuRunnerTest, FailingMkfsIsWorkloadFailed) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kXfs);
  scenario.filesystem.mkfs_options = {"-b", "size=3"};
  RunResult result = run(scenario);
  EXPECT_EQ(outcome_name(result.outcome), std::string("workload-failed"));
  EXPECT_NE(result.detail.find("stage=mkfs"), std::string::npos) << result.detail;
}

// The accel probe's guest: init reports in and stops at once. Here under TCG (no usable
// /dev/kvm on this machine); accel auto runs the same boot with -accel kvm.
TEST_F(QemuRunnerTest, ProbeImageReportsInAndStops) {
  RunnerContext context = test_context(dir_);
  QemuBackend backend(context);
  VmSpec quick;
  quick.boot_timeout_seconds = 60;
  PhaseClock clock(quick);
  ConsoleWatch watch;
  VmEnding ending =
      backend.boot(probe_plan(context, kernel_, "tcg", dir_), dir_ / "probe.log", clock, watch);
  EXPECT_EQ(ending.end, VmEnd::kExited) << ending.detail;
  EXPECT_TRUE(watch.init_reached());
  EXPECT_FALSE(watch.frames().saw_progress("device"));
}

TEST_F(QemuRunnerTest, StaleQemuOfADeadRunIsSwept) {
  // A process that is gone: its pid names the leftover VM.
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  std::string name = fmt::format("kbisect-{}-1", dead);
  fs::create_directories(dir_ / "vms");
  run_checked({"qemu-system-x86_64", "-name", name + ",debug-threads=on", "-accel", "tcg",
               "-nodefaults", "-display", "none", "-S", "-daemonize", "-pidfile",
               (dir_ / "vms" / (name + ".pid")).string()});
  ASSERT_NE(qemu_processes_of(dead), "");
  QemuRunner runner(test_context(dir_));
  for (int i = 0; i < 50 && !qemu_processes_of(dead).empty(); ++i) ::usleep(100000);
  EXPECT_EQ(qemu_processes_of(dead), "");
  EXPECT_FALSE(fs::exists(dir_ / "vms" / (name + ".pid")));
}

// Ctrl-C, SIGTERM or SIGHUP (the terminal closed) to kbisect while a guest runs: QEMU's
// process group is killed.
class QemuSignalTest : public QemuRunnerTest, public ::testing::WithParamInterface<int> {};

TEST_P(QemuSignalTest, SignalMidRunLeavesNoQemu) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  scenario.vm.boot_timeout_seconds = 120;
  pid_t child = fork_running([&] { run(scenario); });
  // Wait for the guest to report in, then stop the kbisect process.
  fs::path log = dir_ / "logs" / "console-1.log";
  for (int i = 0; i < 600; ++i) {
    if (read_file_if_present(log).value_or("").find("KBISECT-PROGRESS init") != std::string::npos) {
      break;
    }
    ::usleep(100000);
  }
  EXPECT_NE(qemu_processes_of(child), "");
  ::kill(child, GetParam());
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(ended_interrupted(status)) << status;
  EXPECT_EQ(qemu_processes_of(child), "");
}

INSTANTIATE_TEST_SUITE_P(SigintSigtermSighup, QemuSignalTest,
                         ::testing::Values(SIGINT, SIGTERM, SIGHUP));

}  // namespace
}  // namespace kbisect::testing
