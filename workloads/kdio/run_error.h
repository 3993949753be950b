// Errors while running jobs (files, engines, cgroups). kdio has no harness dependencies, so it
// carries its own error type; messages say what the user should do.
#pragma once

#include <fmt/format.h>

#include <cerrno>
#include <stdexcept>
#include <string>

namespace kdio {

// error_number is what a failed job reports as its "error", as in fio: the errno of the call
// that failed, else EINVAL: a check of kdio's own failed, which fio fails with EINVAL too (no
// size for a file, a block size the job cannot use).
class RunError : public std::runtime_error {
 public:
  explicit RunError(const std::string& message, int error_number = EINVAL)
      : std::runtime_error(message), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

template <typename... Args>
[[noreturn]] void run_fail(fmt::format_string<Args...> format, Args&&... args) {
  throw RunError(fmt::format(format, std::forward<Args>(args)...));
}

// For a system call that failed with error_number.
template <typename... Args>
[[noreturn]] void run_fail_errno(int error_number, fmt::format_string<Args...> format,
                                 Args&&... args) {
  throw RunError(fmt::format(format, std::forward<Args>(args)...), error_number);
}

}  // namespace kdio
