// The Builder's flow against a stand-in kernel tree: a Makefile with the targets the Builder
// calls (tinyconfig, olddefconfig, bzImage), so every outcome and error path runs in
// milliseconds. tests/build/ builds real kernels.
#include "build/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/dir_lock.h"
#include "common/error.h"
#include "common/file.h"
#include "common/sha256.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// olddefconfig drops CONFIG_DROPPED, as Kconfig drops an option whose dependency is unmet.
// bzImage is made of the source and the .config, and fails on a "syntax error" in code.c (named
// by its absolute path, as Kbuild's O= builds do), or on a stale.h an earlier build left in the
// object directory.
constexpr const char* kMakefile = R"(
tinyconfig:
	echo tinyconfig >> $(CURDIR)/../kconfig-runs
	mkdir -p $(O)
	printf 'CONFIG_BASE=y\n# CONFIG_A is not set\n' > $(O)/.config
olddefconfig:
	test ! -e $(CURDIR)/broken-kconfig || { echo 'Kconfig:1: error: syntax'; exit 1; }
	test ! -e $(CURDIR)/slow-kconfig || sleep 30
	grep -v '^CONFIG_DROPPED=' $(O)/.config > $(O)/.config.new
	mv $(O)/.config.new $(O)/.config
bzImage:
	@echo bzImage >> $(CURDIR)/../make-runs
	@if test -e $(O)/stale.h; then echo "$(O)/stale.h:1: error: stale"; exit 2; fi
	@echo '  CC      one.o'
	@echo '  CC      two.o'
	@echo '  LD      vmlinux'
	@if grep -q SYNTAX code.c; then echo "$(CURDIR)/code.c:1:7: error: expected ';'"; exit 2; fi
	@if grep -q OOM code.c; then echo 'gcc: fatal error: Killed signal terminated program cc1'; exit 2; fi
	@if grep -q SLOW code.c; then sleep 30; fi
	mkdir -p $(O)/arch/x86/boot
	cat code.c $(O)/.config > $(O)/arch/x86/boot/bzImage
	@if test -e piggy.S; then $(CC) -c piggy.S -Wp,-MMD,$(O)/.piggy.o.d -o $(O)/piggy.o && cat $(O)/piggy.o >> $(O)/arch/x86/boot/bzImage; fi
	echo '$(CC)|$(KBUILD_BUILD_TIMESTAMP)|$(KBUILD_BUILD_USER)' > $(O)/variables
	echo '$(LLVM)|$(KCFLAGS)|$(CCACHE_DEPEND)|$(CCACHE_NODEPEND)' > $(O)/environment
)";

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "src");
    write_file(root_ / "src/Makefile", kMakefile);
    write_file(root_ / "src/code.c", "int main(void) { return 0; }\n");
    write_file(root_ / "guest.config", "CONFIG_BASE=y\n");
    request_.source_dir = root_ / "src";
    request_.tree_id = "tree1";
    request_.commit_id = "commit1";
    request_.build.jobs = 1;
    request_.build.cache_dir = root_ / "cache";
    request_.object_dir = root_ / "obj";
    request_.guest_configs = {root_ / "guest.config"};
  }

  TempDir temp_;
  const fs::path root_ = temp_.path();
  BuildRequest request_;
  Builder builder_;
};

