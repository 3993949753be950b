#include "build/build_log.h"

#include <algorithm>
#include <deque>
#include <vector>

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
  return "";
}

}  // namespace kbisect
