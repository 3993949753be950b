// Shared by the VM integration tests: the test kernel, a scenario with a short kdio job, the
// check of its result, a check that no VM of a given kbisect process is left, and the fixture
// the runners' tests share.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/local_process.h"
#include "common/process.h"
#include "config/scenario.h"
#include "vm/vm_run.h"

namespace kbisect::testing {

namespace fs = std::filesystem;

// The kernel image under test: KBISECT_TEST_KERNEL (environment, or the CMake cache variable
// of the same name which the test's environment carries). Empty when not given.
inline fs::path test_kernel() {
  const char* kernel = std::getenv("KBISECT_TEST_KERNEL");
  return kernel != nullptr ? fs::path(kernel) : fs::path();
}

inline std::string missing_kernel_message() {
  return "KBISECT_TEST_KERNEL is not set (or not a file): these tests boot a real guest kernel. "
         "Build one (tinyconfig + vmimages/kconfig/guest.config) and configure with "
         "-DKBISECT_TEST_KERNEL=/path/to/bzImage or export KBISECT_TEST_KERNEL";
}

inline fs::path fresh_dir(std::string name) {
  std::replace(name.begin(), name.end(), '/', '-');  // parameterised tests: "Name/0"
  fs::path dir = fs::temp_directory_path() / fmt::format("kbisect-vm-test-{}-{}", ::getpid(), name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline Scenario short_job_scenario(const fs::path& workdir, FilesystemKind filesystem) {
  Scenario scenario;
  scenario.name = "vm-integration";
  scenario.workdir = workdir;
  scenario.vm.vcpus = 2;
  scenario.vm.memory_mib = 512;
  scenario.vm.boot_timeout_seconds = 60;
  scenario.vm.workload_timeout_seconds = 300;
  scenario.device.image = workdir / "nvme.img";
  scenario.device.size_bytes = 1ull << 30;
  scenario.filesystem.kind = filesystem;
  scenario.filesystem.mount_options = "noatime";
  scenario.workload.job_files = {KBISECT_SOURCE_DIR "/tests/vm/jobs/short-randread.fio"};
  return scenario;
}

// A guest whose init never reports in (busybox sleep as PID 1; arguments after "--" go to
// init): the boot deadline, `boot_timeout_seconds`, is what ends it.
inline Scenario hanging_init_scenario(const fs::path& workdir, int boot_timeout_seconds) {
  Scenario scenario = short_job_scenario(workdir, FilesystemKind::kExt4);
  scenario.kernel.cmdline_extra = "rdinit=/bin/busybox -- sleep 3600";
  scenario.vm.boot_timeout_seconds = boot_timeout_seconds;
  return scenario;
}

// The run of hanging_init_scenario(_, seconds) ended at its boot deadline.
inline void expect_boot_deadline(const RunResult& result, int seconds) {
  EXPECT_EQ(outcome_name(result.outcome), std::string("boot-failed"));
  EXPECT_NE(result.detail.find(fmt::format("no init within {} s", seconds)), std::string::npos)
      << result.detail;
}

inline RunnerContext test_context(const fs::path& workdir) {
  RunnerContext context;
  context.workdir = workdir;
  context.image.kdio = KBISECT_TEST_KDIO;
  return context;
}

// A short job's run ended well: kdio's result parsed, both phases timed.
inline void expect_job_result(const RunResult& result) {
  ASSERT_EQ(outcome_name(result.outcome), std::string("ok")) << result.detail;
  auto json = nlohmann::json::parse(result.kdio_json);
  ASSERT_FALSE(json["jobs"].empty());
  EXPECT_GT(result.boot_seconds, 0);
  EXPECT_GT(result.workload_seconds, 0);
  EXPECT_TRUE(result.accel == "kvm" || result.accel == "tcg") << result.accel;
  EXPECT_EQ(result.host, this_host_name());  // a remote URI's host is this one too, here
  std::cout << fmt::format("boot {:.1f} s, workload {:.1f} s under {} (mkfs, kdio job, result)\n",
                           result.boot_seconds, result.workload_seconds, result.accel);
}

// QEMU processes whose command line names a VM of kbisect process `pid`.
inline std::string qemu_processes_of(int pid) {
  ProcessResult result =
      run_process({"pgrep", "-af", "--", fmt::format("qemu-system.*kbisect-{}-", pid)});
  return result.exit_code == 0 ? result.output_tail : "";
}

// A runner's test: fails without the test kernel, works in a fresh directory that is kept
// (with the guest's console logs) when the test fails, and checks that no QEMU is left.
class VmRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel_ = test_kernel();
    if (kernel_.empty() || !fs::is_regular_file(kernel_)) GTEST_FAIL() << missing_kernel_message();
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    EXPECT_EQ(qemu_processes_of(::getpid()), "") << "a QEMU process was left behind";
    if (!HasFailure()) fs::remove_all(dir_);
  }

  RunResult run(Runner& runner, Scenario& scenario) {
    RunRequest request;
    request.kernel_image = kernel_;
    request.scenario = &scenario;
    request.log_dir = dir_ / "logs";
    return runner.run(request);
  }

  fs::path kernel_;
  fs::path dir_;
};

}  // namespace kbisect::testing