// The kernel's Makefile runs `$(shell mkdir -p $(KBUILD_OUTPUT) && cd $(KBUILD_OUTPUT) ...)`.
TEST(KbuildSafeWorkdir, RefusesWhatKbuildsShellOrMakeWouldMisread) {
  EXPECT_EQ(kbuild_safe_workdir("/srv/kbisect/work-1.2_a+b@c/../d"), "/srv/kbisect/d");
  EXPECT_EQ(kbuild_safe_workdir("/srv/caf\xc3\xa9"), "/srv/caf\xc3\xa9");
  EXPECT_EQ(kbuild_safe_workdir("rel"), std::filesystem::current_path() / "rel");
  EXPECT_EQ(kbuild_safe_workdir("/home/me/~work"), "/home/me/~work");
  for (const char* bad : {"/srv/R&D;touch x;#", "/srv/a b", "/srv/a:b", "/srv/$(id)", "/srv/a\nb",
                          "/srv/`id`", "/srv/a'b", "/srv/a\"b", "/srv/a|b", "/srv/a*"}) {
    EXPECT_THROW(kbuild_safe_workdir(bad), Error) << bad;
  }
  try {
    kbuild_safe_workdir("/srv/R&D;touch x;#");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("the workdir /srv/R&D;touch x;# holds '&'"));
    EXPECT_THAT(error.what(), HasSubstr("the key workdir:, or --workdir"));
  }
  try {
    kbuild_safe_workdir("/srv/a\nb");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("/srv/a?b holds the control character 0x0a"));
  }
}

// A kernel engineer's shell may hold what changes the image behind the cache key's back.
TEST_F(BuilderTest, TheBuildDoesNotInheritWhatChangesTheKernel) {
  ::setenv("LLVM", "1", 1);
  ::setenv("KCFLAGS", "-fno-omit-frame-pointer", 1);
  ::setenv("CCACHE_DEPEND", "1", 1);
  BuildResult result = builder_.build(request_);
  for (const char* name : {"LLVM", "KCFLAGS", "CCACHE_DEPEND"}) ::unsetenv(name);
  ASSERT_TRUE(result.ok()) << result.log_tail;
  EXPECT_EQ(read_file(root_ / "obj/environment"), "|||1\n");
}

TEST_F(BuilderTest, BuildsThenHitsTheCache) {
  std::vector<BuildProgress> progress;
  request_.on_progress = [&](const BuildProgress& p) { progress.push_back(p); };
  BuildResult first = builder_.build(request_);
  ASSERT_TRUE(first.ok()) << first.log_tail;
  EXPECT_FALSE(first.cache_hit);
  EXPECT_EQ(to_string(first.outcome), std::string("ok"));
  EXPECT_EQ(first.image.parent_path(), root_ / "cache" / first.cache_key);
  EXPECT_EQ(sha256_file_hex(first.image), first.image_sha256);
  EXPECT_THAT(read_file(first.image), HasSubstr("CONFIG_BASE=y"));
  EXPECT_THAT(first.compiler, HasSubstr("gcc"));
  EXPECT_THAT(read_file(first.log), HasSubstr("  CC      two.o"));
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[1].compiled, 2);
  EXPECT_EQ(progress[1].percent(), -1);  // nothing to compare with yet
  // make gets CC and the reproducibility variables as single arguments, not via a shell.
  EXPECT_EQ(read_file(root_ / "obj/variables"), "ccache gcc|1970-01-01 00:00:00 UTC|kbisect\n");

  BuildResult second = builder_.build(request_);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.image_sha256, first.image_sha256);
  EXPECT_EQ(second.build_seconds, 0);
  // Kconfig ran once: the second build took the final .config from the cache.
  EXPECT_EQ(read_file(root_ / "kconfig-runs"), "tinyconfig\n");
  EXPECT_EQ(read_file(second.config), read_file(first.config));

  // Another tree with the same content is another cache key but the same image; progress
  // now knows how many units to expect.
  progress.clear();
  request_.tree_id = "tree2";
  BuildResult third = builder_.build(request_);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third.cache_hit);
  EXPECT_NE(third.cache_key, first.cache_key);
  EXPECT_EQ(third.image_sha256, first.image_sha256);
  EXPECT_EQ(read_file(root_ / "kconfig-runs"), "tinyconfig\n") << "the same Kconfig sources";
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[0].expected, 2);
  EXPECT_EQ(progress[0].percent(), 50);

  // A change to a Kconfig source (here the top-level Makefile) runs Kconfig again.
  request_.tree_id = "tree3";
  write_file(root_ / "src/Makefile", std::string(kMakefile) + "# v2\n");
  ASSERT_TRUE(builder_.build(request_).ok());
  EXPECT_EQ(read_file(root_ / "kconfig-runs"), "tinyconfig\ntinyconfig\n");
}

