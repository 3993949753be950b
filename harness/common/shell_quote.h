// Arguments written for a POSIX shell to read back: the commands a report or a message tells
// a person to run, and the guest's run.env.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbisect {

// Always single-quoted, a ' inside as '\''.
std::string single_quote(std::string_view argument);

// Unchanged when every character is safe unquoted, else single_quote.
std::string shell_quote(std::string_view argument);

// The arguments with shell_quote, separated by spaces.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace kbisect
