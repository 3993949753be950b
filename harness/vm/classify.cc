#include "vm/classify.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "common/printable.h"

namespace kbisect {
namespace {

constexpr size_t kMaxDetail = 300;

std::string printable(std::string_view text) {
  return printable_ascii(text, kMaxDetail);
}

// The guest's error frame: "stage=<stage> exit=<code>" on the first line, a log tail after.
std::string describe_guest_error(const std::string& payload) {
  size_t newline = payload.find('\n');
  std::string head = printable(payload.substr(0, newline));
  std::string log_line;
  if (newline != std::string::npos) {
    std::string_view rest = std::string_view(payload).substr(newline + 1);
    // The last non-empty line of the log tail says most.
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.remove_suffix(1);
    size_t last = rest.rfind('\n');
    log_line = printable(last == std::string_view::npos ? rest : rest.substr(last + 1));
  }
  return log_line.empty() ? fmt::format("guest reported {}", head)
                          : fmt::format("guest reported {}: {}", head, log_line);
}

// kdio's output nests 6 deep; the results database's json_valid() refuses some depth past
// 1000 that the parser here accepts, and a run whose insert fails stops the session.
constexpr int kMaxJsonDepth = 32;

// Whether arrays and objects in `json` nest deeper than kMaxJsonDepth, counted on the text so
// that a hostile depth costs no parse.
bool nests_too_deep(std::string_view json) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

ConsoleWatch::ConsoleWatch(ConsoleLimits limits) : frames_(limits) {}

void ConsoleWatch::line(std::string_view text) {
  frames_.feed_line(text);
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  if (kernel_failure_.empty()) {
    if (auto failure = kernel_failure_line(text)) kernel_failure_ = std::move(*failure);
  }
  if (!text.empty()) last_line_ = printable(text);
  if (!kernel_started_) kernel_started_ = text.find("Linux version ") != std::string_view::npos;
}

std::optional<std::string> kernel_failure_line(std::string_view line) {
  static constexpr std::array kSigns = {
      "Kernel panic - not syncing",
      "VFS: Unable to mount root",
      "No working init found",
      "BUG: ",
      "kernel BUG at",
      "Oops: ",
      "general protection fault",
      "Unable to handle kernel",
      "Kernel panic",
  };
  for (std::string_view sign : kSigns) {
    size_t at = line.find(sign);
    if (at == std::string_view::npos) continue;
    // Keep the kernel's timestamp off and the message itself.
    return printable(line.substr(at));
  }
  return std::nullopt;
}

std::string kdio_json_problem(std::string_view json) {
  if (nests_too_deep(json)) return fmt::format("nested more than {} deep", kMaxJsonDepth);
  auto document = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return "not valid JSON";
  if (!document.is_object()) return "not a JSON object";
  auto jobs = document.find("jobs");
  if (jobs == document.end() || !jobs->is_array() || jobs->empty()) {
    return "no non-empty \"jobs\" array";
  }
  for (const auto& job : *jobs) {
    if (!job.is_object()) return "a job is not an object";
    auto name = job.find("jobname");
    if (name == job.end() || !name->is_string()) return "a job has no string \"jobname\"";
  }
  return "";
}

Classification classify(const ConsoleWatch& console, VmEnd end, std::string_view end_detail) {
  const auto& frames = console.frames();
  const bool init = console.init_reached();
  if (end == VmEnd::kStartFailed) {
    return {Outcome::kInfraError, fmt::format("VM did not start: {}", end_detail), ""};
  }
  // The guest's init sends one answer, a result or an error: more cannot all be true.
  const auto answers = std::ranges::count_if(frames.frames(), [](const Frame& frame) {
    return frame.kind == "result" || frame.kind == "error";
  });
  if (answers > 1) {
    return {Outcome::kWorkloadFailed,
            fmt::format("the guest sent {} result and error frames where its init sends one; "
                        "none is trusted",
                        answers),
            ""};
  }
  if (const Frame* result = frames.frame("result")) {
    std::string problem = kdio_json_problem(result->payload);
    // The samples stand (the workload finished), but whoever reads them should know.
    if (problem.empty()) {
      std::string detail = console.kernel_failure().empty()
                               ? ""
                               : "the kernel failed during the run: " + console.kernel_failure();
      return {Outcome::kOk, detail, result->payload};
    }
    return {Outcome::kWorkloadFailed, fmt::format("kdio result rejected: {}", problem), ""};
  }
  if (const Frame* error = frames.frame("error")) {
    return {Outcome::kWorkloadFailed, describe_guest_error(error->payload), ""};
  }
  const std::string last = console.last_line().empty()
                               ? std::string("no console output at all")
                               : fmt::format("last console line: {}", console.last_line());
  // The init failed and said so; kernel messages about the same failure (I/O errors) can cut
  // into its frame.
  if (frames.rejected("error")) {
    return {Outcome::kWorkloadFailed,
            fmt::format("the guest reported an error in a frame that arrived damaged ({}); {}",
                        frames.rejections()[0], last),
            ""};
  }
  if (!console.kernel_failure().empty()) {
    if (!init) {
      return {Outcome::kBootFailed,
              fmt::format("kernel failed while booting: {}", console.kernel_failure()), ""};
    }
    // It booted, so it is no boot failure; and a warning the kernel survives ("BUG: soft
    // lockup") does not explain a run that ran out of time.
    if (end == VmEnd::kDeadline) {
      return {Outcome::kTimeout,
              fmt::format("workload unfinished after {}; the kernel reported: {}", end_detail,
                          console.kernel_failure()),
              ""};
    }
    return {Outcome::kWorkloadFailed,
            fmt::format("kernel failed during the workload: {}", console.kernel_failure()), ""};
  }
  if (end == VmEnd::kConsoleFlood) {
    return {init ? Outcome::kWorkloadFailed : Outcome::kBootFailed,
            fmt::format("console output over the cap ({}); the VM was stopped", end_detail), ""};
  }
  // A device-emulation assertion the guest set off, or the host's OOM killer: not the VM
  // set-up, which did start it, and possibly not the kernel; the runner tries again once.
  if (end == VmEnd::kQemuDied) {
    return {Outcome::kInfraError, fmt::format("QEMU died while the guest ran: {}", end_detail), ""};
  }
  // A frame cut short by the deadline is the deadline's doing.
  if (end == VmEnd::kDeadline) {
    if (!init)
      return {Outcome::kBootFailed, fmt::format("no init within {}; {}", end_detail, last), ""};
    return {Outcome::kTimeout, fmt::format("workload unfinished after {}; {}", end_detail, last),
            ""};
  }
  if (frames.rejection_count() > 0) {
    return {Outcome::kInfraError,
            fmt::format("the result frame was damaged in transit: {}", frames.rejections()[0]), ""};
  }
  if (!init) return {Outcome::kBootFailed, fmt::format("VM stopped before init; {}", last), ""};
  return {Outcome::kWorkloadFailed, fmt::format("guest stopped without a result; {}", last), ""};
}

}  // namespace kbisect
