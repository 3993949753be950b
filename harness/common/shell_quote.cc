#include "common/shell_quote.h"

namespace kbisect {

std::string single_quote(std::string_view argument) {
  std::string quoted = "'";
  for (char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string shell_quote(std::string_view argument) {
  const bool safe = !argument.empty() && argument.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
                                             "YZ0123456789@%+=:,./_-") == std::string_view::npos;
  return safe ? std::string(argument) : single_quote(argument);
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& argument : argv) {
    if (!command.empty()) command += ' ';
    command += shell_quote(argument);
  }
  return command;
}

}  // namespace kbisect
