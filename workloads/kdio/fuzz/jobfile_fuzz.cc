// libFuzzer target: arbitrary bytes as a job file, and the same bytes split into lines as a
// command line. Any outcome but a JobError or a JobFile (a crash, another exception, a
// sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kdio/jobfile.h"

namespace {

std::string no_includes(const std::string& path) {
  throw kdio::JobError("the fuzzer reads no files: " + path);
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const kdio::Environment env{{"SIZE", "16m"},  {"RUNTIME", "5"},   {"BS", "4k"},
                                     {"THREADS", "2"}, {"RW", "randread"}, {"IO_SIZE", "1m"}};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    kdio::parse_job_text(text, "fuzz.fio", env, no_includes);
  } catch (const kdio::JobError&) {
  }
  try {
    kdio::parse_command_line_jobs(lines_of(text));
  } catch (const kdio::JobError&) {
  }
  return 0;
}
