// An exclusive lock on a directory kbisect writes (a workdir, a kernel work tree, a build's
// objects), held for the owner's lifetime, so that two kbisect processes never write one at
// the same time. flock(2) on the directory itself: nothing is left on disk, and the lock goes
// with the process however it ends.
#pragma once

#include <filesystem>
#include <string_view>

#include "common/unique_fd.h"

namespace kbisect {

class DirLock {
 public:
  // Creates `dir` if it is missing. When another process holds it, throws Error "DIR is in
  // use by another kbisect process; ADVICE".
  DirLock(const std::filesystem::path& dir, std::string_view advice);

 private:
  UniqueFd fd_;
};

}  // namespace kbisect
