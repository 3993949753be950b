// The samples of one side of a measurement as the report tables read them: kdio's JSON of
// every sample of the side's runs, read back from the results database, and the arithmetic
// every table shares (medians over samples, reporting groups, metric paths).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kbisect {

class Store;

struct SampleSet {
  std::string side;     // as the user named it: "v6.1@nolock", "v6.1 -16c54688592c", "v6.1"
  std::string variant;  // the variant measured, "" for the default
  std::vector<nlohmann::json> samples;  // kdio's JSON of each sample, oldest first
};

// The samples the runs `run_ids` stored, in that order.
SampleSet load_sample_set(Store& store, std::string side, std::string variant,
                          const std::vector<int64_t>& run_ids);

// "v6.1@nolock": the side, and the variant unless the side already names it.
std::string set_name(const SampleSet& set);

// The median over the set's samples of `value`; NaN when the set has no samples.
double median_over(const SampleSet& set, const std::function<double(const nlohmann::json&)>& value);

// kdio's reporting groups: group id -> the group's job entries as a kdio output of their own
// ({"jobs": [...]}), so that store/metrics.h combines them (sums, maxima, pooled latencies).
std::map<int, nlohmann::json> reporting_groups(const nlohmann::json& kdio);

// A metric path (store/metrics.h: "read.iops", "write.clat_ns.mean") over every job of `kdio`
// (a whole output or one reporting group).
double metric_of(const nlohmann::json& kdio, const std::string& path);

// The name of a group: its first job's name ("reader", "write").
std::string group_name(const nlohmann::json& group);

}  // namespace kbisect
