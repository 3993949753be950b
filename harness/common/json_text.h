// JSON as the text kbisect prints and stores: results and events carry text from outside (a
// build log, QEMU's stderr) that need not be UTF-8, which nlohmann's dump() throws on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kbisect {

// `value` serialised (`indent` as dump()'s), a byte that is not UTF-8 as U+FFFD.
std::string json_text(const nlohmann::json& value, int indent = -1);

// Whether `text` is UTF-8, which JSON keeps byte for byte (what a session asks must be).
bool is_utf8(const std::string& text);

}  // namespace kbisect
