#include "git/checkout.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <map>

#include "common/error.h"
#include "common/file.h"
#include "common/fork_for_test.h"
#include "common/process.h"
#include "git/test_repo.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

// path -> "link <target>" or "file <x|-> <content>": everything that must match a checkout.
std::map<std::string, std::string> snapshot(const fs::path& dir,
                                            const std::vector<std::string>& skip) {
  std::map<std::string, std::string> entries;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    std::string path = it->path().lexically_relative(dir).generic_string();
    if (std::find(skip.begin(), skip.end(), path) != skip.end()) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink()) {
      entries[path] = "link " + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      bool executable =
          (fs::status(it->path()).permissions() & fs::perms::owner_exec) != fs::perms::none;
      entries[path] = std::string("file ") + (executable ? "x " : "- ") + read_file(it->path());
    } else if (fs::is_empty(it->path())) {
      entries[path] = "empty directory";  // git never leaves one behind
    }
  }
  return entries;
}

// What git itself puts on disk for `commit`: `git archive` unpacked by tar.
std::map<std::string, std::string> git_checkout(const TestRepo& repo, const std::string& commit,
                                                const fs::path& scratch) {
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  fs::path tar = scratch.string() + ".tar";
  repo.git({"archive", "-o", tar.string(), commit});
  run_checked({"tar", "-xf", tar.string(), "-C", scratch.string()});
  return snapshot(scratch, {});
}

struct timespec mtime(const fs::path& path) {
  struct stat status;
  EXPECT_EQ(::lstat(path.c_str(), &status), 0) << path;
  return status.st_mtim;
}

