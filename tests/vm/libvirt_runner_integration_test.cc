// The libvirt runner against a real guest kernel on qemu:///system (libvirtd started by the
// `libvirt` test fixture): a short kdio job on ext4, on xfs and through a remote URI, a workdir
// QEMU cannot reach, a kernel that panics, a guest that never reaches init, a domain destroyed
// from outside, kbisect stopped mid-run by a signal, and no kbisect domain left afterwards.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <functional>
#include <thread>

#include "common/file.h"
#include "common/fork_for_test.h"
#include "tests/vm/vm_test_support.h"
#include "vm/libvirt_runner.h"

namespace kbisect::testing {
namespace {

constexpr const char* kUri = "qemu:///system";

// Names of the kbisect domains libvirt knows, running or defined.
std::vector<std::string> kbisect_domains() {
  VirConnection connection = open_libvirt(kUri);
  virDomainPtr* domains = nullptr;
  int count = virConnectListAllDomains(connection.get(), &domains, 0);
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    VirDomain domain(domains[i]);
    std::string name = virDomainGetName(domain.get());
    if (name.starts_with("kbisect-")) names.push_back(name);
  }
  ::free(domains);
  return names;
}

class LibvirtRunnerTest : public VmRunnerTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(VmRunnerTest::SetUp());
    // QEMU runs as libvirt's qemu user: everything it opens must be reachable for it.
    fs::permissions(dir_, fs::perms::all);
  }
  void TearDown() override {
    EXPECT_EQ(kbisect_domains(), std::vector<std::string>()) << "a kbisect domain was left behind";
    VmRunnerTest::TearDown();
  }

  RunResult run(Scenario& scenario) {
    LibvirtRunner runner(test_context(dir_), kUri);
    return VmRunnerTest::run(runner, scenario);
  }

  // Runs a guest that hangs after init and ends each of the runner's two attempts with `end`
  // once its init runs; the run's result.
  RunResult run_ending_each_attempt(const std::function<void()>& end) {
    Scenario scenario = hanging_init_scenario(dir_, 120);
    RunResult result;
    std::thread runner([&] { result = run(scenario); });
    for (int attempt = 1; attempt <= 2; ++attempt) {
      fs::path log = dir_ / "logs" / fmt::format("console-{}.log", attempt);
      int waited = 0;
      while (read_file_if_present(log).value_or("").find("as init process") == std::string::npos &&
             ++waited < 1200) {
        ::usleep(100000);
      }
      EXPECT_LT(waited, 1200) << "attempt " << attempt << " did not start its guest";
      end();
    }
    runner.join();
    return result;
  }
};

TEST_F(LibvirtRunnerTest, ShortJobOnExt4) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(run(scenario)));
}

TEST_F(LibvirtRunnerTest, ShortJobOnXfs) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kXfs);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(run(scenario)));
}

TEST_F(LibvirtRunnerTest, PanickingKernelIsBootFailed) {
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  scenario.kernel.cmdline_extra = "rdinit=/nonexistent root=/dev/nonexistent";
  RunResult result = run(scenario);
  EXPECT_EQ(outcome_name(result.outcome), std::string("boot-failed"));
  EXPECT_NE(result.detail.find("Kernel panic"), std::string::npos) << result.detail;
}

// A remote URI: the runner treats the host as another one (no sweep by pid, no chown, the
// accel asked of that host's hypervisor). The host is this one, reached through what qemu+ssh
// runs at the far end (virt-ssh-helper), started by qemu+ext instead of ssh.
TEST_F(LibvirtRunnerTest, RemoteUriRunsTheJob) {
  fs::path helper = dir_ / "libvirt-helper.sh";
  write_file(helper, "#!/bin/sh\nexec virt-ssh-helper qemu:///system\n");
  fs::permissions(helper, fs::perms::owner_all);
  std::string uri =
      fmt::format("qemu+ext://kbisect-remote-test/system?command={}", helper.string());
  ASSERT_FALSE(is_local_uri(uri));
  LibvirtRunner runner(test_context(dir_), uri);
  Scenario scenario = short_job_scenario(dir_, FilesystemKind::kExt4);
  ASSERT_NO_FATAL_FAILURE(expect_job_result(VmRunnerTest::run(runner, scenario)));
}

