// Test support: a scratch git repository in a temporary directory, driven by the git CLI so
// that the libgit2 code is checked against git itself. Commit dates are explicit so that the
// history (and git's date-ordered output) is reproducible.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/temp_dir.h"

namespace kbisect {

class TestRepo {
 public:
  TestRepo();

  const std::filesystem::path& dir() const { return dir_.path(); }

  // Runs `git -C dir args...` and returns its output with the final newline removed.
  std::string git(const std::vector<std::string>& args) const;

  void write(const std::string& path, const std::string& content) const;
  void remove(const std::string& path) const;
  // Stages everything and commits; returns the new commit id.
  std::string commit(const std::string& message);
  // `git merge --no-ff` of `branch` into the current branch; returns the merge commit id.
  std::string merge(const std::string& branch, const std::string& message);

 private:
  std::string date() const;

  TempDir dir_;
  int64_t date_ = 1700000000;  // one minute more for each commit
};

// Lines of `text`, without empty ones.
std::vector<std::string> split_lines(const std::string& text);

}  // namespace kbisect
