// `kbisect report SESSION`: the session as text, shaped like a 0-day kernel test robot mail:
// the commit and its subject, the testcase, a before/after table per metric (medians,
// %stddev, %change), the confirmation, the path the bisection took, and "To reproduce:".
#pragma once

#include <string>

#include "report/report_data.h"

namespace kbisect {

std::string text_report(const ReportData& data);

}  // namespace kbisect
