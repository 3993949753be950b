#include "build/kconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;

TEST(KernelConfig, ParsesAssignmentsAndNotSetLines) {
  KernelConfig config = KernelConfig::parse(
      "#\n# Automatically generated file\n\nCONFIG_A=y\n# CONFIG_B is not set\n"
      "CONFIG_S=\"a = b\"\nCONFIG_N=-1\n",
      "base");
  EXPECT_EQ(config.value("CONFIG_A"), "y");
  EXPECT_EQ(config.value("CONFIG_B"), "n");
  EXPECT_TRUE(config.contains("CONFIG_B"));
  EXPECT_EQ(config.value("CONFIG_S"), "\"a = b\"");
  EXPECT_EQ(config.value("CONFIG_N"), "-1");
  EXPECT_EQ(config.value("CONFIG_ABSENT"), "n");
  EXPECT_FALSE(config.contains("CONFIG_ABSENT"));
  EXPECT_EQ(config.entries()[0].origin, "base:4");
}

TEST(KernelConfig, LaterAssignmentInOneFileWins) {
  KernelConfig config = KernelConfig::parse("CONFIG_A=y\nCONFIG_A=m\n", "f");
  EXPECT_EQ(config.value("CONFIG_A"), "m");
  EXPECT_EQ(config.entries().size(), 1u);
  EXPECT_EQ(config.entries()[0].origin, "f:2");
}

TEST(KernelConfig, BadLinesNameFileAndLine) {
  try {
    KernelConfig::parse("CONFIG_A=y\nEXT4=y\n", "frag.config");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("frag.config:2"));
    EXPECT_THAT(error.what(), HasSubstr("EXT4=y"));
  }
  EXPECT_THROW(KernelConfig::parse("CONFIG_A=\n", "f"), Error);
  EXPECT_THROW(KernelConfig::parse("CONFIG_A\n", "f"), Error);
}

TEST(KernelConfig, MergeOverridesAndReportsChangedValues) {
  KernelConfig config = KernelConfig::parse("CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\n", "base");
  std::vector<KconfigOverride> changes =
      config.merge(KernelConfig::parse("# CONFIG_A is not set\nCONFIG_C=y\nCONFIG_D=m\n", "frag"));
  EXPECT_EQ(config.value("CONFIG_A"), "n");
  EXPECT_EQ(config.value("CONFIG_C"), "y");
  EXPECT_EQ(config.value("CONFIG_D"), "m");
  // Only A changed its value; C was redefined with the same value, like merge_config.sh.
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].symbol, "CONFIG_A");
  EXPECT_EQ(changes[0].previous.origin, "base:1");
  EXPECT_EQ(changes[0].replacement.origin, "frag:1");
  EXPECT_EQ(describe(changes[0]),
            "frag:1: # CONFIG_A is not set redefines CONFIG_A (was CONFIG_A=y from base:1)");
}

TEST(KernelConfig, MergeOrderFollowsMergeConfig) {
  // merge_config.sh deletes a redefined line from the base and appends the fragment.
  KernelConfig config = KernelConfig::parse("CONFIG_A=y\nCONFIG_B=y\n", "base");
  config.merge(KernelConfig::parse("CONFIG_A=m\nCONFIG_Z=y\n", "frag"));
  EXPECT_EQ(config.render(), "CONFIG_B=y\nCONFIG_A=m\nCONFIG_Z=y\n");
  EXPECT_EQ(config.value("CONFIG_B"), "y");
  EXPECT_EQ(config.entries()[1].origin, "frag:1");
}

TEST(KernelConfig, LaterFragmentsWin) {
  KernelConfig config = KernelConfig::parse("# CONFIG_X is not set\n", "base");
  config.merge(KernelConfig::parse("CONFIG_X=y\n", "one"));
  std::vector<KconfigOverride> changes = config.merge(KernelConfig::parse("CONFIG_X=m\n", "two"));
  EXPECT_EQ(config.value("CONFIG_X"), "m");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].previous.origin, "one:1");
}

TEST(KernelConfig, RenderRoundTrips) {
  std::string text = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_S=\"x\"\n";
  EXPECT_EQ(KernelConfig::parse(text, "t").render(), text);
}

TEST(FindMissing, ReportsEveryRequiredValueThatDidNotHold) {
  KernelConfig required = KernelConfig::parse(
      "CONFIG_A=y\nCONFIG_B=y\nCONFIG_T=-1\n# CONFIG_OFF is not set\nCONFIG_GONE=y\n", "guest");
  KernelConfig final_config = KernelConfig::parse("CONFIG_A=y\nCONFIG_B=m\nCONFIG_T=0\n", "final");
  std::vector<MissingOption> missing = find_missing(required, final_config);
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_EQ(missing[0].required.symbol, "CONFIG_B");
  EXPECT_EQ(missing[0].actual, "m");
  EXPECT_EQ(missing[1].required.symbol, "CONFIG_T");
  EXPECT_EQ(missing[1].actual, "0");
  EXPECT_EQ(missing[2].required.symbol, "CONFIG_GONE");
  EXPECT_EQ(missing[2].actual, "n");
  EXPECT_EQ(missing[2].required.origin, "guest:5");
}

TEST(FindMissing, GuestConfigParsesAndHoldsAgainstItself) {
  KernelConfig guest =
      KernelConfig::load(std::string(KBISECT_SOURCE_DIR) + "/vmimages/kconfig/guest.config");
  EXPECT_EQ(guest.value("CONFIG_BLK_DEV_NVME"), "y");
  EXPECT_TRUE(find_missing(guest, guest).empty());
}

}  // namespace
}  // namespace kbisect
