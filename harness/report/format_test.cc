#include "report/format.h"

#include <gtest/gtest.h>

#include <limits>

namespace kbisect {
namespace {

TEST(ReportFormat, ValuesKeepTheDigitsThatMatter) {
  EXPECT_EQ(format_value(123456.7), "123457");
  EXPECT_EQ(format_value(7123.4), "7123");
  EXPECT_EQ(format_value(712.64), "713");
  EXPECT_EQ(format_value(71.234), "71.2");
  EXPECT_EQ(format_value(7.1234), "7.12");
  EXPECT_EQ(format_value(0.071234), "0.0712");
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(-1500.2), "-1500");
  EXPECT_EQ(format_value(-0.4e-9), "-4e-10");
  EXPECT_EQ(format_value(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

// Ten-digit nanoseconds ran off the plot's left edge: 1100000000 read as 100000000.
TEST(ReportFormat, TicksOfLargeValuesTakeAPrefix) {
  EXPECT_EQ(format_tick(1.1e9, 1e8, 1.2e9), "1.1G");
  EXPECT_EQ(format_tick(1.2e9, 2e8, 1.2e9), "1.2G");
  EXPECT_EQ(format_tick(25e6, 5e6, 30e6), "25M");
  EXPECT_EQ(format_tick(250000, 50000, 300000), "250k");
  EXPECT_EQ(format_tick(1000000100, 100, 1000000200), "1.0000001G");  // still told apart
  EXPECT_EQ(format_tick(0, 2e8, 1e9), "0");
  EXPECT_EQ(format_tick(-3e6, 1e6, 3e6), "-3M");
  EXPECT_EQ(format_tick(50000, 10000, 60000), "50000");  // short enough as it is
  EXPECT_EQ(format_tick(7.12, 0.5, 8), "7.12");
}

TEST(ReportFormat, ChangesHaveASignAndOneDecimal) {
  EXPECT_EQ(format_change(-0.452), "-45.2%");
  EXPECT_EQ(format_change(0.03), "+3.0%");
  EXPECT_EQ(format_change(0), "0.0%");
  EXPECT_EQ(format_change(-0.0001), "0.0%");  // no "-0.0%"
  EXPECT_EQ(format_change(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(ReportFormat, StddevIsRelativeToTheMeanAndNeedsTwoValues) {
  EXPECT_EQ(format_stddev(std::vector<double>{100, 110, 90}), "±10%");
  EXPECT_EQ(format_stddev(std::vector<double>{5, 5}), "±0%");
  EXPECT_EQ(format_stddev(std::vector<double>{100}), "");
  EXPECT_EQ(format_stddev(std::vector<double>{}), "");
  EXPECT_EQ(format_stddev(std::vector<double>{-1, 1}), "");  // mean 0: no relative spread
  EXPECT_EQ(format_percent_stddev(std::vector<double>{100, 110, 90}), "10.0%");
  EXPECT_EQ(format_percent_stddev(std::vector<double>{100}), "-");
  EXPECT_EQ(format_percent_stddev(std::vector<double>{-1, 1}), "-");
}

TEST(ReportFormat, MediansAndPValues) {
  EXPECT_EQ(format_median(std::vector<double>{3, 1, 2}), "2.00");
  EXPECT_EQ(format_median(std::vector<double>{}), "-");
  EXPECT_EQ(format_p(0.0321), "0.0321");
  EXPECT_EQ(format_p(1), "1");
  EXPECT_EQ(format_p(0.000012), "1.2e-05");
  EXPECT_EQ(format_p(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(ReportFormat, ShortIdsOnlyShortenCommitIds) {
  EXPECT_EQ(short_id("0123456789abcdef0123456789abcdef01234567"), "0123456789ab");
  EXPECT_EQ(short_id("revert:abc@def"), "revert:abc@def");
  EXPECT_EQ(short_id("revert:" + std::string(40, 'a') + "@" + std::string(40, 'b')),
            "revert:aaaaaaaaaaaa@bbbbbbbbbbbb");
  EXPECT_EQ(short_id("abc"), "abc");
}

}  // namespace
}  // namespace kbisect
