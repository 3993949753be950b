// Builds real kernels: an incremental build, a cache hit, a one-file rebuild that must give a
// byte-identical image, and a build that fails in the file it changed. They reuse the source tree
// and object directory that tests/kernel (fixture test_kernel) built with `kbisect run`, so no test
// pays for a second cold kernel build; the build cache is new for every run, so the first build
// here is never a hit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "build/builder.h"
#include "build/kconfig.h"
#include "common/error.h"
#include "common/file.h"
#include "common/process.h"
#include "common/sha256.h"
#include "git/checkout.h"
#include "git/repository.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kKernelDir = KBISECT_TEST_KERNEL_DIR;  // tests/kernel's output
const fs::path kSource = kKernelDir / "work/src";
const fs::path kCache = KBISECT_TEST_CACHE_DIR;
constexpr const char* kEditedFile = "fs/ext4/file.c";

// The history's base, the pristine Debian tree.
std::string base_commit() {
  std::ifstream meta(kKernelDir / "history.meta.json");
  if (!meta) fail("no {}/history.meta.json: run the kernel_run test first", kKernelDir.string());
  return nlohmann::json::parse(meta).at("good").get<std::string>();
}

// Puts the base commit's version of the file back now (a killed earlier run may have left it
// edited) and when the test ends: materialising trusts the tree's manifest, so the shared
// tree must hold exactly what the manifest says.
class EditedFile {
 public:
  EditedFile() { restore(); }
  ~EditedFile() { restore(); }
  void append(const std::string& text) { write_file(path_, pristine_ + text); }

 private:
  void restore() {
    if (read_file(path_) != pristine_) write_file(path_, pristine_);
  }
  fs::path path_ = kSource / kEditedFile;
  std::string pristine_ = base_version();

  static std::string base_version() {
    ProcessOptions options;
    options.tail_bytes = 4 << 20;  // the whole file
    return run_checked(
        {"git", "-C", (kKernelDir / "history").string(), "show", base_commit() + ":" + kEditedFile},
        options);
  }
};

class KernelBuild : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fs::create_directories(kCache);
    fs::remove_all(kCache / "build-cache");
  }
  // tests/kernel leaves the tree at whatever commit it built last.
  void SetUp() override {
    materialise_tree(Repository::open(kKernelDir / "history"), base_commit(), kSource);
  }

  BuildResult build(const std::string& tree_id, int* compiled = nullptr) {
    BuildRequest request;
    request.source_dir = kSource;
    request.tree_id = tree_id;
    request.commit_id = "commit-" + tree_id;
    request.kernel.base_config = "tinyconfig";
    // As tests/lib/kernel_history.sh configures it, so the object directory stays warm.
    const fs::path kconfig = default_guest_config().parent_path();
    request.kernel.fragments = {kconfig / "lean.config", kconfig / "ext4.config",
                                kconfig / "xfs.config"};
    request.build.jobs = 2;
    request.build.ccache = false;
    request.build.cache_dir = kCache / "build-cache";
    // No deadline of our own: on a machine shared by many builds a cold build can take far
    // longer than its 5 minutes, and ctest's TIMEOUT still ends a hung one.
    request.build.timeout_seconds = 0;
    request.object_dir = kKernelDir / "work/obj";
    request.on_progress = [compiled](const BuildProgress& progress) {
      if (compiled != nullptr) *compiled = progress.compiled;
    };
    return builder_.build(request);
  }

  Builder builder_;
};

TEST_F(KernelBuild, BuildsCachesAndRebuildsIncrementally) {
  EditedFile file;
  BuildResult first = build("tree-a");
  ASSERT_TRUE(first.ok()) << first.log_tail;
  EXPECT_FALSE(first.cache_hit);
  ASSERT_TRUE(fs::is_regular_file(first.image));
  EXPECT_EQ(sha256_file_hex(first.image), first.image_sha256);
  EXPECT_GT(fs::file_size(first.image), 100'000u);
  EXPECT_THAT(first.compiler, HasSubstr("gcc"));
  EXPECT_TRUE(fs::is_regular_file(first.log));
  KernelConfig guest = KernelConfig::load(default_guest_config().string());
  KernelConfig final_config = KernelConfig::load(first.config.string());
  EXPECT_TRUE(find_missing(guest, final_config).empty());
  EXPECT_EQ(sha256_file_hex(first.config), first.config_sha256);

  BuildResult again = build("tree-a");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.cache_key, first.cache_key);
  EXPECT_EQ(again.image, first.image);
  EXPECT_EQ(again.image_sha256, first.image_sha256);

  // A comment changes the tree but not the code: a real, incremental rebuild whose image is
  // byte-identical to the first (reproducible builds: fixed timestamp, user, host, version).
  file.append("/* kbisect: a change that is not code */\n");
  int compiled = 0;
  BuildResult edited = build("tree-b", &compiled);
  ASSERT_TRUE(edited.ok()) << edited.log_tail;
  EXPECT_FALSE(edited.cache_hit);
  EXPECT_NE(edited.cache_key, first.cache_key);
  EXPECT_GE(compiled, 1);
  EXPECT_LE(compiled, 20) << "a one-file change recompiled many files: not incremental";
  EXPECT_EQ(edited.image_sha256, first.image_sha256);
  EXPECT_NE(edited.image, first.image);
}

TEST_F(KernelBuild, SyntaxErrorIsBuildFailedWithTheErrorLine) {
  EditedFile file;
  file.append("int kbisect_broken(void) { return 0 }\n");
  BuildResult broken = build("tree-broken");
  EXPECT_EQ(broken.outcome, BuildOutcome::kBuildFailed);
  EXPECT_FALSE(broken.cache_hit);
  EXPECT_THAT(broken.log_tail, HasSubstr("fs/ext4/file.c"));
  EXPECT_THAT(broken.log_tail, HasSubstr("error:"));
  EXPECT_TRUE(fs::is_regular_file(broken.log));
  EXPECT_THAT(read_file(broken.log), HasSubstr("kbisect_broken"));
  // The error is in the file this tree changed, so it is the tree's: Kbuild's error line names
  // it in a way the builder reads, and the build is not done again from an empty directory.
  EXPECT_THAT(broken.warnings, testing::Not(testing::Contains(HasSubstr("built again"))));
}

}  // namespace
}  // namespace kbisect