void set_old_mtime(const fs::path& path) {
  struct timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

class CheckoutTest : public testing::Test {
 protected:
  void SetUp() override {
    repo_.write("Makefile", "all:\n");
    repo_.write("unchanged/deep/file.c", "same\n");
    repo_.write("fs/ext4/file.c", "v1\n");
    repo_.write("fs/ext4/old.c", "old\n");
    repo_.write("fs/ext4/renamed.c", "rename me\n");
    repo_.write("scripts/tool.sh", "#!/bin/sh\n");
    repo_.write("scripts/was-exec.sh", "#!/bin/sh\n");
    fs::permissions(repo_.dir() / "scripts/was-exec.sh", fs::perms::owner_exec,
                    fs::perm_options::add);
    fs::create_symlink("../Makefile", repo_.dir() / "scripts/link");
    fs::create_symlink("file.c", repo_.dir() / "fs/ext4/becomes-file");
    repo_.write("fs/ext4/becomes-link", "a file\n");
    repo_.write("becomes-dir", "a file\n");
    repo_.write("becomes-file/inner.c", "inside\n");
    repo_.write("gone/only.c", "the only file here\n");
    first_ = repo_.commit("first");

    repo_.write("fs/ext4/file.c", "v2\n");
    repo_.remove("fs/ext4/old.c");
    repo_.remove("fs/ext4/renamed.c");  // a rename, as git sees it
    repo_.write("fs/ext4/moved/renamed.c", "rename me\n");
    repo_.write("fs/xfs/new.c", "new\n");
    fs::permissions(repo_.dir() / "scripts/tool.sh", fs::perms::owner_exec, fs::perm_options::add);
    fs::permissions(repo_.dir() / "scripts/was-exec.sh",
                    fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::remove);
    repo_.remove("scripts/link");
    fs::create_symlink("tool.sh", repo_.dir() / "scripts/link");
    repo_.remove("fs/ext4/becomes-file");
    repo_.write("fs/ext4/becomes-file", "now a file\n");
    repo_.remove("fs/ext4/becomes-link");
    fs::create_symlink("file.c", repo_.dir() / "fs/ext4/becomes-link");
    repo_.remove("becomes-dir");
    repo_.write("becomes-dir/inner.c", "now inside\n");
    repo_.remove("becomes-file");
    repo_.write("becomes-file", "now a file\n");
    repo_.remove("gone");
    second_ = repo_.commit("second");
  }

  TestRepo repo_;
  TempDir scratch_;
  std::string first_, second_;
};

TEST_F(CheckoutTest, FullThenIncrementalMatchesGitAndKeepsUnchangedFiles) {
  Repository repo = Repository::open(repo_.dir());
  fs::path build = scratch_.path() / "src";
  const std::vector<std::string> skip = {std::string(kManifestName), "build-output",
                                         "fs/ext4/editor.swp"};

  MaterialiseStats stats = materialise_tree(repo, first_, build);
  EXPECT_TRUE(stats.full);
  EXPECT_EQ(snapshot(build, skip), git_checkout(repo_, first_, scratch_.path() / "git"));

  // Files that are not from the tree must survive, and unchanged files keep their mtime.
  fs::create_directories(build / "build-output");
  std::ofstream(build / "build-output/vmlinux") << "binary";
  std::ofstream(build / "fs/ext4/editor.swp") << "scratch";
  set_old_mtime(build / "unchanged/deep/file.c");
  set_old_mtime(build / "fs/ext4/file.c");
  set_old_mtime(build / "scripts/tool.sh");

  stats = materialise_tree(repo, second_, build);
  EXPECT_FALSE(stats.full);
  EXPECT_EQ(stats.mode_changes, 2u);  // tool.sh and was-exec.sh: same content, new mode
  EXPECT_EQ(snapshot(build, skip), git_checkout(repo_, second_, scratch_.path() / "git"));
  EXPECT_EQ(mtime(build / "unchanged/deep/file.c").tv_sec, 1000000000);
  EXPECT_GT(mtime(build / "fs/ext4/file.c").tv_sec, 1000000000);
  EXPECT_EQ(mtime(build / "scripts/tool.sh").tv_sec, 1000000000);  // chmod only
  EXPECT_TRUE(fs::exists(build / "build-output/vmlinux"));
  EXPECT_TRUE(fs::exists(build / "fs/ext4/editor.swp"));
  EXPECT_FALSE(fs::exists(build / "gone"));  // emptied directories go too

  // And back again, by tree id this time.
  stats = materialise_tree(repo, repo_.git({"rev-parse", first_ + "^{tree}"}), build);
  EXPECT_FALSE(stats.full);
  EXPECT_EQ(snapshot(build, skip), git_checkout(repo_, first_, scratch_.path() / "git"));
  EXPECT_EQ(mtime(build / "unchanged/deep/file.c").tv_sec, 1000000000);
}

// A file that only becomes executable gets x wherever it has r, as a fresh write of 0777 less
// the umask would (git's rule): 0700 under umask 077, not 0711.
TEST_F(CheckoutTest, AModeChangeGivesTheUmasksPermissions) {
  Repository repo = Repository::open(repo_.dir());
  fs::path build = scratch_.path() / "src";
  const mode_t old_umask = ::umask(077);
  materialise_tree(repo, first_, build);
  MaterialiseStats stats = materialise_tree(repo, second_, build);
  ::umask(old_umask);
  EXPECT_EQ(stats.mode_changes, 2u);
  EXPECT_EQ(fs::status(build / "scripts/tool.sh").permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(build / "scripts/was-exec.sh").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(CheckoutTest, SameTreeWritesNothing) {
  Repository repo = Repository::open(repo_.dir());
  fs::path build = scratch_.path() / "src";
  materialise_tree(repo, second_, build);
  MaterialiseStats stats = materialise_tree(repo, second_, build);
  EXPECT_FALSE(stats.full);
  EXPECT_EQ(stats.written + stats.removed + stats.mode_changes, 0u);
}

TEST_F(CheckoutTest, MissingOrCorruptManifestMeansFullCheckout) {
  Repository repo = Repository::open(repo_.dir());
  fs::path build = scratch_.path() / "src";
  const std::vector<std::string> skip = {std::string(kManifestName)};
  materialise_tree(repo, first_, build);
  for (const std::string& manifest : {std::string("garbage\n"), std::string(40, 'f') + "\n"}) {
    std::ofstream(build / kManifestName, std::ios::trunc) << manifest;
    MaterialiseStats stats = materialise_tree(repo, second_, build);
    EXPECT_TRUE(stats.full) << manifest;
    // Stale files of the old tree may stay after a full checkout; those of the new tree are right.
    std::map<std::string, std::string> expected =
        git_checkout(repo_, second_, scratch_.path() / "git");
    std::map<std::string, std::string> actual = snapshot(build, skip);
    for (const auto& [path, entry] : expected) EXPECT_EQ(actual[path], entry) << path;
    materialise_tree(repo, first_, build);
  }
}

// Ctrl-C during a checkout stops it between two files; the directory is then known to be in
// between trees, and the next checkout is a full one that also clears what either tree left,
// whichever tree it goes to. In a child process (the signal's).
TEST_F(CheckoutTest, InterruptedCheckoutStopsAndTheNextClearsBothTrees) {
  fs::path build = scratch_.path() / "src";
  pid_t child = fork_running([&] {
    Repository repo = Repository::open(repo_.dir());
    materialise_tree(repo, first_, build);
    ::raise(SIGINT);
    materialise_tree(repo, second_, build);
  });
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(ended_interrupted(status)) << status;
  EXPECT_THAT(read_file(build / kManifestName),
              testing::StartsWith("between " + repo_.git({"rev-parse", first_ + "^{tree}"})));
  // What a checkout stopped later would have written of the second tree.
  fs::create_directories(build / "fs/xfs");
  std::ofstream(build / "fs/xfs/new.c") << "new\n";
  Repository repo = Repository::open(repo_.dir());
  EXPECT_TRUE(materialise_tree(repo, first_, build).full);
  EXPECT_EQ(snapshot(build, {std::string(kManifestName)}),
            git_checkout(repo_, first_, scratch_.path() / "git"));
  EXPECT_FALSE(materialise_tree(repo, second_, build).full);
  EXPECT_EQ(snapshot(build, {std::string(kManifestName)}),
            git_checkout(repo_, second_, scratch_.path() / "git"));
}

TEST_F(CheckoutTest, ClearErrors) {
  Repository repo = Repository::open(repo_.dir());
  EXPECT_THROW(materialise_tree(repo, "no-such-ref", scratch_.path() / "src"), Error);
  // A directory with untracked files where the new tree has a file.
  fs::path build = scratch_.path() / "src";
  materialise_tree(repo, first_, build);
  std::ofstream(build / "becomes-file/build.o") << "object";
  try {
    materialise_tree(repo, second_, build);
    FAIL() << "a directory in the way was overwritten";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("a directory is in the way"));
  }
  // The failed update left no manifest: the next attempt is a full checkout.
  fs::remove(build / "becomes-file/build.o");
  EXPECT_TRUE(materialise_tree(repo, second_, build).full);
}

}  // namespace
}  // namespace kbisect
