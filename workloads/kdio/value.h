// Parsing of single fio option values: sizes, times, booleans and integers, with fio's
// suffix rules. Errors are thrown without a location; the caller adds FILE:LINE.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace kdio {

// A value or job file that does not parse; the message is complete and ready to print.
struct JobError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A ${NAME} that the environment does not set, at `where` (FILE:LINE): whoever makes the
// environment can say how to set it.
struct UnsetVariable : JobError {
  UnsetVariable(const std::string& message, std::string at, std::string variable)
      : JobError(message), where(std::move(at)), name(std::move(variable)) {}
  std::string where;
  std::string name;
};

// Bytes from "4k", "1m", "4KiB", "512b", ... With kb_base 1024 (fio's default) k/m/g/t/p
// (with or without a trailing b) are powers of 1024 and the IEC spellings kib/mib/... are
// powers of 1000; kb_base 1000 swaps the two, exactly as fio does. A value in parentheses is
// fio's arithmetic: "(1g/16)", "(4k*3+512)", whole numbers, integer division.
uint64_t parse_size(std::string_view text, int kb_base);

// Nanoseconds from "500us", "10ms", "2s", "5m", "1h", "1d". A bare number is in seconds when
// bare_is_seconds, else in microseconds (fio's two kinds of time options).
uint64_t parse_time_ns(std::string_view text, bool bare_is_seconds);

// "0" or "1" (fio's booleans take nothing else).
bool parse_bool(std::string_view text);

// A decimal integer in [min, max].
int64_t parse_int(std::string_view text, int64_t min, int64_t max);

}  // namespace kdio
