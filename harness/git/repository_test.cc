#include "git/repository.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "common/error.h"
#include "common/temp_dir.h"
#include "git/test_repo.h"

namespace kbisect {
namespace {

using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

class RepositoryTest : public testing::Test {
 protected:
  void SetUp() override {
    repo_.write("a.txt", "one\n");
    first_ = repo_.commit("first");
    repo_.write("a.txt", "two\n");
    second_ = repo_.commit("second\n\nbody text");
    repo_.git({"tag", "-a", "-m", "annotated", "v1"});
    repo_.write("b.txt", "three\n");
    third_ = repo_.commit("third");
  }

  TestRepo repo_;
  std::string first_, second_, third_;
};

TEST_F(RepositoryTest, ResolvesRefsPrefixesAndRelativeSpecs) {
  Repository repo = Repository::open(repo_.dir());
  EXPECT_EQ(repo.resolve("HEAD"), third_);
  EXPECT_EQ(repo.resolve("main"), third_);
  EXPECT_EQ(repo.resolve("HEAD~2"), first_);
  EXPECT_EQ(repo.resolve("@"), third_);  // git's shorthand for HEAD
  EXPECT_EQ(repo.resolve("@~2"), first_);
  EXPECT_EQ(repo.resolve("@^"), second_);
  EXPECT_EQ(repo.resolve("v1"), second_);  // annotated tag peeled to its commit
  EXPECT_EQ(repo.resolve(second_.substr(0, 10)), second_);
  EXPECT_EQ(repo.resolve(first_), first_);
}

TEST_F(RepositoryTest, UnknownAndNonCommitSpecsAreClearErrors) {
  Repository repo = Repository::open(repo_.dir());
  EXPECT_THAT(error_of([&] { repo.resolve("no-such-branch"); }),
              HasSubstr("unknown revision 'no-such-branch'"));
  EXPECT_THAT(error_of([&] { repo.resolve("HEAD~10"); }), HasSubstr("unknown revision"));
  EXPECT_THAT(error_of([&] { repo.resolve(std::string(40, '0')); }), HasSubstr("unknown revision"));
  EXPECT_THAT(error_of([&] { repo.resolve("HEAD^{tree}"); }), HasSubstr("is a tree, not a commit"));
  EXPECT_THAT(error_of([&] { repo.resolve(""); }), HasSubstr("empty revision"));
}

// Writes to the repository's object database the first object of `type` whose id starts with
// `prefix`, made by numbering the content `make(n)`; returns its id.
std::string write_object_with_prefix(const Repository& repo, const std::string& prefix,
                                     git_object_t type,
                                     const std::function<std::string(int)>& make) {
  git_odb* raw = nullptr;
  check_git(git_repository_odb(&raw, repo.get()), "odb", "");
  Unique<git_odb, git_odb_free> odb(raw);
  for (int n = 0;; ++n) {
    const std::string content = make(n);
    git_oid id;
    git_odb_hash(&id, content.data(), content.size(), type);
    if (oid_hex(id).starts_with(prefix)) {
      check_git(git_odb_write(&id, odb.get(), content.data(), content.size(), type), "write", "");
      return oid_hex(id);
    }
  }
}

// As git log and git bisect read it: a short id is the commit's when only other kinds
// of objects share it, after ~ and ^ too; two commits are ambiguous.
TEST_F(RepositoryTest, AShortIdIsTheCommitsWhenOnlyABlobSharesIt) {
  Repository repo = Repository::open(repo_.dir());
  const std::string prefix = second_.substr(0, 4);
  const std::string blob = write_object_with_prefix(
      repo, prefix, GIT_OBJECT_BLOB, [](int n) { return "blob " + std::to_string(n); });
  EXPECT_EQ(repo.resolve(prefix), second_);
  EXPECT_EQ(repo.resolve(prefix + "~1"), first_);
  EXPECT_EQ(repo.resolve(prefix + "^"), first_);
  EXPECT_THAT(error_of([&] { repo.resolve(blob.substr(0, 20)); }),
              HasSubstr("is a blob, not a commit"));
  EXPECT_EQ(repo_.git({"log", "-1", "--format=%H", prefix}), second_) << "git itself";

  const std::string tree = repo_.git({"rev-parse", second_ + "^{tree}"});
  write_object_with_prefix(repo, prefix, GIT_OBJECT_COMMIT, [&](int n) {
    return "tree " + tree + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\n" +
           std::to_string(n) + "\n";
  });
  EXPECT_THAT(error_of([&] { repo.resolve(prefix); }),
              HasSubstr("is ambiguous in " + repo_.dir().string() + "; give more digits"));
}

TEST_F(RepositoryTest, CommitInfo) {
  Repository repo = Repository::open(repo_.dir());
  CommitInfo info = repo.commit_info("v1");
  EXPECT_EQ(info.id, second_);
  EXPECT_EQ(info.subject, "second");
  EXPECT_EQ(info.message, "second\n\nbody text\n");
  EXPECT_EQ(info.author_name, "Test Author");
  EXPECT_EQ(info.author_email, "author@example.com");
  EXPECT_EQ(info.author_time, 1700000120);
  EXPECT_EQ(info.parents, std::vector<std::string>{first_});
  EXPECT_EQ(info.tree_id, repo_.git({"rev-parse", second_ + "^{tree}"}));
  EXPECT_TRUE(repo.commit_info(first_).parents.empty());
}

TEST_F(RepositoryTest, Ancestry) {
  Repository repo = Repository::open(repo_.dir());
  EXPECT_TRUE(repo.is_ancestor(first_, third_));
  EXPECT_TRUE(repo.is_ancestor(second_, third_));
  EXPECT_FALSE(repo.is_ancestor(third_, first_));
  EXPECT_FALSE(repo.is_ancestor(third_, third_));
  repo_.git({"checkout", "-q", "-b", "side", first_});
  repo_.write("c.txt", "side\n");
  const std::string side = repo_.commit("side");
  EXPECT_TRUE(repo.is_ancestor(first_, side));
  EXPECT_FALSE(repo.is_ancestor(second_, side));
  EXPECT_FALSE(repo.is_ancestor(side, third_));
}

TEST(Repository, OpeningANonRepositoryIsAClearError) {
  TempDir dir;
  EXPECT_THAT(error_of([&] { Repository::open(dir.path()); }),
              HasSubstr("cannot open git repository"));
  EXPECT_THAT(error_of([&] { Repository::open(dir.path() / "missing"); }),
              HasSubstr("set kernel.repo"));
  // Where the path was given comes first, as every config error's FILE:LINE.
  EXPECT_THAT(error_of([&] { Repository::open(dir.path(), "c.yaml:3:9: kernel.repo"); }),
              StartsWith("c.yaml:3:9: kernel.repo: cannot open git repository"));
}

// libgit2 reads its global, XDG and system configs from `dir` (an empty one: none) while this
// lives.
class ConfigSearchPaths {
 public:
  explicit ConfigSearchPaths(const std::filesystem::path& dir) { set(dir.c_str()); }
  ~ConfigSearchPaths() { set(nullptr); }  // nullptr: the defaults
  ConfigSearchPaths(const ConfigSearchPaths&) = delete;
  ConfigSearchPaths& operator=(const ConfigSearchPaths&) = delete;

 private:
  static void set(const char* path) {
    init_libgit2();
    for (int level : {GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_SYSTEM,
                      GIT_CONFIG_LEVEL_PROGRAMDATA}) {
      git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, path);
    }
  }
};

// Another account's repository (reading its nightly results): git's ownership check refuses it,
// and the error says how to trust it rather than to fix kernel.repo.
TEST(Repository, AnotherUsersRepositoryNamesSafeDirectory) {
  if (::geteuid() != 0) GTEST_SKIP() << "gives the repository to another user: needs root";
  // No safe.directory of this host's: root containers often trust every directory.
  TempDir no_config;
  const ConfigSearchPaths only_repository_config(no_config.path());
  TestRepo repo;
  repo.write("a.txt", "a\n");
  repo.commit("first");
  ASSERT_EQ(::chown(repo.dir().c_str(), 65534, 65534), 0);
  const std::string error = error_of([&] { Repository::open(repo.dir()); });
  EXPECT_THAT(error, HasSubstr("belongs to another user"));
  EXPECT_THAT(error, HasSubstr("git config --global --add safe.directory " + repo.dir().string()));
  EXPECT_THAT(error, Not(HasSubstr("set kernel.repo")));
}

}  // namespace
}  // namespace kbisect
