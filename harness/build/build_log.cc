#include "build/build_log.h"

#include <algorithm>
#include <deque>

#include "build/host_tools.h"
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
  return missing_host_tool(log, this_machine_files());
}

}  // namespace kbisect
