// The one error style of the harness: an Error says what went wrong and, where the user can
// act on it, what to do next ("cannot open repository /x: not a git repository; set
// kernel.repo in the config to a kernel checkout").
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace kbisect {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// errno as text, for messages about failed system calls.
std::string errno_text(int error_number);

}  // namespace kbisect