// A workdir QEMU's user cannot reach (as under /root) is an error before any guest starts,
// not a "Permission denied" from QEMU at every boot (or, in the accel probe, "KVM fails").
TEST_F(LibvirtRunnerTest, WorkdirQemuCannotReachIsAClearError) {
  fs::path private_dir = dir_ / "private";
  fs::create_directories(private_dir);
  fs::permissions(private_dir, fs::perms::owner_all);
  LibvirtRunner runner(test_context(private_dir), kUri);
  Scenario scenario = short_job_scenario(private_dir, FilesystemKind::kExt4);
  RunRequest request;
  request.kernel_image = kernel_;
  request.scenario = &scenario;
  try {
    runner.run(request);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("which cannot search " + private_dir.string()),
              std::string::npos)
        << error.what();
  }
}

TEST_F(LibvirtRunnerTest, HangBeforeInitIsBootFailedAtTheDeadline) {
  Scenario scenario = hanging_init_scenario(dir_, 15);
  ASSERT_NO_FATAL_FAILURE(expect_boot_deadline(run(scenario), 15));
}

// QEMU killed while the guest runs (as by an emulated device's assertion or the host's OOM
// killer): an infra error the runner retries once, not a kernel that failed to boot.
TEST_F(LibvirtRunnerTest, QemuKilledMidRunIsAnInfraError) {
  RunResult result = run_ending_each_attempt([] {
    run_process(
        {"pkill", "-KILL", "-f", "--", fmt::format("qemu-system.*kbisect-{}-", ::getpid())});
  });
  EXPECT_EQ(outcome_name(result.outcome), std::string("infra-error")) << result.detail;
  EXPECT_NE(result.detail.find("QEMU died while the guest ran"), std::string::npos)
      << result.detail;
}

// The domain destroyed by someone else (virsh destroy): not the guest's end, which libvirt
// reports as a shutdown, but an infra error the runner retries once.
TEST_F(LibvirtRunnerTest, DomainDestroyedFromOutsideIsAnInfraError) {
  RunResult result = run_ending_each_attempt([] {
    for (const std::string& name : kbisect_domains()) {
      run_process({"virsh", "-c", kUri, "destroy", name});
    }
  });
  EXPECT_EQ(outcome_name(result.outcome), std::string("infra-error")) << result.detail;
  EXPECT_NE(result.detail.find("was destroyed from outside kbisect"), std::string::npos)
      << result.detail;
}

// kbisect stopped while its guest runs (a guest that would run for an hour). Ctrl-C and
// SIGTERM: it destroys the domain itself and ends with Interrupted. SIGKILL: it cannot, and the
// domain dies with its connection (AUTODESTROY). The child opens its own connection; run alone
// (as ctest runs each test), this process has not touched libvirt before the fork.
class LibvirtSignalTest : public LibvirtRunnerTest, public ::testing::WithParamInterface<int> {};

TEST_P(LibvirtSignalTest, SignalMidRunLeavesNoDomain) {
  Scenario scenario = hanging_init_scenario(dir_, 600);
  pid_t child = fork_running([&] { run(scenario); });
  fs::path log = dir_ / "logs" / "console-1.log";
  for (int i = 0; i < 1200; ++i) {
    if (read_file_if_present(log).value_or("").find("as init process") != std::string::npos) break;
    ::usleep(100000);
  }
  // One domain of the child's (the accel probe's, if any, has ended).
  auto domains = kbisect_domains();
  EXPECT_EQ(domains.size(), 1u) << "the guest did not start";
  for (const auto& name : domains) EXPECT_TRUE(name.starts_with(fmt::format("kbisect-{}-", child)));
  ::kill(child, GetParam());
  int status = 0;
  ::waitpid(child, &status, 0);
  if (GetParam() == SIGKILL) {
    EXPECT_TRUE(WIFSIGNALED(status)) << status;
    // libvirtd notices the closed connection on its own time.
    for (int i = 0; i < 300 && !kbisect_domains().empty(); ++i) ::usleep(100000);
  } else {
    EXPECT_TRUE(ended_interrupted(status)) << status;
  }
  EXPECT_EQ(kbisect_domains(), std::vector<std::string>());
  EXPECT_EQ(qemu_processes_of(child), "");
}

INSTANTIATE_TEST_SUITE_P(SigintSigtermSigkill, LibvirtSignalTest,
                         ::testing::Values(SIGINT, SIGTERM, SIGKILL));

}  // namespace
}  // namespace kbisect::testing
