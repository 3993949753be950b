#include "common/printable.h"

#include <array>

namespace kbisect {
namespace {

// U+202A-U+202E and U+2066-U+2069 in UTF-8: they reorder the text after them.
bool is_bidi_control(std::string_view text, size_t i) {
  if (i + 2 >= text.size() || text[i] != '\xe2') return false;
  const auto second = static_cast<unsigned char>(text[i + 1]);
  const auto third = static_cast<unsigned char>(text[i + 2]);
  return (second == 0x80 && third >= 0xaa && third <= 0xae) ||
         (second == 0x81 && third >= 0xa6 && third <= 0xa9);
}

}  // namespace

std::string printable_line(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\t') {
      line += ' ';
    } else if (is_ascii_control(text[i])) {
      line += '?';
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      line += '?';  // a C1 control, such as U+009B, the one-character CSI
      ++i;
    } else if (is_bidi_control(text, i)) {
      line += '?';
      i += 2;
    } else {
      line += text[i];
    }
  }
  return line;
}

std::string printable_ascii(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : text.substr(0, max_bytes)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace kbisect
