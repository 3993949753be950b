#include "common/xml_escape.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/printable.h"

namespace kbisect {

namespace {

enum class OnControl { kFail, kReplace };

std::string escape(std::string_view text, OnControl on_control) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '\'':
        escaped += "&apos;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\t':
      case '\n':
      case '\r':
        escaped += fmt::format("&#{};", static_cast<int>(c));
        break;
      default:
        if (!is_ascii_control(c)) {
          escaped += c;
        } else if (on_control == OnControl::kReplace) {
          escaped += "\uFFFD";
        } else {
          fail("'{}' holds the control character {:#04x}, which XML cannot carry; rename it",
               printable_line(text), static_cast<int>(c));
        }
    }
  }
  return escaped;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  return escape(text, OnControl::kFail);
}

std::string xml_escape_shown(std::string_view text) {
  return escape(text, OnControl::kReplace);
}

}  // namespace kbisect
