#include "cli/option_checks.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace kbisect {

namespace {

// Whether all of `text` is a whole number from `min` to `max`.
bool whole_number_in(const std::string& text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end && value >= min && value <= max;
}

}  // namespace

CLI::Validator session_id_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (whole_number_in(text, 1, INT64_MAX)) return "";
        return "a session id is a positive integer (see `kbisect query sessions`)";
      },
      "SESSION");
}

CLI::Validator not_empty_check(std::string what) {
  return CLI::Validator(
      [what](const std::string& text) -> std::string {
        return text.empty() ? "is empty; give " + what : "";
      },
      "");
}

CLI::Validator sample_count_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (whole_number_in(text, 1, 1000)) return "";
        return "a number of samples is a whole number from 1 to 1000";
      },
      "1-1000");
}

}  // namespace kbisect