// Kbuild assembles the compressed kernel into the image with .incbin in piggy.S, a file the
// compiler's dependency output does not list; two kernels can compress to the same size, so
// piggy.S itself does not change. ccache must assemble it again, not reuse the old object.
TEST_F(BuilderTest, AnIncbinPayloadOfTheSameSizeIsAssembledAgain) {
  write_file(root_ / "src/piggy.S", ".data\n.incbin \"payload.bin\"\n");
  write_file(root_ / "src/payload.bin", "good kernel");
  BuildResult first = builder_.build(request_);
  ASSERT_TRUE(first.ok()) << first.log_tail;
  write_file(root_ / "src/payload.bin", "slow kernel");
  request_.tree_id = "tree2";
  BuildResult second = builder_.build(request_);
  ASSERT_TRUE(second.ok()) << second.log_tail;
  EXPECT_THAT(read_file(second.image), HasSubstr("slow kernel"));
}

TEST_F(BuilderTest, ConfigChangeIsANewKey) {
  BuildResult first = builder_.build(request_);
  write_file(root_ / "fragment.config", "CONFIG_A=y\n");
  request_.kernel.fragments = {root_ / "fragment.config"};
  BuildResult second = builder_.build(request_);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second.cache_hit);
  EXPECT_NE(second.config_sha256, first.config_sha256);
  EXPECT_THAT(read_file(second.config), HasSubstr("CONFIG_A=y"));
  // Redefining the base is what a fragment is for; redefining an earlier fragment is worth
  // a warning.
  EXPECT_EQ(second.warnings, std::vector<std::string>());
  write_file(root_ / "later.config", "CONFIG_A=m\n");
  request_.kernel.fragments.push_back(root_ / "later.config");
  BuildResult third = builder_.build(request_);
  ASSERT_EQ(third.warnings.size(), 1u);
  EXPECT_THAT(third.warnings[0], HasSubstr("later.config:1: CONFIG_A=m redefines CONFIG_A (was "
                                           "CONFIG_A=y from "));
  // Built again, the .config comes from the config cache, and so do its warnings.
  EXPECT_EQ(builder_.build(request_).warnings, third.warnings);
}

TEST_F(BuilderTest, CompileErrorIsBuildFailedWithTheErrorLine) {
  write_file(root_ / "src/code.c", "int main(void) { SYNTAX }\n");
  BuildResult result = builder_.build(request_);
  EXPECT_EQ(result.outcome, BuildOutcome::kBuildFailed);
  EXPECT_EQ(to_string(result.outcome), std::string("build-failed"));
  EXPECT_THAT(result.log_tail, HasSubstr("error lines:\n" + (root_ / "src/code.c").string() +
                                         ":1:7: error: expected ';'"));
  EXPECT_THAT(read_file(result.log), HasSubstr("code.c:1:7: error"));
  EXPECT_TRUE(fs::exists(result.config));
  EXPECT_FALSE(result.cache_hit);

  // The same tree fails again without running make; its fixed successor builds.
  write_file(root_ / "src/code.c", "int main(void) { return 0; }\n");
  BuildResult again = builder_.build(request_);
  EXPECT_EQ(again.outcome, BuildOutcome::kBuildFailed);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.build_seconds, 0);
  EXPECT_EQ(again.log_tail, result.log_tail);
  request_.tree_id = "tree2";
  EXPECT_TRUE(builder_.build(request_).ok());
}

TEST_F(BuilderTest, AFailureInTheObjectDirectoryOfEarlierBuildsIsRetriedFromAnEmptyOne) {
  ASSERT_TRUE(builder_.build(request_).ok());
  write_file(root_ / "obj/stale.h", "");
  request_.tree_id = "tree2";
  BuildResult result = builder_.build(request_);
  EXPECT_TRUE(result.ok()) << result.log_tail;
  EXPECT_THAT(result.warnings, testing::Contains(HasSubstr("built again from an empty one")));
  EXPECT_FALSE(fs::exists(root_ / "obj/stale.h"));
  EXPECT_EQ(read_file(root_ / "make-runs"), "bzImage\nbzImage\nbzImage\n");
}

