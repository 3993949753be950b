#include "kdio/value.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <string>

namespace kdio {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Splits "123abc" into its leading decimal digits and the rest.
uint64_t leading_number(std::string_view text, std::string_view* rest, std::string_view what) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    throw JobError(fmt::format("{} '{}' is too large", what, text));
  }
  if (ec != std::errc() || text.empty() || text[0] == '-' || text[0] == '+') {
    throw JobError(fmt::format("{} '{}' must start with a non-negative whole number", what, text));
  }
  *rest = text.substr(static_cast<size_t>(end - text.data()));
  if (!rest->empty() && ((*rest)[0] == '.' || (*rest)[0] == ',')) {
    throw JobError(
        fmt::format("{} '{}': fractions are not supported; use a smaller unit", what, text));
  }
  return value;
}

bool is_hex(std::string_view text) {
  return text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

// fio reads "0x..." with strtoll base 16 and then looks for a unit from the 'x' on, where it
// finds none: whatever follows the hex digits is dropped without a word (0x10k is 16), so
// only hex digits are taken.
uint64_t hex_number(std::string_view text, std::string_view what) {
  const std::string_view digits = text.substr(2);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec == std::errc::result_out_of_range) {
    throw JobError(fmt::format("{} '{}' is too large", what, text));
  }
  if (ec != std::errc()) {
    throw JobError(
        fmt::format("{} '{}' has no hex digits after '{}'", what, text, text.substr(0, 2)));
  }
  if (end != digits.data() + digits.size()) {
    const std::string_view rest = digits.substr(static_cast<size_t>(end - digits.data()));
    throw JobError(fmt::format(
        "{} '{}': fio drops the '{}' after a hex number and reads {}; write the value in hex "
        "without a unit, or in decimal with one",
        what, text, rest, value));
  }
  return value;
}

uint64_t checked_multiply(uint64_t value, uint64_t factor, std::string_view text,
                          std::string_view what) {
  if (factor != 0 && value > std::numeric_limits<uint64_t>::max() / factor) {
    throw JobError(fmt::format("{} '{}' is too large", what, text));
  }
  return value * factor;
}

// fio's arithmetic in a value written in parentheses, e.g. "(1g/16)": whole numbers with size
// suffixes, + - * / (integer division, as fio's) and nested parentheses.
class SizeExpression {
 public:
  SizeExpression(std::string_view text, int kb_base) : text_(text), kb_base_(kb_base) {}

  uint64_t evaluate() {
    const int64_t value = sum();
    skip_spaces();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(pos_)));
    if (value < 0) fail("the result is negative");
    return static_cast<uint64_t>(value);
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw JobError(fmt::format("size expression '{}': {}", text_, why));
  }
  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool take(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void check(bool overflowed) const {
    if (overflowed) fail("the value is too large");
  }
  int64_t sum() {
    int64_t value = product();
    for (;;) {
      if (take('+')) {
        const int64_t right = product();
        check(__builtin_add_overflow(value, right, &value));
      } else if (take('-')) {
        const int64_t right = product();
        check(__builtin_sub_overflow(value, right, &value));
      } else {
        return value;
      }
    }
  }
  int64_t product() {
    int64_t value = operand();
    for (;;) {
      if (take('*')) {
        const int64_t right = operand();
        check(__builtin_mul_overflow(value, right, &value));
      } else if (take('/')) {
        const int64_t divisor = operand();
        if (divisor == 0) fail("division by zero");
        // The one quotient int64_t cannot hold, and the CPU traps on it rather than wrapping.
        check(value == std::numeric_limits<int64_t>::min() && divisor == -1);
        value /= divisor;
      } else {
        return value;
      }
    }
  }
  int64_t operand() {
    if (take('(')) {
      // Each level is a recursion: a hostile job file must not overflow the stack.
      if (++depth_ > kMaxDepth) fail(fmt::format("parentheses nest more than {} deep", kMaxDepth));
      const int64_t value = sum();
      if (!take(')')) fail("a ')' is missing");
      --depth_;
      return value;
    }
    skip_spaces();
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (start == pos_) fail("a number is missing");
    // fio's arithmetic reads a hex number unlike a plain value (0x10k is 16k there but 16
    // outside, 0X10 an error) and Debian's fio 3.33 has no arithmetic to check against.
    if (is_hex(text_.substr(start)))
      fail("hex numbers are not allowed in it; write them in decimal");
    const uint64_t value = parse_size(text_.substr(start, pos_ - start), kb_base_);
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail("the value is too large");
    }
    return static_cast<int64_t>(value);
  }

  static constexpr int kMaxDepth = 32;
  std::string_view text_;
  int kb_base_;
  size_t pos_ = 0;
  int depth_ = 0;
};

