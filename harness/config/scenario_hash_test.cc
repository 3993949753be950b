#include "config/scenario_hash.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

class ScenarioHashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "job.fio") << "[a]\nrw=read\n";
    scenario_.name = "a";
    scenario_.workload.job_files = {dir_ / "job.fio"};
    scenario_.metrics = {MetricSpec{"read.iops", "", Better::kHigher}};
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
  Scenario scenario_;
};

TEST_F(ScenarioHashTest, IsStableHex) {
  std::string hash = scenario_hash(scenario_);
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(scenario_hash(scenario_), hash);
}

TEST_F(ScenarioHashTest, IgnoresWhatDoesNotChangeMeasurements) {
  std::string hash = scenario_hash(scenario_);
  Scenario other = scenario_;
  other.name = std::string("b");  // not = "b": GCC 12 -Wrestrict misfires there (bug 105651)
  other.database = "/elsewhere.db";
  other.workdir = "/w";
  other.bisect.alpha = 0.2;
  other.samples = 9;
  other.metrics.push_back(MetricSpec{"write.iops", "", Better::kHigher});
  other.vm.boot_timeout_seconds = 5;
  other.build.jobs = 7;
  // The same job file content elsewhere is the same workload.
  fs::create_directories(dir_ / "copy");
  fs::copy_file(dir_ / "job.fio", dir_ / "copy/job.fio");
  other.workload.job_files = {dir_ / "copy/job.fio"};
  EXPECT_EQ(scenario_hash(other), hash);
}

TEST_F(ScenarioHashTest, ChangesWithWhatChangesMeasurements) {
  std::string hash = scenario_hash(scenario_);
  auto differs = [&](auto change) {
    Scenario other = scenario_;
    change(other);
    return scenario_hash(other) != hash;
  };
  EXPECT_TRUE(differs([](Scenario& s) { s.vm.vcpus = 4; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.vm.memory_mib = 2048; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.kernel.cmdline_extra = "x"; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.kernel.base_config = "defconfig"; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.filesystem.kind = FilesystemKind::kXfs; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.filesystem.mount_options = "noatime"; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.device.size_bytes = 1; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.workload.vars["X"] = "1"; }));
  Variant read_only;
  read_only.name = "v";
  read_only.mount_options = "ro";
  EXPECT_TRUE(differs([&](Scenario& s) { s.workload.variants.push_back(read_only); }));
  EXPECT_TRUE(differs([](Scenario& s) { s.vm.runner = RunnerKind::kSim; }));
  Variant xfs;
  xfs.name = "v";
  xfs.filesystem = FilesystemKind::kXfs;
  EXPECT_TRUE(differs([&](Scenario& s) { s.workload.variants.push_back(xfs); }));
  EXPECT_FALSE(differs([](Scenario& s) { s.table = ReportTable::kSyncLog; }));
  Scenario edited = scenario_;
  std::ofstream(dir_ / "job.fio") << "[a]\nrw=write\n";
  EXPECT_NE(scenario_hash(edited), hash);
}

}  // namespace
}  // namespace kbisect
