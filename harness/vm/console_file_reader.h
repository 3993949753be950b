// The guest's console as libvirt's QEMU writes it to a file: read as it grows, in lines, with
// the file's size and each line's length bounded (the guest is untrusted).
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

  // Passes on every whole line appended since the last call. Returns false once the file is
  // over `max_bytes`; a file not created yet has nothing to read.
  bool read_new(size_t max_bytes, const OnLine& on_line);

  // Passes on the last line, if it has no newline.
  void finish(const OnLine& on_line);

 private:
  std::filesystem::path path_;
  size_t max_line_bytes_;
  UniqueFd fd_;
  size_t offset_ = 0;
  std::string partial_;
};

}  // namespace kbisect