int64_t hex_int(std::string_view text) {
  const uint64_t value = hex_number(text, "number");
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw JobError(fmt::format("number '{}' is too large", text));
  }
  return static_cast<int64_t>(value);
}

int64_t decimal_int(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw JobError(fmt::format("'{}' is not a whole number", text));
  }
  return value;
}

}  // namespace

uint64_t parse_size(std::string_view text, int kb_base) {
  if (!text.empty() && text.front() == '(') return SizeExpression(text, kb_base).evaluate();
  if (is_hex(text)) return hex_number(text, "size");
  std::string_view rest;
  uint64_t value = leading_number(text, &rest, "size");
  std::string suffix = lower(rest);
  if (suffix.empty() || suffix == "b") return value;
  if (suffix == "%") {
    throw JobError(fmt::format("size '{}': percentages are not supported by kdio", text));
  }
  // fio's compatibility rule: the SI spelling takes kb_base, the IEC spelling the other base.
  const uint64_t si_base = static_cast<uint64_t>(kb_base);
  const uint64_t iec_base = kb_base == 1000 ? 1024 : 1000;
  static constexpr std::string_view kPrefixes = "kmgtp";
  const size_t power = kPrefixes.find(suffix[0]);
  uint64_t base = 0;
  if (power != std::string_view::npos) {
    const std::string_view unit = std::string_view(suffix).substr(1);
    if (unit.empty() || unit == "b") base = si_base;
    if (unit == "ib") base = iec_base;
  }
  if (base == 0) {
    throw JobError(fmt::format(
        "size '{}' has an unknown suffix '{}'; use k, m, g, t or p (optionally followed by b), "
        "or KiB, MiB, ...",
        text, rest));
  }
  for (size_t i = 0; i <= power; ++i) value = checked_multiply(value, base, text, "size");
  return value;
}

uint64_t parse_time_ns(std::string_view text, bool bare_is_seconds) {
  struct Unit {
    std::string_view name;
    uint64_t ns;
  };
  static constexpr uint64_t kSecond = 1'000'000'000;
  static constexpr std::array<Unit, 8> kUnits{{{"us", 1'000},
                                               {"usec", 1'000},
                                               {"ms", 1'000'000},
                                               {"msec", 1'000'000},
                                               {"s", kSecond},
                                               {"m", 60 * kSecond},
                                               {"h", 3600 * kSecond},
                                               {"d", 86400 * kSecond}}};
  if (is_hex(text)) {
    // fio reads runtime=0x3 (and 0x3s) as 0: the job stops at once.
    throw JobError(fmt::format("time '{}': fio reads a hex time as 0; write it in decimal", text));
  }
  std::string_view rest;
  const uint64_t value = leading_number(text, &rest, "time");
  const std::string suffix = lower(rest);
  if (suffix.empty())
    return checked_multiply(value, bare_is_seconds ? kSecond : 1'000, text, "time");
  for (const Unit& unit : kUnits) {
    if (suffix == unit.name) return checked_multiply(value, unit.ns, text, "time");
  }
  if (suffix == "sec" || suffix == "secs" || suffix == "min" || suffix == "mins") {
    // fio reads these as microseconds without a word; refuse rather than run 10 us.
    throw JobError(fmt::format(
        "time '{}': fio silently reads the suffix '{}' as microseconds; write '{}{}' instead", text,
        rest, value, suffix[0] == 's' ? "s" : "m"));
  }
  throw JobError(
      fmt::format("time '{}' has an unknown suffix '{}'; use us, ms, s, m, h or d", text, rest));
}

bool parse_bool(std::string_view text) {
  if (text == "1") return true;
  if (text == "0") return false;
  throw JobError(fmt::format("'{}' is not a boolean; use 0 or 1", text));
}

int64_t parse_int(std::string_view text, int64_t min, int64_t max) {
  const int64_t value = is_hex(text) ? hex_int(text) : decimal_int(text);
  if (value < min || value > max) {
    throw JobError(fmt::format("{} is out of range; allowed {}..{}", value, min, max));
  }
  return value;
}

}  // namespace kdio
