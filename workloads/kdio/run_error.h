// Errors while running jobs (files, engines, cgroups). kdio has no harness dependencies, so it
// carries its own error type; messages say what the user should do.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace kdio {

class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void run_fail(fmt::format_string<Args...> format, Args&&... args) {
  throw RunError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace kdio
