#include "common/events.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "common/json_text.h"

namespace kbisect {

Events::Mode Events::choose_mode(bool json, bool quiet) {
  if (json) return Mode::kJsonLines;
  if (quiet || !::isatty(STDERR_FILENO)) return Mode::kQuiet;
  return Mode::kTerminal;
}

Events::~Events() {
  if (status_line_open_) std::fputc('\n', stderr);
}

void Events::clear_status_line() {
  if (!status_line_open_) return;
  std::fputs("\r\033[K", stderr);
  status_line_open_ = false;
}

void Events::phase_begin(std::string_view phase, std::string_view detail) {
  if (mode_ == Mode::kJsonLines) {
    emit("phase-begin", {{"phase", phase}, {"detail", detail}});
  } else if (mode_ == Mode::kTerminal) {
    clear_status_line();
    fmt::print(stderr, "{:>9} {}", phase, detail);
    status_line_open_ = true;
  }
}

void Events::phase_progress(std::string_view phase, double fraction, std::string_view detail) {
  if (mode_ != Mode::kTerminal) return;
  clear_status_line();
  if (fraction >= 0) {
    fmt::print(stderr, "{:>9} {:3.0f}% {}", phase, fraction * 100, detail);
  } else {
    fmt::print(stderr, "{:>9} {}", phase, detail);
  }
  status_line_open_ = true;
  std::fflush(stderr);
}

void Events::phase_end(std::string_view phase, double seconds, std::string_view outcome) {
  if (mode_ == Mode::kJsonLines) {
    emit("phase-end", {{"phase", phase}, {"seconds", seconds}, {"outcome", outcome}});
  } else if (mode_ == Mode::kTerminal) {
    clear_status_line();
    fmt::print(stderr, "{:>9} {} in {:.1f} s\n", phase, outcome, seconds);
  }
}

void Events::note(std::string_view type, std::string_view text, const nlohmann::json& fields) {
  if (mode_ == Mode::kJsonLines) {
    nlohmann::json event = fields.is_object() ? fields : nlohmann::json::object();
    event["text"] = text;
    emit(type, event);
    return;
  }
  // Warnings reach the person even in a pipe; other notes only on a terminal.
  if (mode_ == Mode::kQuiet && type != "warning") return;
  clear_status_line();
  fmt::print(stderr, "{}{}\n", type == "warning" ? "warning: " : "", text);
}

void Events::emit(std::string_view type, const nlohmann::json& fields) {
  if (mode_ != Mode::kJsonLines) return;
  nlohmann::json event = fields.is_object() ? fields : nlohmann::json::object();
  event["event"] = type;
  fmt::print("{}\n", json_text(event));
  std::fflush(stdout);
}

}  // namespace kbisect
