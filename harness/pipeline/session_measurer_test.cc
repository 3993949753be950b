#include "pipeline/session_measurer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

using testing::HasSubstr;

class SessionPlaceTest : public ::testing::Test {
 protected:
  void SetUp() override { session_ = store_.create_session(SessionRecord{}); }

  void store_run(Outcome outcome, const std::string& host, const std::string& accel,
                 const std::string& environment = "qemu 7.2") {
    RunRecord run;
    run.session_id = session_;
    run.commit = "c1";
    run.outcome = outcome;
    run.host = host;
    run.accel = accel;
    run.environment = environment;
    std::vector<SampleRecord> samples;
    if (outcome == Outcome::kOk) {
      SampleRecord sample;
      sample.session_id = session_;
      sample.commit = "c1";
      sample.host = host;
      sample.accel = accel;
      sample.kdio_json = "{}";
      sample.metrics["read.iops"] = 100;
      samples.push_back(sample);
    }
    store_.insert_run(run, samples);
  }

  TempDir temp_;
  Store store_{temp_.path() / "results.db"};
  int64_t session_ = 0;
};

TEST_F(SessionPlaceTest, ASessionsPlaceIsWhereItsFirstSampleWasTaken) {
  EXPECT_FALSE(place_of_samples(store_, session_));
  // A build failure has no place, and a guest that failed took no sample.
  store_run(Outcome::kBuildFailed, "here", "");
  store_run(Outcome::kWorkloadFailed, "here", "kvm");
  EXPECT_FALSE(place_of_samples(store_, session_));
  store_run(Outcome::kOk, "here", "tcg");
  EXPECT_EQ(place_of_samples(store_, session_), (RunPlace{"here", "tcg", "qemu 7.2"}));
}

// A session begun before kbisect recorded the environment is held to the first it recorded.
TEST_F(SessionPlaceTest, ASessionsEnvironmentIsTheFirstOneRecorded) {
  store_run(Outcome::kOk, "here", "tcg", "");
  EXPECT_EQ(place_of_samples(store_, session_), (RunPlace{"here", "tcg", ""}));
  store_run(Outcome::kOk, "here", "tcg", "qemu 7.2");
  store_run(Outcome::kOk, "here", "tcg", "qemu 8.0");
  EXPECT_EQ(place_of_samples(store_, session_), (RunPlace{"here", "tcg", "qemu 7.2"}));
}

TEST_F(SessionPlaceTest, AResumedSessionMeasuresWhereItsSamplesWereTaken) {
  const RunPlace tcg_here{"here", "tcg", "qemu 7.2"};
  EXPECT_NO_THROW(check_same_place(session_, std::nullopt, tcg_here));
  EXPECT_NO_THROW(check_same_place(session_, tcg_here, tcg_here));
  try {
    check_same_place(7, tcg_here, {"here", "kvm", "qemu 7.2"});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("session 7 took its samples under tcg on here, and would "
                                        "now measure under kvm on here"));
    EXPECT_THAT(error.what(), HasSubstr("vm.accel: tcg"));
  }
  EXPECT_THROW(check_same_place(7, tcg_here, {"there", "tcg", "qemu 7.2"}), Error);
}

// Samples taken with another kdio, guest mkfs or QEMU measure another thing. Runs stored before
// kbisect recorded the environment have none, and compare with any.
TEST_F(SessionPlaceTest, AResumedSessionMeasuresWithWhatItsSamplesWereTakenWith) {
  const RunPlace tcg_here{"here", "tcg", "initramfs-aa-bb; qemu 7.2"};
  try {
    check_same_place(7, tcg_here, {"here", "tcg", "initramfs-cc-bb; qemu 7.2"});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("session 7 took its samples with initramfs-aa-bb; qemu "
                          "7.2, and would now measure with initramfs-cc-bb; qemu 7.2"));
    EXPECT_THAT(error.what(), HasSubstr(": kdio changed since"));
    EXPECT_THAT(error.what(), HasSubstr("--fresh"));
  }
  EXPECT_NO_THROW(check_same_place(7, RunPlace{"here", "tcg", ""}, tcg_here));
}

}  // namespace
}  // namespace kbisect