// The compiler's error is in a file written since the last build: the tree's own, so it is not
// built again from an empty directory.
TEST_F(BuilderTest, ACompileErrorInAFileTheTreeChangedIsRememberedAtOnce) {
  ASSERT_TRUE(builder_.build(request_).ok());
  write_file(root_ / "src/code.c", "int main(void) { SYNTAX }\n");
  request_.tree_id = "tree2";
  BuildResult result = builder_.build(request_);
  EXPECT_EQ(result.outcome, BuildOutcome::kBuildFailed);
  EXPECT_THAT(result.warnings, testing::Not(testing::Contains(HasSubstr("built again"))));
  EXPECT_EQ(read_file(root_ / "make-runs"), "bzImage\nbzImage\n");
  EXPECT_TRUE(builder_.build(request_).cache_hit);
  EXPECT_EQ(read_file(root_ / "make-runs"), "bzImage\nbzImage\n");
}

// The compiler's error is in a file older than the last build (a header the tree changed may be
// the cause, or the directory's state): it counts only once a build from empty fails too.
TEST_F(BuilderTest, ATreeThatFailsFromAnEmptyObjectDirectoryTooIsRemembered) {
  ASSERT_TRUE(builder_.build(request_).ok());
  write_file(root_ / "src/code.c", "int main(void) { SYNTAX }\n");
  fs::last_write_time(root_ / "src/code.c",
                      fs::last_write_time(root_ / "obj/kbisect-build.log") - std::chrono::hours(1));
  request_.tree_id = "tree2";
  BuildResult result = builder_.build(request_);
  EXPECT_EQ(result.outcome, BuildOutcome::kBuildFailed);
  EXPECT_THAT(result.log_tail, HasSubstr("code.c:1:7: error: expected ';'"));
  EXPECT_EQ(read_file(root_ / "make-runs"), "bzImage\nbzImage\nbzImage\n");
  EXPECT_TRUE(builder_.build(request_).cache_hit);
  EXPECT_EQ(read_file(root_ / "make-runs"), "bzImage\nbzImage\nbzImage\n");
}

TEST_F(BuilderTest, CompilerKilledForMemoryIsAnErrorNotAFailedKernel) {
  write_file(root_ / "src/code.c", "int main(void) { OOM }\n");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("ran out of memory"));
  }
  // Nothing was remembered: once memory is back the same tree builds.
  write_file(root_ / "src/code.c", "int main(void) { return 0; }\n");
  EXPECT_TRUE(builder_.build(request_).ok());
}

// The advice names the config key, build.timeout, so following it works.
TEST_F(BuilderTest, TimeoutsSayWhichKeyToRaise) {
  request_.build.timeout_seconds = 1;
  write_file(root_ / "src/slow-kconfig", "");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("timed out after 1 s; raise build.timeout in the config"));
  }
  fs::remove(root_ / "src/slow-kconfig");
  write_file(root_ / "src/code.c", "int main(void) { SLOW }\n");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("timed out after 1 s; raise build.timeout in the config"));
  }
}

TEST_F(BuilderTest, BrokenKconfigIsBuildFailed) {
  write_file(root_ / "src/broken-kconfig", "");
  BuildResult result = builder_.build(request_);
  EXPECT_EQ(result.outcome, BuildOutcome::kBuildFailed);
  EXPECT_THAT(result.log_tail, HasSubstr("Kconfig:1: error: syntax"));
  // A failed Kconfig run is not kept: the next build runs it again.
  EXPECT_EQ(builder_.build(request_).outcome, BuildOutcome::kBuildFailed);
  EXPECT_EQ(read_file(root_ / "kconfig-runs"), "tinyconfig\ntinyconfig\n");
}

