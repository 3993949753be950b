#include "common/json_text.h"

namespace kbisect {

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool is_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();  // strict: throws on a byte that is not UTF-8
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace kbisect
