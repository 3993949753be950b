#include "common/error.h"

#include <cstring>

namespace kbisect {

std::string errno_text(int error_number) {
  return std::strerror(error_number);
}

}  // namespace kbisect
