#include "tables/sample_set.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "bisect/statistics.h"
#include "common/error.h"
#include "common/printable.h"
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
                   const std::function<std::optional<double>(const nlohmann::json&)>& value) {
  std::vector<double> values;
  for (const auto& sample : set.samples) {
    if (std::optional<double> found = value(sample)) values.push_back(*found);
  }
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return median(values);
}

std::map<int, nlohmann::json> reporting_groups(const nlohmann::json& kdio) {
  std::map<int, nlohmann::json> groups;
  auto jobs = kdio.find("jobs");
  if (jobs == kdio.end() || !jobs->is_array()) return groups;
  for (const auto& job : *jobs) {
    auto id = job.find("groupid");
    if (id != job.end() && !id->is_number_integer()) return {};
    auto& group = groups[id == job.end() ? 0 : id->get<int>()];
    if (group.is_null()) group = {{"jobs", nlohmann::json::array()}};
    group["jobs"].push_back(job);
  }
  return groups;
}

std::optional<double> metric_of(const nlohmann::json& kdio, const std::string& path) {
  try {
    return extract_metric(kdio, MetricSpec{path, "", Better::kHigher});
  } catch (const Error&) {
    // Why it is missing is the metric's business; the table only shows that it is.
    return std::nullopt;
  }
}

std::string number_text(double value, std::string_view format) {
  if (std::isnan(value)) return "-";
  return fmt::format(fmt::runtime(format), value);
}

std::string job_name(const nlohmann::json& job) {
  return printable_line(job.value("jobname", ""));
}

std::string group_name(const nlohmann::json& group) {
  return job_name(group.at("jobs").at(0));
}

}  // namespace kbisect
