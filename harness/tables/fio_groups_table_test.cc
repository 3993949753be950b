#include "tables/fio_groups_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tables/test_samples.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;
constexpr uint64_t kMiB = 1 << 20;

// Seed 000's shape: three job files, one reporting group each (readers and writers merged).
nlohmann::json three_modes(uint64_t psync_read_runtime_ms) {
  nlohmann::json psync_direct =
      job_json("reader", 0, {{"ioengine", "psync"}, {"direct", "1"}, {"iodepth", "16"}},
               direction_json(64 * kMiB, 16384, psync_read_runtime_ms,
                              {100'000, 679'911'000, 727'210, 3'986'350, 16384},
                              {100'200, 679'911'000, 727'400, 3'986'350, 16384}),
               direction_json(kMiB, 256, 2000, {136'000, 2'743'300'000, 1'766'780, 14'844'100, 256},
                              {137'000, 2'743'300'000, 1'767'140, 14'844'100, 256}));
  nlohmann::json libaio_direct = job_json(
      "reader", 1, {{"ioengine", "libaio"}, {"direct", "1"}, {"iodepth", "64"}},
      direction_json(512 * 1024, 128, 1000, {232'000, 958'452'000, 48'627'210, 53'296'330, 128},
                     {248'000, 958'471'000, 49'328'360, 53'905'270, 128},
                     {3'000, 320'273'000, 700'790, 6'070'930, 128}),
      nullptr);
  nlohmann::json psync_buffered = job_json(
      "reader", 2, {{"ioengine", "psync"}, {"direct", "0"}}, nullptr,
      direction_json(2 * kMiB, 512, 4000, {2'000, 42'443'000'000, 1'257'410, 138'832'280, 512},
                     {2'000, 42'443'000'000, 1'257'570, 138'832'290, 512}));
  return kdio_json({psync_direct, libaio_direct, psync_buffered});
}

TEST(FioGroupsTable, EachGroupAndDirectionLikeFio) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set("v6.1@lock", "lock", {three_modes(2000)})};
  EXPECT_EQ(fio_groups_table(sets),
            "= psync direct (reader, group 0) =\n"
            "=== v6.1@lock ===\n"
            "  read : io=64.0MB, bw=32768KB/s, iops=8192, runt=2000msec\n"
            "     clat (usec): min=100, max=679911, avg=727.21, stdev=3986.35\n"
            "      lat (usec): min=100, max=679911, avg=727.40, stdev=3986.35\n"
            "  write: io=1.0MB, bw=512.0KB/s, iops=128, runt=2000msec\n"
            "     clat (usec): min=136, max=2743300, avg=1766.78, stdev=14844.10\n"
            "      lat (usec): min=137, max=2743300, avg=1767.14, stdev=14844.10\n"
            "\n"
            "= libaio direct iodepth=64 (reader, group 1) =\n"
            "=== v6.1@lock ===\n"
            "  read : io=512KB, bw=512.0KB/s, iops=128, runt=1000msec\n"
            "     slat (usec): min=3, max=320273, avg=700.79, stdev=6070.93\n"
            "     clat (usec): min=232, max=958452, avg=48627.21, stdev=53296.33\n"
            "      lat (usec): min=248, max=958471, avg=49328.36, stdev=53905.27\n"
            "\n"
            "= psync buffered (reader, group 2) =\n"
            "=== v6.1@lock ===\n"
            "  write: io=2.0MB, bw=512.0KB/s, iops=128, runt=4000msec\n"
            "     clat (usec): min=2, max=42443000, avg=1257.41, stdev=138832.28\n"
            "      lat (usec): min=2, max=42443000, avg=1257.57, stdev=138832.29\n"
            "\n");
}

TEST(FioGroupsTable, BothSidesUnderEachGroupWithMediansOverSamples) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {
      stored.set("v6.1@lock", "lock", {three_modes(2000)}),
      stored.set("v6.1@nolock", "nolock",
                 {three_modes(1000), three_modes(3000), three_modes(2000)})};
  std::string table = fio_groups_table(sets);
  // Group 0 shows lock, then nolock; the median of 1, 3 and 2 s is 2 s.
  EXPECT_THAT(table, HasSubstr("= psync direct (reader, group 0) =\n"
                               "=== v6.1@lock ===\n"
                               "  read : io=64.0MB, bw=32768KB/s, iops=8192, runt=2000msec\n"));
  EXPECT_THAT(table, HasSubstr("=== v6.1@nolock (median of 3 samples) ===\n"
                               "  read : io=64.0MB, bw=32768KB/s, iops=8192, runt=2000msec\n"));
  EXPECT_LT(table.find("=== v6.1@nolock"), table.find("= libaio"));
}

TEST(FioGroupsTable, ASideWithoutSamplesSaysSo) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set("a", "", {three_modes(2000)}), SampleSet{"b", "", {}}};
  EXPECT_THAT(fio_groups_table(sets), HasSubstr("=== b ===\n  no samples\n"));
  EXPECT_EQ(fio_groups_table({SampleSet{"b", "", {}}}), "no samples to tabulate\n");
}

// A later sample without group 1, one whose options and numbers are not what fio writes: the
// table still renders, each median over the samples that have the value, "-" where none has.
TEST(FioGroupsTable, SamplesMissingAGroupOrAValueAreLeftOut) {
  StoredSamples stored;
  nlohmann::json without_group_1 = three_modes(1000);
  without_group_1["jobs"].erase(1);
  nlohmann::json odd = three_modes(3000);
  odd["jobs"][0]["job options"]["ioengine"] = 7;
  odd["jobs"][0]["read"]["io_bytes"] = "lots";
  odd["jobs"][1]["read"]["iops"] = nullptr;
  std::vector<SampleSet> sets = {stored.set("good", "", {three_modes(2000), without_group_1}),
                                 stored.set("bad", "", {odd}),
                                 stored.set("other", "", {without_group_1})};
  std::string table = fio_groups_table(sets);
  EXPECT_THAT(table, HasSubstr("= psync direct (reader, group 0) =\n"
                               "=== good (median of 2 samples) ===\n"
                               "  read : io=64.0MB, bw=49152KB/s, iops=12288, runt=1500msec\n"));
  EXPECT_THAT(table,
              HasSubstr("=== bad ===\n  read : io=-, bw=21845KB/s, iops=5461, runt=3000msec\n"));
  EXPECT_THAT(table, HasSubstr("= libaio direct iodepth=64 (reader, group 1) =\n"
                               "=== good (median of 2 samples) ===\n"
                               "  read : io=512KB, bw=512.0KB/s, iops=128, runt=1000msec\n"));
  EXPECT_THAT(table,
              HasSubstr("=== bad ===\n  read : io=512KB, bw=512.0KB/s, iops=-, runt=1000msec\n"));
  EXPECT_THAT(table, HasSubstr("=== other ===\n  no sample has this group\n"));
}

}  // namespace
}  // namespace kbisect
