#include "tables/rw_summary_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tables/test_samples.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;

// Seed 001's shape: 8 randrw jobs with group_reporting, one second long, so bandwidth and IOPS
// are the bytes and I/Os done.
nlohmann::json randrw(uint64_t read_kib, uint64_t read_ios, double read_lat_us, uint64_t write_kib,
                      uint64_t write_ios, double write_lat_us) {
  auto lat = [](double us, uint64_t n) {
    return Latency{us * 500, us * 2000, us * 1000, us * 100, n};
  };
  return kdio_json(
      {job_json("randrw", 0, {{"rw", "randrw"}},
                direction_json(read_kib * 1024, read_ios, 1000, lat(read_lat_us, read_ios),
                               lat(read_lat_us, read_ios)),
                direction_json(write_kib * 1024, write_ios, 1000, lat(write_lat_us, write_ios),
                               lat(write_lat_us, write_ios)))});
}

TEST(RwSummaryTable, OneBlockPerVariantOneLinePerSide) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {
      stored.set("v5.2", "BS=4k", {randrw(30898, 7724, 555.00, 30875, 7718, 479.70)}),
      stored.set("v5.2 -16c5468", "BS=4k", {randrw(117915, 29478, 248.18, 117854, 29463, 21.91)}),
      stored.set("v5.2", "BS=1m", {randrw(487779, 476, 8058.55, 485592, 474, 8630.51)}),
      stored.set("v5.2 -16c5468", "BS=1m", {randrw(593927, 580, 7623.63, 591265, 577, 6163.42)}),
  };
  const std::string rule(97, '-');
  EXPECT_EQ(rw_summary_table(sets),
            "READ and WRITE of each side: bandwidth, IOPS, mean latency (lat)\n"
            "\nBS=4k:\n" +
                rule +
                "\n"
                "v5.2          | READ     30898KB/s,   7724,    555.00us | WRITE    30875KB/s,   "
                "7718,    479.70us\n" +
                rule +
                "\n"
                "v5.2 -16c5468 | READ    117915KB/s,  29478,    248.18us | WRITE   117854KB/s,  "
                "29463,     21.91us\n" +
                rule +
                "\n"
                "\nBS=1m:\n" +
                rule +
                "\n"
                "v5.2          | READ    487779KB/s,    476,   8058.55us | WRITE   485592KB/s,    "
                "474,   8630.51us\n" +
                rule +
                "\n"
                "v5.2 -16c5468 | READ    593927KB/s,    580,   7623.63us | WRITE   591265KB/s,    "
                "577,   6163.42us\n" +
                rule + "\n");
}

TEST(RwSummaryTable, MediansOverTheSamplesOfASide) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {
      stored.set("v5.2", "",
                 {randrw(100, 10, 1, 100, 10, 1), randrw(300, 30, 3, 300, 30, 3),
                  randrw(200, 20, 2, 200, 20, 2)})};
  EXPECT_THAT(rw_summary_table(sets), HasSubstr("(default variant):\n"));
  EXPECT_THAT(rw_summary_table(sets),
              HasSubstr("v5.2 | READ       200KB/s,     20,      2.00us | WRITE      200KB/s,     "
                        "20,      2.00us (median of 3)\n"));
}

TEST(RwSummaryTable, AValueNoSampleHasIsADash) {
  StoredSamples stored;
  nlohmann::json odd = randrw(100, 10, 1, 100, 10, 1);
  odd["jobs"][0]["write"]["lat_ns"]["mean"] = "n/a";
  std::vector<SampleSet> sets = {stored.set("v5.2", "", {odd})};
  EXPECT_THAT(rw_summary_table(sets),
              HasSubstr("v5.2 | READ       100KB/s,     10,      1.00us | WRITE      100KB/s,     "
                        "10,           -\n"));
}

}  // namespace
}  // namespace kbisect
