// The guest's console as libvirt writes it to a file: read as it grows, in lines, with the
// bytes read and each line's length bounded (the guest is untrusted). When the file is renamed
// and a new one takes its name (virtlogd's log rotation), the reading goes on in the new one.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "common/unique_fd.h"

namespace kbisect {

class ConsoleFileReader {
 public:
  using OnLine = std::function<void(std::string_view line)>;

  // A line longer than `max_line_bytes` reaches on_line in pieces of that length.
  ConsoleFileReader(std::filesystem::path path, size_t max_line_bytes);

  // Passes on every whole line appended since the last call. Returns false once more than
  // `max_bytes` have been read in all; a file not created yet has nothing to read.
  bool read_new(size_t max_bytes, const OnLine& on_line);

  // Passes on the last line, if it has no newline.
  void finish(const OnLine& on_line);

 private:
  bool read_to_end(size_t max_bytes, const OnLine& on_line);

  std::filesystem::path path_;
  size_t max_line_bytes_;
  UniqueFd fd_;
  size_t bytes_read_ = 0;
  std::string partial_;
};

}  // namespace kbisect
