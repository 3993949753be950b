#include "vm/accel.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/temp_dir.h"

namespace kbisect {
namespace {
namespace fs = std::filesystem;

class AccelTest : public ::testing::Test {
 protected:
  // Resolves with a probe whose kernel boots under KVM when `boots` (and always under TCG),
  // and counts its calls.
  std::string resolve(Accel wanted, const AccelHost& host, bool boots) {
    return resolve_with(wanted, host,
                        boots ? KvmProbe{KvmProbe::Answer::kWorks, ""}
                              : KvmProbe{KvmProbe::Answer::kFails, "no init within 20 s"});
  }

  std::string resolve_with(Accel wanted, const AccelHost& host, const KvmProbe& answer) {
    return resolve_accel(
        wanted, host, cache_,
        [&] {
          ++probes_;
          return answer;
        },
        nullptr);
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
  const fs::path cache_ = dir_ / "accel-cache.json";
  int probes_ = 0;
};

TEST_F(AccelTest, ExplicitChoiceIsNeverProbed) {
  AccelHost host{"h|qemu 7.2|kvm-device=1", true};
  EXPECT_EQ(resolve(Accel::kKvm, host, false), "kvm");
  EXPECT_EQ(resolve(Accel::kTcg, host, true), "tcg");
  EXPECT_EQ(probes_, 0);
}

TEST_F(AccelTest, NoKvmDeviceMeansTcgWithoutAProbe) {
  AccelHost host{"h|qemu 7.2|kvm-device=0", false};
  EXPECT_EQ(resolve(Accel::kAuto, host, true), "tcg");
  EXPECT_EQ(probes_, 0);
}

TEST_F(AccelTest, ProbeAnswerIsCachedPerHostKey) {
  AccelHost nested{"nested|qemu 7.2|kvm-device=1", true};
  EXPECT_EQ(resolve(Accel::kAuto, nested, false), "tcg");
  EXPECT_EQ(resolve(Accel::kAuto, nested, true), "tcg");  // cached: the probe is not asked again
  EXPECT_EQ(probes_, 1);

  AccelHost ordinary{"ordinary|qemu 7.2|kvm-device=1", true};
  EXPECT_EQ(resolve(Accel::kAuto, ordinary, true), "kvm");
  EXPECT_EQ(probes_, 2);

  std::ifstream in(cache_);
  auto cache = nlohmann::json::parse(in);
  EXPECT_EQ(cache["nested|qemu 7.2|kvm-device=1"]["accel"], "tcg");
  EXPECT_EQ(cache["nested|qemu 7.2|kvm-device=1"]["why"], "no init within 20 s");
  EXPECT_EQ(cache["ordinary|qemu 7.2|kvm-device=1"]["accel"], "kvm");
}

TEST_F(AccelTest, AnAnswerInAnotherFormIsProbedAgain) {
  for (const char* entry : {R"("tcg")", R"({"accel": 5})", R"({"accel": "hvf"})"}) {
    SCOPED_TRACE(entry);
    std::ofstream(cache_) << fmt::format(R"({{"h": {}}})", entry);
    AccelHost host{"h", true};
    probes_ = 0;
    EXPECT_EQ(resolve(Accel::kAuto, host, true), "kvm");
    EXPECT_EQ(probes_, 1);
  }
}

// The probe's answer can quote the guest's console, which need not be UTF-8.
TEST_F(AccelTest, AProbeFailureThatIsNotUtf8IsCached) {
  AccelHost host{"h", true};
  EXPECT_EQ(resolve_with(Accel::kAuto, host, {KvmProbe::Answer::kFails, "guest \xff\xfe"}), "tcg");
  std::ifstream in(cache_);
  EXPECT_EQ(nlohmann::json::parse(in)["h"]["why"], "guest \xef\xbf\xbd\xef\xbf\xbd");
}

// A kernel that boots under neither KVM nor TCG is broken, whatever KVM can do.
TEST_F(AccelTest, AKernelThatBootsNowhereLeavesNothingCached) {
  AccelHost host{"h", true};
  const KvmProbe broken{KvmProbe::Answer::kUnknown, "kernel failed while booting: Oops"};
  EXPECT_EQ(resolve_with(Accel::kAuto, host, broken), "kvm");
  EXPECT_FALSE(fs::exists(cache_));
  EXPECT_EQ(resolve(Accel::kAuto, host, false), "tcg");
  EXPECT_EQ(probes_, 2);
}

TEST_F(AccelTest, DamagedCacheIsProbedAgain) {
  std::ofstream(cache_) << "{not json";
  AccelHost host{"h", true};
  EXPECT_EQ(resolve(Accel::kAuto, host, true), "kvm");
  EXPECT_EQ(probes_, 1);
}

TEST(AccelHost, KeyNamesQemuVersionAndKvmDevice) {
  AccelHost host = local_accel_host();
  EXPECT_NE(host.key.find("QEMU emulator version"), std::string::npos) << host.key;
  EXPECT_NE(
      host.key.find(fmt::format("kvm-device={}", ::access("/dev/kvm", R_OK | W_OK) == 0 ? 1 : 0)),
      std::string::npos);
}

}  // namespace
}  // namespace kbisect
