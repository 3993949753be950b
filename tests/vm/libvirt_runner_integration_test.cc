// The libvirt runner against a real guest kernel on qemu:///system (libvirtd started by the
// `libvirt` test fixture): a short kdio job on ext4 and on xfs, a kernel that panics, and no
// kbisect domain left afterwards.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kbisect::testing
