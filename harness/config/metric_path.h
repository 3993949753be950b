// A metric names a number in kdio's JSON report for a job ("read.iops",
// "write.clat_ns.percentile.99.000000"). Checked when the config is loaded: a path kdio never
// writes would otherwise fail only after a kernel build and a boot.
#pragma once

#include <optional>
#include <string>

namespace kbisect {

// Why `name` is not a path to a number kdio writes, or nullopt if it is one.
std::optional<std::string> metric_path_problem(const std::string& name);

}  // namespace kbisect
