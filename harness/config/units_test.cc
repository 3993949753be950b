#include "config/units.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(Units, Sizes) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_size("2G"), 2ull << 30);
  EXPECT_EQ(parse_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_size("2gb"), 2ull << 30);
  EXPECT_EQ(parse_size("1T"), 1ull << 40);
  EXPECT_EQ(parse_size("10B"), 10u);
  for (const char* bad : {"", "G", "2 G", "2X", "-1", "1.5G", "2iB", "99999999999999T", "2GG"}) {
    EXPECT_EQ(parse_size(bad), std::nullopt) << bad;
  }
}

TEST(Units, Durations) {
  EXPECT_EQ(parse_duration("120"), 120);
  EXPECT_EQ(parse_duration("120s"), 120);
  EXPECT_EQ(parse_duration("30m"), 1800);
  EXPECT_EQ(parse_duration("1h"), 3600);
  EXPECT_EQ(parse_duration("1h30m"), 5400);
  EXPECT_EQ(parse_duration("1h30m15s"), 5415);
  for (const char* bad : {"", "s", "1x", "30m1h", "1m1m", "1ms", "1.5h", "1 h", "-5s"}) {
    EXPECT_EQ(parse_duration(bad), std::nullopt) << bad;
  }
}

TEST(Units, Fractions) {
  EXPECT_DOUBLE_EQ(*parse_fraction("3%"), 0.03);
  EXPECT_DOUBLE_EQ(*parse_fraction("0.5%"), 0.005);
  EXPECT_DOUBLE_EQ(*parse_fraction("0.03"), 0.03);
  for (const char* bad : {"", "%", "3 %", "three%", "3%%", "inf"}) {
    EXPECT_EQ(parse_fraction(bad), std::nullopt) << bad;
  }
}

TEST(Units, Numbers) {
  EXPECT_EQ(parse_integer("-12"), -12);
  EXPECT_EQ(parse_integer("12x"), std::nullopt);
  EXPECT_EQ(parse_integer(""), std::nullopt);
  EXPECT_DOUBLE_EQ(*parse_double("1e-3"), 0.001);
  EXPECT_EQ(parse_double("1,5"), std::nullopt);
}

}  // namespace
}  // namespace kbisect
