// The kernel repository through libgit2: open it, resolve what the user typed (a branch, tag,
// sha prefix, `HEAD~3`, `v6.1^{}`) to a commit id, and read commit metadata. Everything else
// in git/ builds on this. A Repository is not thread-safe: open one per thread.
#pragma once

#include <git2.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_handle.h"

namespace kbisect {

using GitRepositoryPtr = Unique<git_repository, git_repository_free>;
using GitObjectPtr = Unique<git_object, git_object_free>;
using GitCommitPtr = Unique<git_commit, git_commit_free>;
using GitTreePtr = Unique<git_tree, git_tree_free>;
using GitBlobPtr = Unique<git_blob, git_blob_free>;
using GitIndexPtr = Unique<git_index, git_index_free>;
using GitDiffPtr = Unique<git_diff, git_diff_free>;
using GitRevwalkPtr = Unique<git_revwalk, git_revwalk_free>;
using GitSignaturePtr = Unique<git_signature, git_signature_free>;

// Initialises libgit2 for the life of the process; cheap after the first call.
void init_libgit2();

// Throws Error("<what>: <libgit2's last error>; <todo>") when a libgit2 call returned < 0.
void check_git(int result, std::string_view what, std::string_view todo);

std::string oid_hex(const git_oid& oid);
// Parses a full 40-hex id; throws Error naming `what` otherwise.
git_oid parse_oid(std::string_view hex, std::string_view what);

struct CommitInfo {
  std::string id;       // 40-hex
  std::string tree_id;  // 40-hex
  std::string subject;  // first line of the message
  std::string message;  // full message
  std::string author_name;
  std::string author_email;
  int64_t author_time = 0;     // seconds since the epoch
  int64_t committer_time = 0;  // seconds since the epoch
  std::vector<std::string> parents;
};

class Repository {
 public:
  // Opens the repository at `path` (a work tree, its .git directory or a bare repository).
  // `place` ("FILE:LINE:COLUMN: kernel.repo") says where the path was given; errors begin
  // with it.
  static Repository open(const std::filesystem::path& path, std::string_view place = {});

  // The commit that `spec` names, as a 40-hex id; tags are peeled. Throws Error for unknown,
  // ambiguous or non-commit specs.
  std::string resolve(std::string_view spec) const;

  CommitInfo commit_info(std::string_view spec) const;

  // Whether `ancestor` is reachable from `commit` by parent links (both 40-hex ids); a commit
  // is not its own ancestor.
  bool is_ancestor(std::string_view ancestor, std::string_view commit) const;

  // Looks up a commit by its full 40-hex id.
  GitCommitPtr lookup_commit(std::string_view id) const;

  git_repository* get() const { return repo_.get(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  Repository(GitRepositoryPtr repo, std::filesystem::path path)
      : repo_(std::move(repo)), path_(std::move(path)) {}

  GitRepositoryPtr repo_;
  std::filesystem::path path_;
};

// "kbisect <kbisect@localhost>" at `time` (seconds since the epoch; 0: now): the identity of
// the commits kbisect makes itself.
GitSignaturePtr kbisect_signature(int64_t time);

// Paths in conflict in an index left by a merge or revert, sorted, each once.
std::vector<std::string> conflicted_paths(git_index* index);

// The first line of a commit message, printable (printable_line).
std::string commit_subject(const git_commit* commit);

}  // namespace kbisect
