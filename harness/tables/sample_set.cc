#include "tables/sample_set.h"

#include <cmath>
#include <limits>

#include "bisect/statistics.h"
#include "store/metrics.h"
#include "store/store.h"

namespace kbisect {

SampleSet load_sample_set(Store& store, std::string side, std::string variant,
                          const std::vector<int64_t>& run_ids) {
  SampleSet set{std::move(side), std::move(variant), {}};
  for (int64_t run_id : run_ids) {
    // The schema checks json_valid(kdio_json), so every stored sample parses.
    for (const SampleRecord& sample : store.samples_of_run(run_id)) {
      set.samples.push_back(nlohmann::json::parse(sample.kdio_json));
    }
  }
  return set;
}

std::string set_name(const SampleSet& set) {
  if (set.variant.empty() || set.side.ends_with("@" + set.variant)) return set.side;
  return set.side + "@" + set.variant;
}

double median_over(const SampleSet& set,
                   const std::function<double(const nlohmann::json&)>& value) {
  if (set.samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values;
  for (const auto& sample : set.samples) values.push_back(value(sample));
  return median(values);
}

std::map<int, nlohmann::json> reporting_groups(const nlohmann::json& kdio) {
  std::map<int, nlohmann::json> groups;
  for (const auto& job : kdio.value("jobs", nlohmann::json::array())) {
    auto& group = groups[job.value("groupid", 0)];
    if (group.is_null()) group = {{"jobs", nlohmann::json::array()}};
    group["jobs"].push_back(job);
  }
  return groups;
}

double metric_of(const nlohmann::json& kdio, const std::string& path) {
  return extract_metric(kdio, MetricSpec{path, "", Better::kHigher});
}

std::string group_name(const nlohmann::json& group) {
  return group.at("jobs").at(0).value("jobname", "");
}

}  // namespace kbisect
