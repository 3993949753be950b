#include "vm/cpio.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <utility>

#include "common/error.h"

namespace kbisect {
namespace {

void pad4(std::string& archive) {
  while (archive.size() % 4 != 0) archive += '\0';
}

// Every component must name an entry below the archive root; "seq..v2.fio" does, ".." does not.
void check_path(std::string_view path) {
  size_t start = 0;
  for (;;) {
    const size_t slash = path.find('/', start);
    const std::string_view component = path.substr(start, slash - start);
    if (component.empty() || component == "." || component == "..") {
      fail("internal error: bad initramfs path '{}'", path);
    }
    if (slash == std::string_view::npos) return;
    start = slash + 1;
  }
}

}  // namespace

void CpioWriter::entry(std::string_view path, uint32_t mode, std::string_view data) {
  // newc: magic, then 13 eight-digit hex fields: ino mode uid gid nlink mtime filesize
  // devmajor devminor rdevmajor rdevminor namesize check.
  archive_ += fmt::format(
      "070701{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}",
      next_inode_++, mode, 0, 0, S_ISDIR(mode) ? 2 : 1, 0, data.size(), 0, 0, 0, 0, path.size() + 1,
      0);
  archive_ += path;
  archive_ += '\0';
  pad4(archive_);
  archive_ += data;
  pad4(archive_);
}

void CpioWriter::parents(std::string_view path) {
  for (size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    directory(path.substr(0, slash));
  }
}

void CpioWriter::directory(std::string_view path, uint32_t mode) {
  check_path(path);
  if (directories_.contains(path)) return;
  parents(path);
  directories_.emplace(path);
  entry(path, S_IFDIR | mode, "");
}

void CpioWriter::file(std::string_view path, std::string_view contents, uint32_t mode) {
  check_path(path);
  parents(path);
  entry(path, S_IFREG | mode, contents);
}

void CpioWriter::symlink(std::string_view path, std::string_view target) {
  check_path(path);
  parents(path);
  entry(path, S_IFLNK | 0777, target);
}

std::string CpioWriter::finish() {
  entry("TRAILER!!!", 0, "");
  directories_.clear();
  next_inode_ = 1;
  return std::exchange(archive_, {});
}

}  // namespace kbisect
