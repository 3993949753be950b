#include "cli/option_checks.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace kbisect {

CLI::Validator session_id_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        int64_t id = 0;
        const char* end = text.data() + text.size();
        auto [stop, error] = std::from_chars(text.data(), end, id);
        if (error == std::errc() && stop == end && id > 0) return "";
        return "a session id is a positive integer (see `kbisect query sessions`)";
      },
      "SESSION");
}

CLI::Validator sample_count_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        int count = 0;
        const char* end = text.data() + text.size();
        auto [stop, error] = std::from_chars(text.data(), end, count);
        if (error == std::errc() && stop == end && count >= 1 && count <= 1000) return "";
        return "a number of samples is a whole number from 1 to 1000";
      },
      "1-1000");
}

}  // namespace kbisect
