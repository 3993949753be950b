#include "build/host_tools.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "common/lines.h"
#include "common/printable.h"

namespace kbisect {
namespace {

// Programs a kernel build runs from the host (Documentation/process/changes.rst), as a shell
// or make names them when they are missing.
constexpr std::string_view kBuildPrograms[] = {
    "bc",     "bison", "bzip2",   "cpio",  "flex", "gawk",    "gzip",
    "kmod",   "lz4",   "lz4c",    "lzma",  "lzop", "mkimage", "openssl",
    "pahole", "perl",  "python3", "rsync", "tar",  "xz",      "zstd"};

// Headers of the host that the kernel's own tools build against.
constexpr std::string_view kHostHeaders[] = {"gelf.h", "libelf.h", "openssl/", "elfutils/",
                                             "zlib.h"};

// The name in "/bin/sh: 1: zstd: not found" (dash), ".../x.sh: line 3: flex: command not found"
// (bash) or "make[2]: bison: No such file or directory" (make starting it itself).
std::string_view named_missing(std::string_view line) {
  for (std::string_view ending : {": not found", ": command not found"}) {
    if (!line.ends_with(ending)) continue;
    std::string_view rest = line.substr(0, line.size() - ending.size());
    const size_t colon = rest.rfind(": ");
    return colon == std::string_view::npos ? "" : rest.substr(colon + 2);
  }
  constexpr std::string_view kNoFile = ": No such file or directory";
  if (line.starts_with("make") && line.ends_with(kNoFile)) {
    std::string_view rest = line.substr(0, line.size() - kNoFile.size());
    const size_t colon = rest.find(": ");
    return colon == std::string_view::npos ? "" : rest.substr(colon + 2);
  }
  return "";
}

// The header in "x.c:10:10: fatal error: gelf.h: No such file or directory".
std::string_view missing_header(std::string_view line) {
  constexpr std::string_view kFatal = "fatal error: ";
  constexpr std::string_view kNoFile = ": No such file or directory";
  const size_t fatal = line.find(kFatal);
  if (fatal == std::string_view::npos || !line.ends_with(kNoFile)) return "";
  const size_t start = fatal + kFatal.size();
  return line.substr(start, line.size() - kNoFile.size() - start);
}

// The library in "ld: cannot find -lelf: No such file or directory" (or without the reason).
std::string missing_library(std::string_view line) {
  static const std::regex kCannotFind("cannot find -l([A-Za-z0-9_+.-]+)");
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(line.begin(), line.end(), match, kCannotFind)) return "";
  return match[1].str();
}

bool is_build_program(std::string_view name) {
  return std::ranges::find(kBuildPrograms, name) != std::end(kBuildPrograms);
}

bool is_host_header(std::string_view name) {
  return std::ranges::any_of(kHostHeaders, [&](std::string_view h) {
    return h.ends_with('/') ? name.starts_with(h) : name == h;
  });
}

bool any_exists(std::initializer_list<std::filesystem::path> paths) {
  std::error_code error;
  return std::ranges::any_of(paths, [&](const auto& path) { return exists(path, error); });
}

}  // namespace

HostFiles this_machine_files() {
  HostFiles host;
  host.has_program = [](std::string_view name) {
    const char* path = std::getenv("PATH");
    std::string_view dirs = path != nullptr ? path : "/usr/bin:/bin";
    while (!dirs.empty()) {
      const size_t colon = dirs.find(':');
      const std::filesystem::path dir(dirs.substr(0, colon));
      if (::access((dir / name).c_str(), X_OK) == 0) return true;
      dirs = colon == std::string_view::npos ? "" : dirs.substr(colon + 1);
    }
    return false;
  };
  host.has_header = [](std::string_view name) {
    return any_exists({std::filesystem::path("/usr/include") / name,
                       std::filesystem::path("/usr/local/include") / name,
                       std::filesystem::path("/usr/include/x86_64-linux-gnu") / name});
  };
  host.has_library = [](std::string_view name) {
    for (const char* dir :
         {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib", "/usr/local/lib"}) {
      const std::filesystem::path base = std::filesystem::path(dir) / fmt::format("lib{}", name);
      if (any_exists({base.string() + ".so", base.string() + ".a"})) return true;
    }
    return false;
  };
  return host;
}

std::string missing_host_tool(std::string_view log, const HostFiles& host) {
  while (!log.empty()) {
    const std::string_view line = take_line(log);
    const std::string_view program = named_missing(line);
    if (is_build_program(program) && !host.has_program(program)) {
      return fmt::format(
          "found no {} on this machine; install the package that has it and run "
          "again",
          program);
    }
    const std::string_view header = missing_header(line);
    if (is_host_header(header) && !host.has_header(header)) {
      return fmt::format(
          "found no {} on this machine; install the development package that has "
          "it and run again",
          printable_line(header));
    }
    const std::string library = missing_library(line);
    if (!library.empty() && !host.has_library(library)) {
      return fmt::format(
          "found no library {} on this machine; install its development package "
          "and run again",
          library);
    }
    if (line.find("pahole (pahole) is not available") != std::string_view::npos &&
        !host.has_program("pahole")) {
      return "found no pahole on this machine (the kernel's BTF needs it); install the dwarves "
             "package and run again";
    }
  }
  return "";
}

}  // namespace kbisect
