#include "tables/sample_set.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tables/test_samples.h"

namespace kbisect {
namespace {

nlohmann::json reads(uint64_t ios, uint64_t runtime_ms, int group_id = 0) {
  return kdio_json(
      {job_json("r", group_id, {}, direction_json(ios * 4096, ios, runtime_ms, {}, {}), nullptr)});
}

TEST(SampleSet, ReadsTheSamplesOfItsRunsFromTheDatabase) {
  StoredSamples stored;
  SampleSet set = stored.set("v6.1@nolock", "nolock", {reads(100, 1000), reads(300, 1000)});
  EXPECT_EQ(set.side, "v6.1@nolock");
  EXPECT_EQ(set.variant, "nolock");
  ASSERT_EQ(set.samples.size(), 2u);
  EXPECT_EQ(set.samples[1]["jobs"][0]["read"]["total_ios"], 300);
  EXPECT_DOUBLE_EQ(
      median_over(set, [](const nlohmann::json& s) { return metric_of(s, "read.iops"); }), 200.0);
}

TEST(SampleSet, NoSamplesHaveNoMedian) {
  SampleSet empty{"a", "", {}};
  EXPECT_TRUE(std::isnan(median_over(empty, [](const nlohmann::json&) { return 1.0; })));
}

TEST(SampleSet, NameShowsTheVariantOnce) {
  EXPECT_EQ(set_name({"v6.1@nolock", "nolock", {}}), "v6.1@nolock");
  EXPECT_EQ(set_name({"v6.1", "nolock", {}}), "v6.1@nolock");
  EXPECT_EQ(set_name({"v6.1 -abc", "", {}}), "v6.1 -abc");
}

TEST(SampleSet, ReportingGroupsCombineTheirJobs) {
  nlohmann::json kdio = reads(100, 1000);
  kdio["jobs"].push_back(reads(300, 2000, 0)["jobs"][0]);
  kdio["jobs"].push_back(reads(50, 500, 1)["jobs"][0]);
  kdio["jobs"][2]["jobname"] = "w";
  auto groups = reporting_groups(kdio);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_DOUBLE_EQ(*metric_of(groups.at(0), "read.iops"), 100 + 150);
  EXPECT_DOUBLE_EQ(*metric_of(groups.at(0), "read.runtime"), 2000);  // the longest
  EXPECT_DOUBLE_EQ(*metric_of(groups.at(1), "read.total_ios"), 50);
  EXPECT_EQ(group_name(groups.at(1)), "w");
}

// The guest wrote the JSON: a sample whose value is missing or not a number is left out.
TEST(SampleSet, SamplesWithoutTheValueAreLeftOutOfTheMedian) {
  nlohmann::json text_iops = reads(500, 1000);
  text_iops["jobs"][0]["read"]["iops"] = "fast";
  nlohmann::json no_read = reads(700, 1000);
  no_read["jobs"][0].erase("read");
  EXPECT_FALSE(metric_of(text_iops, "read.iops"));
  EXPECT_FALSE(metric_of(no_read, "read.iops"));
  SampleSet set{"a", "", {reads(100, 1000), text_iops, no_read, reads(300, 1000)}};
  auto iops = [](const nlohmann::json& s) { return metric_of(s, "read.iops"); };
  EXPECT_DOUBLE_EQ(median_over(set, iops), 200.0);
  EXPECT_TRUE(std::isnan(median_over({"b", "", {text_iops, no_read}}, iops)));
}

TEST(SampleSet, AGroupIdThatIsNotAnIntegerLeavesTheSampleWithoutGroups) {
  nlohmann::json kdio = reads(100, 1000);
  kdio["jobs"].push_back(reads(50, 500, 1)["jobs"][0]);
  kdio["jobs"][1]["groupid"] = "1";
  EXPECT_TRUE(reporting_groups(kdio).empty());
  kdio["jobs"][1].erase("groupid");  // fio's default group
  EXPECT_EQ(reporting_groups(kdio).size(), 1u);
}

TEST(SampleSet, NumbersOrADash) {
  EXPECT_EQ(number_text(1.234, "{:.2f}us"), "1.23us");
  EXPECT_EQ(number_text(std::nan(""), "{:.2f}us"), "-");
}

}  // namespace
}  // namespace kbisect
