// What the session's scenario file and kernel repository add to a report while they are still
// there: the subjects of the session's commits and the scenario's order of the metrics. When
// either is gone the report says so (ReportData::subjects_unavailable) instead of failing.
#pragma once

#include "report/report_data.h"

namespace kbisect {

void add_scenario_facts(ReportData& data);

}  // namespace kbisect
