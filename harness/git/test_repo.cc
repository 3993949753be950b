#include "git/test_repo.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/file.h"
#include "common/process.h"

namespace kbisect {

TestRepo::TestRepo() {
  git({"init", "-q", "-b", "main"});
}

std::string TestRepo::date() const {
  return fmt::format("@{} +0000", date_);
}

std::string TestRepo::git(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"git", "-C", dir().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.tail_bytes = 64 << 20;
  options.extra_environment = {{"GIT_AUTHOR_DATE", date()},
                               {"GIT_COMMITTER_DATE", date()},
                               {"GIT_AUTHOR_NAME", "Test Author"},
                               {"GIT_AUTHOR_EMAIL", "author@example.com"},
                               {"GIT_COMMITTER_NAME", "Test Committer"},
                               {"GIT_COMMITTER_EMAIL", "committer@example.com"}};
  std::string output = run_checked(argv, options);
  if (!output.empty() && output.back() == '\n') output.pop_back();
  return output;
}

void TestRepo::write(const std::string& path, const std::string& content) const {
  auto file = dir() / path;
  std::filesystem::create_directories(file.parent_path());
  write_file(file, content);
}

void TestRepo::remove(const std::string& path) const {
  std::filesystem::remove_all(dir() / path);
}

std::string TestRepo::commit(const std::string& message) {
  date_ += 60;
  git({"add", "-A"});
  git({"commit", "-q", "--allow-empty", "-m", message});
  return git({"rev-parse", "HEAD"});
}

std::string TestRepo::merge(const std::string& branch, const std::string& message) {
  date_ += 60;
  git({"merge", "-q", "--no-ff", "-m", message, branch});
  return git({"rev-parse", "HEAD"});
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace kbisect
