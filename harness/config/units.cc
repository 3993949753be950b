#include "config/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace kbisect {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "512M" into 512 and "M": the leading unsigned integer and the rest.
std::optional<std::pair<uint64_t, std::string_view>> leading_number(std::string_view text) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return std::pair{value, text.substr(end - text.data())};
}

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text) {
  auto number = leading_number(text);
  if (!number) return std::nullopt;
  auto [value, unit_text] = *number;
  std::string unit = lower(unit_text);
  if (unit.ends_with("ib")) {
    unit.resize(unit.size() - 2);
    if (unit.empty()) return std::nullopt;  // "5iB" is not a size
  } else if (unit.ends_with("b")) {
    unit.resize(unit.size() - 1);
  }
  int shift = 0;
  if (unit == "k") {
    shift = 10;
  } else if (unit == "m") {
    shift = 20;
  } else if (unit == "g") {
    shift = 30;
  } else if (unit == "t") {
    shift = 40;
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (shift > 0 && value > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<int64_t> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (auto bare = parse_integer(text)) return bare;
  int64_t total = 0;
  std::string_view rest = text;
  // Units must come in decreasing order and at most once each: "1h30m", not "30m1h".
  int last_rank = 3;
  while (!rest.empty()) {
    auto number = leading_number(rest);
    if (!number || number->second.empty()) return std::nullopt;
    auto [value, after] = *number;
    int rank = 0;
    int64_t seconds = 0;
    switch (after.front()) {
      case 'h':
        rank = 2, seconds = 3600;
        break;
      case 'm':
        rank = 1, seconds = 60;
        break;
      case 's':
        rank = 0, seconds = 1;
        break;
      default:
        return std::nullopt;
    }
    if (rank >= last_rank) return std::nullopt;
    last_rank = rank;
    if (value > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) return std::nullopt;
    total += static_cast<int64_t>(value) * seconds;
    rest = after.substr(1);
  }
  return total;
}

std::optional<double> parse_fraction(std::string_view text) {
  if (text.ends_with('%')) {
    auto percent = parse_double(text.substr(0, text.size() - 1));
    if (!percent) return std::nullopt;
    return *percent / 100.0;
  }
  return parse_double(text);
}

std::optional<double> parse_double(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> parse_integer(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace kbisect
