#include "cli/session_id_option.h"

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

}  // namespace kbisect
