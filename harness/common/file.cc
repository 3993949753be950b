#include "common/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/unique_fd.h"

namespace kbisect {
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::optional<std::string> contents = read_file_if_present(path);
  if (!contents) fail("cannot read {}: {}", path.string(), errno_text(errno));
  return *contents;
}

std::optional<std::string> read_file_if_present(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void write_file(const fs::path& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) fail("cannot write {}: {}", path.string(), errno_text(errno));
}

namespace {

void write_all(int fd, std::string_view contents, const fs::path& path) {
  while (!contents.empty()) {
    ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) fail("cannot write {}: {}", path.string(), errno_text(errno));
    contents.remove_prefix(static_cast<size_t>(written));
  }
}

void sync_file(int fd, const fs::path& path) {
  if (::fsync(fd) != 0) fail("cannot sync {}: {}", path.string(), errno_text(errno));
}

// Removes the temporary file unless the rename has taken it.
class TemporaryFile {
 public:
  explicit TemporaryFile(fs::path path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    std::error_code ignored;
    if (!renamed_) fs::remove(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  void renamed() { renamed_ = true; }

 private:
  fs::path path_;
  bool renamed_ = false;
};

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view contents) {
  TemporaryFile temporary(fs::path(path) += ".tmp" + std::to_string(::getpid()));
  {
    UniqueFd fd(::open(temporary.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd) fail("cannot write {}: {}", temporary.path().string(), errno_text(errno));
    write_all(fd.get(), contents, temporary.path());
    // Without it, a crash soon after the rename can leave `path` empty on ext4.
    sync_file(fd.get(), temporary.path());
  }
  std::error_code error;
  fs::rename(temporary.path(), path, error);
  if (error) {
    fail("cannot rename {} to {}: {}", temporary.path().string(), path.string(), error.message());
  }
  temporary.renamed();
  sync_to_disk(path.has_parent_path() ? path.parent_path() : fs::path("."));
}

void sync_to_disk(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) fail("cannot open {}: {}", path.string(), errno_text(errno));
  sync_file(fd.get(), path);
}

}  // namespace kbisect
