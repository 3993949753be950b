// The samples of one side of a measurement as the report tables read them: kdio's JSON of
// every sample of the side's runs, read back from the results database, and the arithmetic
// every table shares (medians over samples, reporting groups, metric paths).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
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

// The guest wrote the samples' JSON, and the results check only its outline (a "jobs" array of
// named jobs): a value a table reads can be missing or not a number in some sample. Such a
// sample is left out of that value's median, so one bad sample does not cost the report.

// The median of `value` over the samples that have it; NaN when none has (the tables print "-").
double median_over(const SampleSet& set,
                   const std::function<std::optional<double>(const nlohmann::json&)>& value);

// kdio's reporting groups: group id -> the group's job entries as a kdio output of their own
// ({"jobs": [...]}), so that store/metrics.h combines them (sums, maxima, pooled latencies).
// None when a job's groupid is not an integer: its jobs cannot be told apart.
std::map<int, nlohmann::json> reporting_groups(const nlohmann::json& kdio);

// A metric path (store/metrics.h: "read.iops", "write.clat_ns.mean") over every job of `kdio`
// (a whole output or one reporting group); none when a job lacks it or it is not a number.
std::optional<double> metric_of(const nlohmann::json& kdio, const std::string& path);

// `value` printed with `format` ("{:.2f}"), or "-" for NaN (no sample has it).
std::string number_text(double value, std::string_view format);

// A job's name in kdio's output, printable (printable_line): the guest wrote it.
std::string job_name(const nlohmann::json& job);

// The name of a group: its first job's name ("reader", "write").
std::string group_name(const nlohmann::json& group);

}  // namespace kbisect
