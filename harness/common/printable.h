// Text from outside (a commit subject, a path in an error) made safe to print as one line on a
// terminal, in a `#` comment of a replayed log or in a pasted shell block.
#pragma once

#include <string>
#include <string_view>

namespace kbisect {

// `text` with a tab as a space and every other control character (C0, DEL, and C1 U+0080 to
// U+009F) and Unicode bidi override as '?': a commit subject cannot move the cursor, retitle
// the terminal, end a comment line or reorder what is shown. Other UTF-8 is kept.
std::string printable_line(std::string_view text);

// Text the guest wrote (a console line, a frame's field) for a message, the database or JSON:
// every byte outside printable ASCII as '?', at most `max_bytes` of it. Stricter than
// printable_line, because the guest's bytes need not be UTF-8 at all.
std::string printable_ascii(std::string_view text, size_t max_bytes);

// A C0 control character or DEL: what a terminal acts on and XML 1.0 cannot carry.
inline bool is_ascii_control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// A byte inside a UTF-8 character, after its first: text is cut before one, and it takes no
// column on a terminal.
inline bool is_utf8_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace kbisect
