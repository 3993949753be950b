#include "build/build_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "common/lines.h"
#include "common/printable.h"

namespace kbisect {
namespace {

constexpr size_t kMaxErrorLines = 20;
constexpr size_t kMaxReasonBytes = 200;

bool is_error_line(std::string_view line) {
  return line.find("error:") != std::string_view::npos ||
         line.find("undefined reference") != std::string_view::npos ||
         (line.find("***") != std::string_view::npos &&
          line.find("Error") != std::string_view::npos);
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
}

// Removes a trailing ":NUMBER" from `text`; false when it has none.
bool take_number(std::string_view& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || !all_digits(text.substr(colon + 1))) return false;
  text = text.substr(0, colon);
  return true;
}

// The FILE of "FILE:LINE" or "FILE:LINE:COLUMN"; empty without a line number.
std::string_view file_of_location(std::string_view location) {
  if (!take_number(location)) return {};
  take_number(location);  // the column, when there is one
  return location;
}

std::string one_line_reason(std::string_view line) {
  size_t cut = std::min(line.size(), kMaxReasonBytes);
  while (cut > 0 && cut < line.size() && is_utf8_continuation(line[cut])) --cut;
  return printable_line(line.substr(0, cut));
}

}  // namespace

std::string summarize_build_log(std::string_view log, size_t tail_lines) {
  std::vector<std::string_view> errors;
  std::deque<std::string_view> tail;
  while (!log.empty()) {
    std::string_view line = take_line(log);
    if (is_error_line(line) && errors.size() < kMaxErrorLines) errors.push_back(line);
    tail.push_back(line);
    if (tail.size() > tail_lines) tail.pop_front();
  }
  std::string summary;
  if (!errors.empty()) {
    summary += "error lines:\n";
    for (std::string_view line : errors) (summary += line) += '\n';
    summary += "last lines:\n";
  }
  for (std::string_view line : tail) (summary += line) += '\n';
  return summary;
}

std::string first_error_line(std::string_view log) {
  while (!log.empty()) {
    std::string_view line = take_line(log);
    if (is_error_line(line)) return one_line_reason(line);
  }
  return "";
}

std::vector<std::string> compile_error_files(std::string_view log) {
  std::vector<std::string> files;
  while (!log.empty()) {
    std::string_view line = take_line(log);
    if (line.find("undefined reference") != std::string_view::npos) return {};
    size_t error = line.find(": error:");
    if (error == std::string_view::npos) error = line.find(": fatal error:");
    if (error == std::string_view::npos) {
      if (line.find("error:") != std::string_view::npos) return {};
      continue;
    }
    std::string_view file = file_of_location(line.substr(0, error));
    if (file.empty()) return {};
    files.emplace_back(file);
  }
  return files;
}

bool is_compile_line(std::string_view line) {
  return line.starts_with("  CC ");
}

namespace {

// A program the build runs that this machine lacks, from the line that says so: dash's
// "/bin/sh: 1: zstd: not found", bash's "...: flex: command not found", make's own "make[2]:
// bison: No such file or directory". A name with a '/' in it is a script of the tree: a commit
// that calls one it does not have fails as the tree's.
std::string missing_program(std::string_view line) {
  for (std::string_view ending : {": not found", ": command not found"}) {
    if (!line.ends_with(ending) || !line.starts_with('/')) continue;
    std::string_view rest = line.substr(0, line.size() - ending.size());
    const size_t colon = rest.rfind(": ");
    std::string_view name = colon == std::string_view::npos ? "" : rest.substr(colon + 2);
    if (!name.empty() && name.find('/') == std::string_view::npos) return std::string(name);
  }
  constexpr std::string_view kNoFile = ": No such file or directory";
  if (line.starts_with("make") && line.ends_with(kNoFile)) {
    std::string_view rest = line.substr(0, line.size() - kNoFile.size());
    const size_t colon = rest.find(": ");
    std::string_view name = colon == std::string_view::npos ? "" : rest.substr(colon + 2);
    if (!name.empty() && name.find_first_of("/: *") == std::string_view::npos) {
      return std::string(name);
    }
  }
  return "";
}

// Headers and libraries of the host that the kernel's own host tools build against (objtool's
// libelf, sign-file's and extract-cert's OpenSSL): missing, every commit would fail alike.
bool missing_host_library(std::string_view line) {
  static constexpr std::string_view kHostHeaders[] = {"gelf.h:", "libelf.h:", "openssl/",
                                                      "elfutils/", "zlib.h:"};
  const size_t header = line.find("fatal error: ");
  if (header != std::string_view::npos && line.ends_with(": No such file or directory")) {
    std::string_view name = line.substr(header + std::string_view("fatal error: ").size());
    return std::ranges::any_of(kHostHeaders, [&](auto h) { return name.starts_with(h); });
  }
  return line.find("cannot find -l") != std::string_view::npos ||
         line.find("pahole (pahole) is not available") != std::string_view::npos;
}

}  // namespace

std::string machine_failure(std::string_view log) {
  struct Sign {
    std::string_view text;
    std::string_view failure;
  };
  static constexpr std::string_view kOutOfMemory =
      "ran out of memory (a build step was killed); lower build.jobs or give the machine more "
      "memory";
  static constexpr Sign kSigns[] = {
      {"No space left on device", "ran out of disk space; free space in the workdir"},
      {"Disk quota exceeded", "ran over the disk quota; free space in the workdir"},
      // gcc's words when the OOM killer took cc1, and when an allocation failed.
      {"Killed signal terminated program", kOutOfMemory},
      {"virtual memory exhausted", kOutOfMemory},
      {"out of memory allocating", kOutOfMemory},
      // make's, for a step that SIGKILL ended (ld or objtool on vmlinux, the largest).
      {"] Error 137", kOutOfMemory},
      {"fork: Cannot allocate memory", kOutOfMemory},
      {"fork: Resource temporarily unavailable",
       "could not start a process (too many processes); lower build.jobs"},
      {"Too many open files", "ran out of file descriptors; raise ulimit -n"},
      {"Read-only file system",
       "found the workdir's file system read-only (remounted after an error?); check dmesg"},
      {"Input/output error", "hit an I/O error on the workdir's disk; check dmesg"},
  };
  for (const Sign& sign : kSigns) {
    if (log.find(sign.text) != std::string_view::npos) return std::string(sign.failure);
  }
  while (!log.empty()) {
    const std::string_view line = take_line(log);
    if (std::string program = missing_program(line); !program.empty()) {
      return fmt::format(
          "found no program '{}' on this machine ({}); install the package that "
          "has it and run again",
          printable_line(program), one_line_reason(line));
    }
    if (missing_host_library(line)) {
      return fmt::format(
          "found a library of this machine missing ({}); install its development "
          "package (scripts/deps.sh lists those of kbisect's kernels) and run "
          "again",
          one_line_reason(line));
    }
  }
  return "";
}

}  // namespace kbisect
