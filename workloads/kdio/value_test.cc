#include "kdio/value.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kdio {
namespace {

TEST(ParseSize, SuffixesArePowersOf1024ByDefault) {
  EXPECT_EQ(parse_size("4096", 1024), 4096u);
  EXPECT_EQ(parse_size("512b", 1024), 512u);
  EXPECT_EQ(parse_size("4k", 1024), 4096u);
  EXPECT_EQ(parse_size("4K", 1024), 4096u);
  EXPECT_EQ(parse_size("4kb", 1024), 4096u);
  EXPECT_EQ(parse_size("1m", 1024), 1u << 20);
  EXPECT_EQ(parse_size("2G", 1024), 2ull << 30);
  EXPECT_EQ(parse_size("1t", 1024), 1ull << 40);
  EXPECT_EQ(parse_size("1p", 1024), 1ull << 50);
}

TEST(ParseSize, IecSpellingIsTheOtherBaseAsInFio) {
  EXPECT_EQ(parse_size("4KiB", 1024), 4000u);
  EXPECT_EQ(parse_size("1MiB", 1024), 1000000u);
  EXPECT_EQ(parse_size("4KiB", 1000), 4096u);
  EXPECT_EQ(parse_size("4k", 1000), 4000u);
  EXPECT_EQ(parse_size("4KB", 1000), 4000u);
}

TEST(ParseSize, RejectsWhatFioWouldMisread) {
  EXPECT_THROW(parse_size("", 1024), JobError);
  EXPECT_THROW(parse_size("k", 1024), JobError);
  EXPECT_THROW(parse_size("-4k", 1024), JobError);
  EXPECT_THROW(parse_size("4x", 1024), JobError);
  EXPECT_THROW(parse_size("4kx", 1024), JobError);
  EXPECT_THROW(parse_size("1.5g", 1024), JobError);
  EXPECT_THROW(parse_size("20000p", 1024), JobError);
  EXPECT_THROW(parse_size("99999999999999999999", 1024), JobError);
  try {
    parse_size("50%", 1024);
    FAIL();
  } catch (const JobError& e) {
    EXPECT_STREQ(e.what(), "size '50%': percentages are not supported by kdio");
  }
}

TEST(ParseSize, ArithmeticInParenthesesAsInFio) {
  EXPECT_EQ(parse_size("(1g/16)", 1024), 64u << 20);
  EXPECT_EQ(parse_size("(4k*3+512)", 1024), 3u * 4096 + 512);
  EXPECT_EQ(parse_size("( 1m - 4k ) / 2", 1024), ((1u << 20) - 4096) / 2);  // spaces allowed
  EXPECT_EQ(parse_size("((1m-4k)/2)", 1024), ((1u << 20) - 4096) / 2);
  EXPECT_EQ(parse_size("(10/3)", 1024), 3u);  // integer division, as fio's
  EXPECT_EQ(parse_size("(4KiB*2)", 1024), 8000u);
  EXPECT_EQ(parse_size("(4k*2)", 1000), 8000u);
}

TEST(ParseSize, ArithmeticErrorsNameTheExpression) {
  auto error_of = [](std::string_view text) {
    try {
      parse_size(text, 1024);
    } catch (const JobError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("(1g/0)"), "size expression '(1g/0)': division by zero");
  EXPECT_EQ(error_of("(1g/(2-2))"), "size expression '(1g/(2-2))': division by zero");
  EXPECT_EQ(error_of("(4k-8k)"), "size expression '(4k-8k)': the result is negative");
  EXPECT_EQ(error_of("(1g/16"), "size expression '(1g/16': a ')' is missing");
  EXPECT_EQ(error_of("(1g/)"), "size expression '(1g/)': a number is missing");
  EXPECT_EQ(error_of("(1g)x"), "size expression '(1g)x': unexpected 'x'");
  EXPECT_EQ(error_of("(8p*8p)"), "size expression '(8p*8p)': the value is too large");
  // INT64_MIN / -1 traps (SIGFPE) unless checked.
  EXPECT_EQ(error_of("((0-9223372036854775807-1)/(0-1))"),
            "size expression '((0-9223372036854775807-1)/(0-1))': the value is too large");
  // Each parenthesis is a level of recursion: 50000 of them overflowed the stack.
  const std::string deep = std::string(50000, '(') + "1" + std::string(50000, ')');
  EXPECT_THAT(error_of(deep), ::testing::EndsWith("': parentheses nest more than 32 deep"));
  EXPECT_EQ(parse_size(std::string(32, '(') + "1" + std::string(32, ')'), 1024), 1u);
  EXPECT_EQ(error_of("(4x)"),
            "size '4x' has an unknown suffix 'x'; use k, m, g, t or p "
            "(optionally followed by b), or KiB, MiB, ...");
}

std::string error_of(auto parse) {
  try {
    parse();
  } catch (const JobError& e) {
    return e.what();
  }
  return "no error";
}

// fio 3.33 runs bs=0x2000 and bs=0X2000 at "bs=(R) 8192B-8192B", rate_iops=0x10 at 16 IOPS; it
// drops a unit after hex digits (bs=0x10k is "16B", bs=0x1m "1B"). Its arithmetic, which
// Debian's fio lacks, reads hex otherwise (0x10k is 16k there), so kdio refuses hex in it.
TEST(ParseSize, HexAsInFio) {
  EXPECT_EQ(parse_size("0x2000", 1024), 8192u);
  EXPECT_EQ(parse_size("0X2000", 1000), 8192u);
  EXPECT_EQ(parse_size("0x100000", 1024), 1u << 20);
  EXPECT_EQ(parse_size("0x1000b", 1024), 0x1000bu) << "b is a hex digit, as fio reads it";
  EXPECT_EQ(error_of([] { return parse_size("0x10k", 1024); }),
            "size '0x10k': fio drops the 'k' after a hex number and reads 16; write the value in "
            "hex without a unit, or in decimal with one");
  EXPECT_EQ(error_of([] { return parse_size("0x", 1024); }),
            "size '0x' has no hex digits after '0x'");
  EXPECT_EQ(error_of([] { return parse_size("0x10000000000000000", 1024); }),
            "size '0x10000000000000000' is too large");
  EXPECT_EQ(error_of([] { return parse_size("(0x1000*2)", 1024); }),
            "size expression '(0x1000*2)': hex numbers are not allowed in it; write them in "
            "decimal");
}

TEST(ParseTime, BareNumberUnitDependsOnTheOption) {
  EXPECT_EQ(parse_time_ns("10", true), 10'000'000'000u);
  EXPECT_EQ(parse_time_ns("10", false), 10'000u);
}

TEST(ParseTime, Suffixes) {
  EXPECT_EQ(parse_time_ns("7us", true), 7'000u);
  EXPECT_EQ(parse_time_ns("7usec", true), 7'000u);
  EXPECT_EQ(parse_time_ns("7ms", true), 7'000'000u);
  EXPECT_EQ(parse_time_ns("7MSEC", true), 7'000'000u);
  EXPECT_EQ(parse_time_ns("7s", false), 7'000'000'000u);
  EXPECT_EQ(parse_time_ns("2m", true), 120'000'000'000u);
  EXPECT_EQ(parse_time_ns("1h", true), 3'600'000'000'000u);
  EXPECT_EQ(parse_time_ns("1d", true), 86'400'000'000'000u);
}

TEST(ParseTime, RejectsFiosSilentMicrosecondSuffixes) {
  try {
    parse_time_ns("10sec", true);
    FAIL();
  } catch (const JobError& e) {
    EXPECT_STREQ(e.what(),
                 "time '10sec': fio silently reads the suffix 'sec' as microseconds; write '10s' "
                 "instead");
  }
  try {
    parse_time_ns("10min", true);
    FAIL();
  } catch (const JobError& e) {
    EXPECT_STREQ(e.what(),
                 "time '10min': fio silently reads the suffix 'min' as microseconds; write '10m' "
                 "instead");
  }
  EXPECT_THROW(parse_time_ns("10 s", true), JobError);
  EXPECT_THROW(parse_time_ns("10y", true), JobError);
  EXPECT_THROW(parse_time_ns("300000000d", true), JobError);
}

// fio 3.33 runs runtime=0x3 (and 0x3s) with time_based for "job_runtime": 0, not 3 s.
TEST(ParseTime, RejectsHexThatFioReadsAsZero) {
  EXPECT_EQ(error_of([] { return parse_time_ns("0x3", true); }),
            "time '0x3': fio reads a hex time as 0; write it in decimal");
  EXPECT_THROW(parse_time_ns("0X3s", false), JobError);
}

TEST(ParseBool, OnlyZeroOrOne) {
  EXPECT_TRUE(parse_bool("1"));
  EXPECT_FALSE(parse_bool("0"));
  EXPECT_THROW(parse_bool(""), JobError);
  EXPECT_THROW(parse_bool("true"), JobError);
  EXPECT_THROW(parse_bool("2"), JobError);
}

TEST(ParseInt, Range) {
  EXPECT_EQ(parse_int("16", 1, 100), 16);
  EXPECT_THROW(parse_int("0", 1, 100), JobError);
  EXPECT_THROW(parse_int("16k", 1, 100), JobError);
  EXPECT_THROW(parse_int("", 1, 100), JobError);
}

// fio 3.33 runs iodepth=0x4 at "iodepth=4" and numjobs=0x2 as two jobs.
TEST(ParseInt, HexAsInFio) {
  EXPECT_EQ(parse_int("0x4", 1, 100), 4);
  EXPECT_EQ(parse_int("0X1f", 1, 100), 31);
  EXPECT_EQ(error_of([] { return parse_int("0x65", 1, 100); }),
            "101 is out of range; allowed 1..100");
  EXPECT_EQ(error_of([] { return parse_int("0x8000000000000000", 1, 100); }),
            "number '0x8000000000000000' is too large");
  EXPECT_EQ(error_of([] { return parse_int("0x4k", 1, 100); }),
            "number '0x4k': fio drops the 'k' after a hex number and reads 4; write the value in "
            "hex without a unit, or in decimal with one");
}

}  // namespace
}  // namespace kdio
