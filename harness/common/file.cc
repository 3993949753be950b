#include "common/file.h"

#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "common/error.h"

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

void write_file_atomically(const fs::path& path, std::string_view contents) {
  fs::path temporary = path;
  temporary += ".tmp" + std::to_string(::getpid());
  write_file(temporary, contents);
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) fail("cannot rename {} to {}: {}", temporary.string(), path.string(), error.message());
}

}  // namespace kbisect
