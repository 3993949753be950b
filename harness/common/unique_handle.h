// RAII owners for C library handles: Unique<git_repository, git_repository_free> frees the
// handle exactly once, whatever path leaves the scope.
#pragma once

#include <memory>

namespace kbisect {

template <auto Free>
struct FreeWith {
  template <typename T>
  void operator()(T* handle) const {
    if (handle != nullptr) Free(handle);
  }
};

template <typename T, auto Free>
using Unique = std::unique_ptr<T, FreeWith<Free>>;

}  // namespace kbisect
