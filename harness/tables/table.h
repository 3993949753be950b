// The table a scenario's `table:` names (config/scenario.h), rendered from the sides a command
// measured. `run`, `compare` and `revert-check` print it after their summary.
#pragma once

#include <string>
#include <vector>

#include "config/scenario.h"
#include "tables/sample_set.h"

namespace kbisect {

// "" for ReportTable::kNone.
std::string render_table(ReportTable table, const std::vector<SampleSet>& sets);

}  // namespace kbisect