TEST_F(BuilderTest, RequiredOptionThatDoesNotHoldIsAnError) {
  write_file(root_ / "guest.config", "CONFIG_BASE=y\nCONFIG_DROPPED=y\n");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("CONFIG_DROPPED=y"));
    EXPECT_THAT(error.what(), HasSubstr("guest.config:2"));
    EXPECT_THAT(error.what(), HasSubstr("no Kconfig file in this tree defines DROPPED"));
  }
}

TEST_F(BuilderTest, EveryRequiredFileIsChecked) {
  write_file(root_ / "xfs.config", "CONFIG_BASE=y\nCONFIG_DROPPED=y\n");
  request_.guest_configs.push_back(root_ / "xfs.config");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("CONFIG_DROPPED=y (" + (root_ / "xfs.config:2").string()));
  }
}

TEST(GuestConfigs, TheScenariosFilesystemsAddTheirOptions) {
  const fs::path kconfig = fs::path(KBISECT_SOURCE_DIR) / "vmimages/kconfig";
  Scenario scenario;
  EXPECT_EQ(guest_configs_for(scenario),
            (std::vector<fs::path>{kconfig / "guest.config", kconfig / "ext4.config"}));
  Variant xfs;
  xfs.filesystem = FilesystemKind::kXfs;
  scenario.workload.variants = {xfs};
  EXPECT_EQ(guest_configs_for(scenario),
            (std::vector<fs::path>{kconfig / "guest.config", kconfig / "ext4.config",
                                   kconfig / "xfs.config"}));
  scenario.filesystem.kind = FilesystemKind::kXfs;
  EXPECT_EQ(guest_configs_for(scenario),
            (std::vector<fs::path>{kconfig / "guest.config", kconfig / "xfs.config"}));
  for (const fs::path& file : guest_configs_for(scenario)) EXPECT_TRUE(fs::is_regular_file(file));
}

// The workdir check and the builder's own check of the directories under it are one rule: a
// workdir the first accepts is not refused by the second at every build.
TEST_F(BuilderTest, AWorkdirTheCheckAcceptsBuilds) {
  const fs::path workdir = kbuild_safe_workdir(root_ / "caf\xc3\xa9~1");
  request_.object_dir = workdir / "obj";
  BuildResult result = builder_.build(request_);
  EXPECT_TRUE(result.ok()) << result.log_tail;
}

TEST_F(BuilderTest, BadRequestsAreErrors) {
  BuildRequest request = request_;
  request.build.cache_dir.clear();
  EXPECT_THROW(builder_.build(request), Error);
  request = request_;
  request.source_dir = root_;
  EXPECT_THROW(builder_.build(request), Error);
  request = request_;
  request.kernel.base_config = (root_ / "no-such.config").string();
  EXPECT_THROW(builder_.build(request), Error);
  request = request_;
  request.kernel.fragments = {root_ / "no-such-fragment.config"};
  EXPECT_THROW(builder_.build(request), Error);
  for (const char* name : {"my obj", "a;b", "x:y"}) {
    request = request_;
    request.object_dir = root_ / name;
    try {
      builder_.build(request);
      FAIL() << "expected an error for " << name;
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("which the kernel's make cannot take")) << name;
    }
  }
  write_file(root_ / "src/.config", "CONFIG_A=y\n");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("make mrproper"));
  }
}

TEST_F(BuilderTest, BaseConfigFromAFile) {
  write_file(root_ / "base.config", "CONFIG_BASE=y\nCONFIG_FROM_FILE=y\n");
  request_.kernel.base_config = (root_ / "base.config").string();
  BuildResult result = builder_.build(request_);
  ASSERT_TRUE(result.ok()) << result.log_tail;
  EXPECT_THAT(read_file(result.config), HasSubstr("CONFIG_FROM_FILE=y"));
}

TEST_F(BuilderTest, BusyObjectDirectoryIsAnError) {
  // flock locks belong to the open file description: a second open in this process conflicts.
  DirLock held(request_.object_dir, "");
  try {
    builder_.build(request_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("is in use by another kbisect process; wait for it"));
  }
}

}  // namespace
}  // namespace kbisect
