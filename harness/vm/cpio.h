// A writer for the "newc" cpio format the kernel unpacks as an initramfs. Small enough to
// write directly; entries have fixed owner root and mtime 0, so equal inputs give equal bytes.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace kbisect {

class CpioWriter {
 public:
  // Paths are relative to the archive root ("bin/busybox"); missing parent directories are
  // added first, since the kernel does not create them.
  void directory(std::string_view path, uint32_t mode = 0755);
  void file(std::string_view path, std::string_view contents, uint32_t mode = 0644);
  void symlink(std::string_view path, std::string_view target);

  // The archive with its trailer; the writer is empty afterwards.
  std::string finish();

 private:
  void parents(std::string_view path);
  void entry(std::string_view path, uint32_t mode, std::string_view data);

  std::string archive_;
  std::set<std::string, std::less<>> directories_;
  uint32_t next_inode_ = 1;
};

}  // namespace kbisect
