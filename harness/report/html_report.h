// `kbisect report SESSION --html FILE`: the same report as one self-contained HTML page (inline
// CSS and SVG; no script, no external resource), with plots: the metric per tested commit,
// the path the bisection took, and the A/B distributions of each comparison. Every value that
// comes from the database is escaped.
#pragma once

#include <string>

#include "report/report_data.h"

namespace kbisect {

std::string html_report(const ReportData& data);

}  // namespace kbisect
