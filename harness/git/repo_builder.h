// Test support: making commits without a work tree, a one-commit repository from a directory
// of files and single commits with a few changed files (test histories, merges). The commits
// carry the fixed identity "kbisect <kbisect@localhost>".
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "git/repository.h"

namespace kbisect {

// Creates a bare repository at `repo_path` (which must not exist yet) whose one commit, on the
// default branch, holds every file below `dir`: regular files with their executable bit and
// symlinks; `.git` entries are skipped, empty directories are lost (git has none). Returns the
// commit id.
std::string create_repo_from_directory(const std::filesystem::path& dir,
                                       const std::filesystem::path& repo_path,
                                       const std::string& message);

struct NewCommit {
  // Empty: a root commit. Two: a merge whose tree is libgit2's merge of both (a conflict is an
  // error naming the files). More are not supported.
  std::vector<std::string> parents;
  // Path -> new content of a regular file; nullopt removes the file.
  std::map<std::string, std::optional<std::string>> files;
  std::string message;
  int64_t time = 0;        // author and committer time, seconds since the epoch; 0: now
  std::string update_ref;  // ref to create or move to the new commit; empty: none
};

// Writes the commit and returns its id.
std::string commit_changes(const Repository& repo, const NewCommit& commit);

}  // namespace kbisect
