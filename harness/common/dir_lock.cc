#include "common/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>

#include "common/error.h"

namespace kbisect {

DirLock::DirLock(const std::filesystem::path& dir, std::string_view advice) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) fail("cannot create {}: {}; check the workdir setting", dir.string(), error.message());
  fd_.reset(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd_) fail("cannot open {}: {}; check the workdir setting", dir.string(), errno_text(errno));
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    fail("{} is in use by another kbisect process; {}", dir.string(), advice);
  }
}

}  // namespace kbisect
