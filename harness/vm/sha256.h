// SHA-256 as lower-case hex, for console frame checksums and content-addressed guest images.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kbisect {

std::string sha256_hex(std::string_view data);
std::string sha256_file_hex(const std::filesystem::path& file);

}  // namespace kbisect
