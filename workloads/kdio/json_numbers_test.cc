#include "kdio/json_numbers.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "report.h"

namespace kdio {
namespace {

using Json = nlohmann::json;
using Names = std::set<std::string>;

// A job that did reads and one fsync, so that every latency object has samples.
Json rendered_job() {
  Job job;
  job.name = "j";
  std::vector<Job> jobs = {job};
  JobResult result;
  DirResult& read = result.dir[0];
  for (uint64_t ns : {1000, 2000, 3000}) {
    read.slat.add(ns);
    read.clat.add(ns);
    read.clat_hist.add(ns);
    read.lat.add(ns);
  }
  read.io_bytes = 3 * 4096;
  read.total_ios = 3;
  read.runtime_ms = 1;
  result.sync.fsyncs = 1;
  result.sync.lat.add(5000);
  result.sync.lat_hist.add(5000);
  result.finished = true;
  std::vector<JobResult> results = {result};
  Report report;
  report.jobs = &jobs;
  report.entries = report_entries(jobs, results);
  return Json::parse(render_json(report, false))["jobs"][0];
}

template <typename List>
Names names_of(const List& list) {
  Names names;
  for (const auto& name : list) names.emplace(name);
  return names;
}

Names keys_where(const Json& object, bool (Json::*kind)() const noexcept) {
  Names keys;
  for (const auto& [key, value] : object.items()) {
    if ((value.*kind)()) keys.insert(key);
  }
  return keys;
}

Names number_keys(const Json& object) {
  return keys_where(object, &Json::is_number);
}

Names default_percentile_keys() {
  Names keys;
  for (double percentile : default_percentiles()) keys.insert(percentile_key(percentile));
  return keys;
}

TEST(JsonNumbers, DirectionsHoldTheListedNumbersAndLatencies) {
  Json job = rendered_job();
  for (const char* direction : {"read", "write", "trim"}) {
    EXPECT_EQ(number_keys(job[direction]), names_of(direction_numbers())) << direction;
    EXPECT_EQ(keys_where(job[direction], &Json::is_object), names_of(direction_latencies()))
        << direction;
  }
}

TEST(JsonNumbers, LatenciesHoldTheListedNumbersAndOnlyClatAndSyncHavePercentiles) {
  Json job = rendered_job();
  for (std::string_view latency : direction_latencies()) {
    const Json& stats = job["read"][std::string(latency)];
    EXPECT_EQ(number_keys(stats), names_of(latency_numbers())) << latency;
    EXPECT_EQ(stats.contains("percentile"), latency == "clat_ns") << latency;
  }
  EXPECT_EQ(number_keys(job["sync"]["lat_ns"]), names_of(latency_numbers()));
  EXPECT_EQ(number_keys(job["read"]["clat_ns"]["percentile"]), default_percentile_keys());
  EXPECT_EQ(number_keys(job["sync"]["lat_ns"]["percentile"]), default_percentile_keys());
}

TEST(JsonNumbers, PercentileKeysAreFiosSpelling) {
  EXPECT_EQ(percentile_key(99), "99.000000");
  EXPECT_EQ(percentile_key(99.99), "99.990000");
  EXPECT_EQ(percentile_key(5), "5.000000");
  EXPECT_EQ(percentile_key(1e300).size(), 308u);
}

TEST(JsonNumbers, APercentileInAMetricPathIsSpelledAsFioDoes) {
  using namespace std::string_view_literals;
  EXPECT_EQ(percentile_key("99"sv), "99.000000");
  EXPECT_EQ(percentile_key("99.9"sv), "99.900000");
  EXPECT_EQ(percentile_key("99.000000"sv), "99.000000");
  for (std::string_view not_a_number : {"", "x", " 99", "99 ", "0x63", "inf", "nan", "99.9.9"}) {
    EXPECT_EQ(percentile_key(not_a_number), std::nullopt) << not_a_number;
  }
}

}  // namespace
}  // namespace kdio
