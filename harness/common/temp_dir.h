// A directory of a test's own, removed with everything in it when the test ends.
#pragma once

#include <filesystem>

namespace kbisect {

class TempDir {
 public:
  // Under `parent`; a test that needs O_DIRECT names /var/tmp, since tmpfs refuses it.
  explicit TempDir(const std::filesystem::path& parent = std::filesystem::temp_directory_path());
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kbisect
