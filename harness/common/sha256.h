// SHA-256 digests (OpenSSL EVP) as lower-case hex: cache keys, kernel image identity, console
// frame checksums, scenario hashes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kbisect {

std::string sha256_hex(std::string_view data);

// Streams the file; throws Error when it cannot be read.
std::string sha256_file_hex(const std::filesystem::path& path);

}  // namespace kbisect
