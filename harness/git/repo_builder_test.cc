#include "git/repo_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/file.h"
#include "common/process.h"
#include "git/test_repo.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

void add_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  write_file(path, content);
}

TEST(RepoBuilder, RepositoryFromDirectoryHoldsEveryFileModeAndLink) {
  TempDir dir;
  fs::path source = dir.path() / "linux";
  add_file(source / "Makefile", "all:\n");
  add_file(source / "fs/ext4/file.c", "int x;\n");
  add_file(source / "scripts/setlocalversion", "#!/bin/sh\n");
  fs::permissions(source / "scripts/setlocalversion", fs::perms::owner_exec, fs::perm_options::add);
  fs::create_symlink("../fs/ext4/file.c", source / "scripts/link");
  add_file(source / ".gitignore", "*.o\n");
  add_file(source / "fs/ext4/file.o", "ignored by .gitignore, still kept\n");
  add_file(source / ".git/HEAD", "not part of the tree\n");
  fs::create_directories(source / "empty");

  fs::path repo_path = dir.path() / "linux.git";
  std::string id = create_repo_from_directory(source, repo_path, "linux-source-6.1");
  std::string listing = run_checked(
      {"git", "-C", repo_path.string(), "ls-tree", "-r", "--format=%(objectmode) %(path)", id});
  EXPECT_EQ(listing,
            "100644 .gitignore\n"
            "100644 Makefile\n"
            "100644 fs/ext4/file.c\n"
            "100644 fs/ext4/file.o\n"
            "120000 scripts/link\n"
            "100755 scripts/setlocalversion\n");
  EXPECT_EQ(run_checked({"git", "-C", repo_path.string(), "show", id + ":scripts/link"}),
            "../fs/ext4/file.c");
  EXPECT_EQ(run_checked({"git", "-C", repo_path.string(), "rev-parse", "HEAD"}), id + "\n");
  EXPECT_EQ(run_checked({"git", "-C", repo_path.string(), "log", "--format=%s", "HEAD"}),
            "linux-source-6.1\n");
  // An existing target is refused rather than mixed into.
  EXPECT_THROW(create_repo_from_directory(source, repo_path, "again"), Error);
  EXPECT_THROW(create_repo_from_directory(dir.path() / "missing", dir.path() / "x.git", "m"),
               Error);
}

TEST(RepoBuilder, CommitChangesWritesAddsRemovesAndMerges) {
  TestRepo test;
  Repository repo = Repository::open(test.dir());
  std::string root = commit_changes(
      repo, {{}, {{"a.c", "a0\n"}, {"b.c", "b0\n"}}, "root", 1700000000, "refs/heads/main"});
  std::string left = commit_changes(
      repo,
      {{root}, {{"a.c", "a1\n"}, {"b.c", std::nullopt}}, "left", 1700000060, "refs/heads/main"});
  std::string right =
      commit_changes(repo, {{root}, {{"c.c", "c1\n"}}, "right", 1700000120, "refs/heads/side"});
  std::string merge =
      commit_changes(repo, {{left, right}, {}, "merge side", 1700000180, "refs/heads/main"});
  EXPECT_EQ(test.git({"rev-parse", "main"}), merge);
  EXPECT_EQ(test.git({"rev-parse", "side"}), right);
  EXPECT_EQ(test.git({"ls-tree", "-r", "--name-only", merge}), "a.c\nc.c");
  EXPECT_EQ(test.git({"show", merge + ":a.c"}), "a1");
  EXPECT_EQ(test.git({"log", "-1", "--format=%P %ct %an", merge}),
            left + " " + right + " 1700000180 kbisect");
  test.git({"fsck", "--strict"});

  std::string conflicting =
      commit_changes(repo, {{root}, {{"a.c", "a2\n"}}, "conflicting", 1700000240, {}});
  try {
    commit_changes(repo, {{left, conflicting}, {}, "merge", 0, {}});
    FAIL() << "a conflicting merge was accepted";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("conflicts in: a.c"));
  }
}

}  // namespace
}  // namespace kbisect
