#include "build/config_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

class ConfigCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(root_ / "fragment.config", "CONFIG_A=y\n");
    write_file(root_ / "guest.config", "CONFIG_B=y\n");
    inputs_ = {"tree1",
               "tinyconfig",
               {root_ / "fragment.config"},
               {root_ / "guest.config"},
               {"CC=ccache gcc"},
               "gcc 12\nas 2.40\nld 2.40"};
  }

  TempDir temp_;
  const fs::path root_ = temp_.path();
  ConfigInputs inputs_;
};

TEST_F(ConfigCacheTest, EveryInputIsPartOfTheKey) {
  const std::string key = inputs_.key();
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(ConfigInputs(inputs_).key(), key);
  auto differs = [&](auto change) {
    ConfigInputs other = inputs_;
    change(other);
    return other.key() != key;
  };
  EXPECT_TRUE(differs([](ConfigInputs& i) { i.kconfig_sources = "sources2"; }));
  EXPECT_TRUE(differs([](ConfigInputs& i) { i.base = "defconfig"; }));
  EXPECT_TRUE(differs([](ConfigInputs& i) { i.fragments.clear(); }));
  EXPECT_TRUE(
      differs([&](ConfigInputs& i) { i.guest_configs.push_back(root_ / "fragment.config"); }));
  EXPECT_TRUE(differs([](ConfigInputs& i) { i.make_variables.push_back("LOCALVERSION="); }));
  EXPECT_TRUE(differs([](ConfigInputs& i) { i.toolchain = "gcc 13\nas 2.40\nld 2.40"; }));
  // Files count by content, not by name.
  write_file(root_ / "guest.config", "CONFIG_B=n\n");
  EXPECT_NE(inputs_.key(), key);
  write_file(root_ / "guest.config", "CONFIG_B=y\n");
  fs::copy_file(root_ / "fragment.config", root_ / "copy.config");
  EXPECT_FALSE(differs([&](ConfigInputs& i) { i.fragments = {root_ / "copy.config"}; }));
  write_file(root_ / "base.config", "CONFIG_C=y\n");
  EXPECT_TRUE(differs([&](ConfigInputs& i) { i.base = (root_ / "base.config").string(); }));
  EXPECT_THROW(differs([&](ConfigInputs& i) { i.fragments = {root_ / "absent.config"}; }), Error);
}

TEST_F(ConfigCacheTest, OnlyKconfigSourcesChangeTheDigest) {
  const fs::path tree = root_ / "linux";
  const std::vector<std::string> sources = {"Makefile",
                                            "Kconfig",
                                            "fs/ext4/Kconfig",
                                            "arch/x86/Kconfig.cpu",
                                            "scripts/Kconfig.include",
                                            "scripts/kconfig/conf.c",
                                            "kernel/configs/tiny.config"};
  const std::vector<std::string> others = {"fs/ext4/file.c", "README"};
  auto write_tree_file = [&](const std::string& file, const std::string& text) {
    fs::create_directories((tree / file).parent_path());
    write_file(tree / file, text);
  };
  for (const auto& file : sources) write_tree_file(file, file);
  for (const auto& file : others) write_tree_file(file, file);
  const std::string digest = kconfig_sources_digest(tree);
  EXPECT_EQ(digest.size(), 64u);
  auto changes_digest = [&](const std::string& file) {
    bool existed = fs::exists(tree / file);
    write_tree_file(file, "changed");
    bool changed = kconfig_sources_digest(tree) != digest;
    if (existed) {
      write_tree_file(file, file);
    } else {
      fs::remove(tree / file);
    }
    return changed;
  };
  for (const auto& file : others) EXPECT_FALSE(changes_digest(file)) << file;
  EXPECT_FALSE(changes_digest("fs/ext4/inode.c")) << "a new source file";
  for (const auto& file : sources) EXPECT_TRUE(changes_digest(file)) << file;
  EXPECT_TRUE(changes_digest("fs/xfs/Kconfig")) << "a new Kconfig file";
  fs::rename(tree / "fs/ext4/Kconfig", tree / "fs/ext4/Kconfig.old");
  EXPECT_NE(kconfig_sources_digest(tree), digest) << "a renamed Kconfig file";
  EXPECT_THROW(kconfig_sources_digest(root_ / "absent"), Error);
}

TEST_F(ConfigCacheTest, StoresAndFindsWholeFiles) {
  ConfigCache cache(root_ / "cache/kconfig");
  EXPECT_EQ(cache.find("k1"), std::nullopt);
  write_file(root_ / "final.config", "CONFIG_A=y\nCONFIG_B=y\n");
  const std::vector<std::string> warnings = {"f.config:1: CONFIG_C=y did not hold (it is n)",
                                             "f.config:2: CONFIG_D=y redefines CONFIG_D"};
  cache.store("k1", root_ / "final.config", warnings);
  cache.store("k3", root_ / "final.config", {});
  auto found = cache.find("k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(read_file(found->config), "CONFIG_A=y\nCONFIG_B=y\n");
  EXPECT_EQ(found->warnings, warnings);
  EXPECT_EQ(cache.find("k3")->warnings, std::vector<std::string>());
  EXPECT_FALSE(cache.find("k2").has_value());
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(root_ / "cache/kconfig"))
    ++files;
  EXPECT_EQ(files, 4) << "two entries of two files each, no temporary file left";
}

}  // namespace
}  // namespace kbisect
