// Text read a line at a time without copying it: build logs, .config files, console logs.
#pragma once

#include <string_view>

namespace kbisect {

// Removes the first line from `text` and returns it without its newline; all of `text` when
// no newline is left. `while (!text.empty()) take_line(text)` visits every line, the last one
// also when it has no newline.
std::string_view take_line(std::string_view& text);

}  // namespace kbisect
