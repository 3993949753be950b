#include "build/build_cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "common/local_process.h"
#include "common/sha256.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

class BuildCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write(root_ / "bzImage", "kernel image bytes");
    write(root_ / "config", "CONFIG_A=y\n");
    write(root_ / "build.log", "  CC      a.o\n");
  }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    write_file(path, text);
  }

  CachedBuild store(BuildCache& cache, const BuildKey& key) {
    return cache.store(key, root_ / "bzImage", root_ / "config", root_ / "build.log", "c0ffee",
                       12.5);
  }

  TempDir temp_;
  const fs::path root_ = temp_.path();
  BuildKey key_{"tree1", "confighash", "gcc (Debian 12.2.0-14) 12.2.0"};
};

TEST(BuildKey, EveryPartChangesTheKey) {
  BuildKey key{"t", "c", "g"};
  EXPECT_EQ(key.hex().size(), 64u);
  EXPECT_EQ(key.hex(), (BuildKey{"t", "c", "g"}.hex()));
  EXPECT_NE(key.hex(), (BuildKey{"t2", "c", "g"}.hex()));
  EXPECT_NE(key.hex(), (BuildKey{"t", "c2", "g"}.hex()));
  EXPECT_NE(key.hex(), (BuildKey{"t", "c", "g2"}.hex()));
}

TEST(Digest, KnownSha256) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(BuildCacheTest, StoreThenFind) {
  BuildCache cache(root_ / "cache");
  EXPECT_FALSE(cache.find(key_));
  CachedBuild stored = store(cache, key_);
  EXPECT_EQ(stored.directory, root_ / "cache" / key_.hex());
  EXPECT_EQ(stored.image_sha256, sha256_hex("kernel image bytes"));
  EXPECT_EQ(stored.commit_id, "c0ffee");
  std::optional<CachedBuild> found = cache.find(key_);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->image, stored.image);
  EXPECT_EQ(sha256_file_hex(found->image), stored.image_sha256);
  EXPECT_TRUE(fs::exists(found->config));
  EXPECT_TRUE(fs::exists(found->log));
  EXPECT_DOUBLE_EQ(found->build_seconds, 12.5);
  EXPECT_FALSE(cache.find(BuildKey{"tree2", key_.config_sha256, key_.compiler}));
  // Nothing but the entry is left in the cache directory.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(root_ / "cache")) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(BuildCacheTest, SecondStoreKeepsTheFirstEntry) {
  BuildCache cache(root_ / "cache");
  store(cache, key_);
  write(root_ / "bzImage", "different bytes");
  CachedBuild again = store(cache, key_);
  EXPECT_EQ(again.image_sha256, sha256_hex("kernel image bytes"));
}

TEST_F(BuildCacheTest, HalfEntryIsNotAHitAndIsReplaced) {
  write(root_ / "cache" / key_.hex() / "bzImage", "half");  // no meta.json: not an entry
  BuildCache cache(root_ / "cache");
  EXPECT_FALSE(cache.find(key_));
  CachedBuild stored = store(cache, key_);
  EXPECT_EQ(stored.image_sha256, sha256_hex("kernel image bytes"));
}

TEST_F(BuildCacheTest, SweepsTemporaryDirectoriesOfDeadProcessesOnly) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  const std::string here = "@" + this_host_name() + "-";
  fs::path dead = root_ / "cache" / (".tmp-" + std::to_string(child) + here + key_.hex());
  fs::path older = root_ / "cache" / (".tmp-" + std::to_string(child) + "-" + key_.hex());
  fs::path alive = root_ / "cache" / (".tmp-" + std::to_string(::getpid()) + here + "other");
  // The same pid on another machine that shares the cache: not for this one to judge.
  fs::path elsewhere =
      root_ / "cache" / (".tmp-" + std::to_string(child) + "@other-host-" + key_.hex());
  for (const fs::path& temp : {dead, older, alive, elsewhere}) write(temp / "bzImage", "partial");
  BuildCache cache(root_ / "cache");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(older));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(elsewhere));
  EXPECT_FALSE(cache.find(key_));
}

}  // namespace
}  // namespace kbisect
