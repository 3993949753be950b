// The human-friendly quantities of config files: sizes (512M, 2G), durations (120s, 30m,
// 1h30m) and fractions (3%, 0.03). Each parser returns nullopt for text it does not accept,
// so the caller can report where the bad value is.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kbisect {

// Bytes. A number with an optional binary unit K, M, G or T (optionally followed by B or iB,
// any case): 4k = 4096, 1G = 2^30. No unit: bytes.
std::optional<uint64_t> parse_size(std::string_view text);

// Seconds. One or more number+unit pairs with units h, m, s ("1h30m"); a bare number is seconds.
std::optional<int64_t> parse_duration(std::string_view text);

// A fraction: "3%" is 0.03, a bare number is taken as it is ("0.03").
std::optional<double> parse_fraction(std::string_view text);

// A decimal floating-point number, the whole text.
std::optional<double> parse_double(std::string_view text);

// A decimal integer, the whole text.
std::optional<int64_t> parse_integer(std::string_view text);

}  // namespace kbisect
