// Test support: report data of typical sessions, built in memory, for the renderers' tests.
#pragma once

#include <string>

#include "report/report_data.h"

namespace kbisect {

// Commit ids of the bisection below: good G, candidates C1 (oldest), C2 (the culprit), C3,
// bad B, and R = B with C2 reverted.
struct TestCommits {
  static inline const std::string G = std::string(40, 'a');
  static inline const std::string C1 = std::string(40, '1');
  static inline const std::string C2 = std::string(40, '2');
  static inline const std::string C3 = std::string(40, '3');
  static inline const std::string B = std::string(40, 'b');
  static inline const std::string R = std::string(40, 'c');
};

// A finished bisection: endpoints measured, C2 bad, C1 good after an undecided round, C2
// confirmed against C1 and by R; C3 failed to build; read.iops drops about 20%.
ReportData finished_bisect_report();

// A compare session of A = G and B = B, variant "nolock" on the B side.
ReportData compare_report();

// A revert-check of base G against B (G with commit abc123 reverted) in two variants, "lock"
// and "nolock": read.iops drops 30% in the first, 5.2% in nolock.
ReportData two_variant_revert_check_report();

// A bisection that was just created: no samples, steps or result.
ReportData empty_bisect_report();

}  // namespace kbisect
