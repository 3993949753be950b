#include "build/kconfig_deps.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/file.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

KernelConfig config_of(const std::string& text) {
  return KernelConfig::parse(text, "test");
}

TEST(KconfigExpression, TristateLogic) {
  KernelConfig config = config_of(
      "CONFIG_A=y\nCONFIG_M=m\n# CONFIG_N is not set\nCONFIG_V=4\n"
      "CONFIG_S=\"text\"\n");
  EXPECT_EQ(evaluate_kconfig_expression("A", config), 2);
  EXPECT_EQ(evaluate_kconfig_expression("M", config), 1);
  EXPECT_EQ(evaluate_kconfig_expression("N", config), 0);
  EXPECT_EQ(evaluate_kconfig_expression("UNKNOWN", config), 0);
  EXPECT_EQ(evaluate_kconfig_expression("!N", config), 2);
  EXPECT_EQ(evaluate_kconfig_expression("!M", config), 1);
  EXPECT_EQ(evaluate_kconfig_expression("A && M", config), 1);
  EXPECT_EQ(evaluate_kconfig_expression("N || M", config), 1);
  EXPECT_EQ(evaluate_kconfig_expression("A && (N || !N)", config), 2);
  EXPECT_EQ(evaluate_kconfig_expression("M = m", config), 2);
  EXPECT_EQ(evaluate_kconfig_expression("A != y", config), 0);
  EXPECT_EQ(evaluate_kconfig_expression("V > 3", config), 2);
  EXPECT_EQ(evaluate_kconfig_expression("V <= 3", config), 0);
  EXPECT_EQ(evaluate_kconfig_expression("S = \"text\"", config), 2);
}

TEST(KconfigExpression, UnsupportedOrMalformedIsUnknown) {
  KernelConfig config = config_of("CONFIG_A=y\n");
  EXPECT_EQ(evaluate_kconfig_expression("$(cc-option,-mfoo)", config), std::nullopt);
  EXPECT_EQ(evaluate_kconfig_expression("A &&", config), std::nullopt);
  EXPECT_EQ(evaluate_kconfig_expression("(A", config), std::nullopt);
  EXPECT_EQ(evaluate_kconfig_expression("", config), std::nullopt);
}

class KconfigTree : public ::testing::Test {
 protected:
  void SetUp() override {
    write("Kconfig",
          "config MMU\n"
          "\tbool\n"
          "config EXPERT\n"
          "\tbool \"Expert\"\n"
          "config SHMEM\n"
          "\tbool \"Use full shmem filesystem\" if EXPERT\n"
          "\tdefault y\n"
          "\tdepends on MMU\n"
          "\thelp\n"
          "\t  if you say Y here the kernel\n"
          "\n"
          "\t  config FAKE is help text, not an entry\n"
          "config PLAIN\n"
          "\tbool \"plain\"\n"
          "source \"drivers/Kconfig\"\n");
    write("drivers/Kconfig",
          "menu \"Block\"\n"
          "\tdepends on PCI\n"
          "if BLOCK\n"
          "config NVME_CORE\n"
          "\ttristate\n"
          "config BLK_DEV_NVME\n"
          "\ttristate \"NVMe\"\n"
          "\tselect NVME_CORE\n"
          "endif\n"
          "endmenu\n"
          "config LONG\n"
          "\tbool \"long\"\n"
          "\tdepends on A && \\\n"
          "\t\t   B\n");
    write("arch/arm/Kconfig", "config ARM_ONLY\n\tbool \"arm\"\n");
    write("arch/x86/Kconfig", "config X86_ONLY\n\tbool \"x86\"\n\tdepends on X86\n");
  }

  void write(const std::string& name, const std::string& text) {
    fs::create_directories((root_ / name).parent_path());
    write_file(root_ / name, text);
  }

  std::map<std::string, std::string> explain(const std::vector<std::string>& symbols,
                                             const std::string& config) {
    return explain_missing(root_, "x86", symbols, config_of(config));
  }

  TempDir temp_;
  const fs::path root_ = temp_.path();
};

TEST_F(KconfigTree, NamesTheUnmetDependency) {
  auto reasons = explain({"CONFIG_SHMEM"}, "# CONFIG_MMU is not set\nCONFIG_EXPERT=y\n");
  EXPECT_THAT(reasons["CONFIG_SHMEM"], HasSubstr("depends on 'MMU' (MMU=n)"));
  EXPECT_THAT(reasons["CONFIG_SHMEM"], HasSubstr("Kconfig:5"));
}

TEST_F(KconfigTree, NamesTheHiddenPrompt) {
  auto reasons = explain({"CONFIG_SHMEM"}, "CONFIG_MMU=y\n");
  EXPECT_THAT(reasons["CONFIG_SHMEM"], HasSubstr("can be set only if 'EXPERT' (EXPERT=n)"));
}

TEST_F(KconfigTree, EnclosingIfAndMenuCount) {
  auto reasons = explain({"CONFIG_BLK_DEV_NVME"}, "CONFIG_PCI=y\n");
  EXPECT_THAT(reasons["CONFIG_BLK_DEV_NVME"], HasSubstr("depends on 'BLOCK' (BLOCK=n)"));
  reasons = explain({"CONFIG_BLK_DEV_NVME"}, "CONFIG_BLOCK=y\n");
  EXPECT_THAT(reasons["CONFIG_BLK_DEV_NVME"], HasSubstr("depends on 'PCI' (PCI=n)"));
}

TEST_F(KconfigTree, OptionsWithoutPromptNameTheirSelectors) {
  auto reasons = explain({"CONFIG_NVME_CORE"}, "CONFIG_BLOCK=y\nCONFIG_PCI=y\n");
  EXPECT_THAT(reasons["CONFIG_NVME_CORE"],
              HasSubstr("has no prompt: only another option can select it (BLK_DEV_NVME=n)"));
}

TEST_F(KconfigTree, ContinuationLinesAndModuleLimits) {
  auto reasons = explain({"CONFIG_LONG"}, "CONFIG_A=y\nCONFIG_B=m\n");
  EXPECT_THAT(reasons["CONFIG_LONG"], HasSubstr("(A=y, B=m, so at most m)"));
}

TEST_F(KconfigTree, SettableOptionsGetNoGuess) {
  // PLAIN follows help text that starts with "if" and "config": the help must not confuse
  // the reader, and an option that could be set gets no explanation.
  auto reasons = explain({"CONFIG_PLAIN", "CONFIG_FAKE"}, "");
  EXPECT_EQ(reasons.count("CONFIG_PLAIN"), 0u);
  EXPECT_THAT(reasons["CONFIG_FAKE"], HasSubstr("no Kconfig file in this tree defines FAKE"));
}

TEST_F(KconfigTree, OnlyTheTargetArchitectureIsRead) {
  auto reasons = explain({"CONFIG_ARM_ONLY", "CONFIG_X86_ONLY"}, "");
  EXPECT_THAT(reasons["CONFIG_ARM_ONLY"], HasSubstr("no Kconfig file"));
  EXPECT_THAT(reasons["CONFIG_X86_ONLY"], HasSubstr("depends on 'X86' (X86=n)"));
}

}  // namespace
}  // namespace kbisect
