#include "common/temp_dir.h"

#include <stdlib.h>

#include <cerrno>

#include "common/error.h"

namespace kbisect {

TempDir::TempDir(const std::filesystem::path& parent) {
  std::string pattern = (parent / "kbisect-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    fail("cannot create a temporary directory {}: {}", pattern, errno_text(errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace kbisect
