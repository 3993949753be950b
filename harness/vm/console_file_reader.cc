#include "vm/console_file_reader.h"

#include <fcntl.h>
#include <unistd.h>

namespace kbisect {

ConsoleFileReader::ConsoleFileReader(std::filesystem::path path, size_t max_line_bytes)
    : path_(std::move(path)), max_line_bytes_(max_line_bytes) {}

bool ConsoleFileReader::read_new(size_t max_bytes, const OnLine& on_line) {
  if (!fd_) fd_.reset(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd_) return true;
  char buffer[65536];
  for (;;) {
    ssize_t got = ::read(fd_.get(), buffer, sizeof buffer);
    if (got <= 0) break;
    offset_ += static_cast<size_t>(got);
    if (offset_ > max_bytes) return false;
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
  return true;
}

void ConsoleFileReader::finish(const OnLine& on_line) {
  if (!partial_.empty()) on_line(partial_);
  partial_.clear();
}

}  // namespace kbisect
