#include "vm/console_file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kbisect {
namespace {

// True when `path` names another file than `fd` is open on: virtlogd, which writes libvirt's
// console files, has renamed the file (to "<path>.0", at 2 MiB by default) and started a new one.
bool replaced(const std::filesystem::path& path, int fd) {
  struct stat open_file {};
  struct stat named_file {};
  if (::fstat(fd, &open_file) != 0 || ::stat(path.c_str(), &named_file) != 0) return false;
  return open_file.st_ino != named_file.st_ino || open_file.st_dev != named_file.st_dev;
}

}  // namespace

ConsoleFileReader::ConsoleFileReader(std::filesystem::path path, size_t max_line_bytes)
    : path_(std::move(path)), max_line_bytes_(max_line_bytes) {}

bool ConsoleFileReader::read_new(size_t max_bytes, const OnLine& on_line) {
  if (!fd_) fd_.reset(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd_) return true;
  // Asked before the old file is read to its end: once it has been renamed, nothing more is
  // written to it, so what the reads below leave unread is in the new one.
  bool rotated = replaced(path_, fd_.get());
  for (;;) {
    if (!read_to_end(max_bytes, on_line)) return false;
    if (!rotated) return true;
    fd_.reset(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_) return true;
    rotated = replaced(path_, fd_.get());
  }
}

bool ConsoleFileReader::read_to_end(size_t max_bytes, const OnLine& on_line) {
  char buffer[65536];
  for (;;) {
    ssize_t got = ::read(fd_.get(), buffer, sizeof buffer);
    if (got <= 0) return true;
    bytes_read_ += static_cast<size_t>(got);
    if (bytes_read_ > max_bytes) return false;
    partial_.append(buffer, static_cast<size_t>(got));
    size_t start = 0;
    for (size_t end; (end = partial_.find('\n', start)) != std::string::npos; start = end + 1) {
      on_line(std::string_view(partial_).substr(start, end - start));
    }
    partial_.erase(0, start);
    for (; partial_.size() > max_line_bytes_; partial_.erase(0, max_line_bytes_)) {
      on_line(std::string_view(partial_).substr(0, max_line_bytes_));
    }
  }
}

void ConsoleFileReader::finish(const OnLine& on_line) {
  if (!partial_.empty()) on_line(partial_);
  partial_.clear();
}

}  // namespace kbisect
