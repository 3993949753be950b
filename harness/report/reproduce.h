// The "To reproduce:" part of a report: the scenario file and the exact kbisect commands that
// make the session again (resolved commit ids, not the refs, which may have moved since).
#pragma once

#include <string>
#include <vector>

#include "report/report_data.h"

namespace kbisect {

struct Reproduction {
  std::string config;                 // the scenario file, printable: it heads a # comment
  std::vector<std::string> commands;  // shell command lines, arguments quoted; # comments
};

Reproduction reproduction_of(const ReportData& data);

}  // namespace kbisect
