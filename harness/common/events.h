// What long work tells the person or program watching it. On a TTY: one live status line per
// phase on stderr (build percentage, boot, workload countdown). With --json: one JSON object per
// line on stdout for other tools. In a pipe without --json: nothing but the final result.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kbisect {

class Events {
 public:
  enum class Mode { kQuiet, kTerminal, kJsonLines };

  // kTerminal when stderr is a TTY, kQuiet otherwise; json forces kJsonLines; quiet forces kQuiet.
  static Mode choose_mode(bool json, bool quiet);

  explicit Events(Mode mode) : mode_(mode) {}
  // A phase that an error ended keeps its status line, and the error follows on the next line.
  ~Events();
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  Mode mode() const { return mode_; }

  // A phase begins ("build", "boot", "workload", ...): detail names what it works on.
  void phase_begin(std::string_view phase, std::string_view detail);
  // Progress inside the current phase; fraction < 0 when unknown.
  void phase_progress(std::string_view phase, double fraction, std::string_view detail);
  void phase_end(std::string_view phase, double seconds, std::string_view outcome);
  // A one-line message for the person (warnings, verdicts); in JSON mode an event of `type`.
  void note(std::string_view type, std::string_view text, const nlohmann::json& fields = {});
  // A machine event with no text form (sample stored, verdict, culprit).
  void emit(std::string_view type, const nlohmann::json& fields);

 private:
  void clear_status_line();

  Mode mode_;
  bool status_line_open_ = false;
};

}  // namespace kbisect
