#include "common/xml_escape.h"

#include <fmt/format.h>

#include "common/error.h"

namespace kbisect {

std::string xml_escape(std::string_view text) {
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
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          fail("'{}' holds the control character {:#04x}, which XML cannot carry; rename it", text,
               static_cast<int>(c));
        }
        escaped += c;
    }
  }
  return escaped;
}

}  // namespace kbisect
