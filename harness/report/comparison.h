// The A/B comparisons a report shows, per metric: a bisection's culprit against its parent(s)
// and bad against bad with the culprit reverted (good against bad while no culprit is named),
// and the two sides of a compare or revert-check session. The first is the report's main
// table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/report_data.h"

namespace kbisect {

struct ReportSide {
  std::string role;    // parent, culprit, good, bad, bad - culprit, A, B, base, reverted
  std::string commit;  // 40-hex, or a sim runner's revert id
  std::optional<std::string> variant;  // A/B sessions: only this variant's samples
  std::string label;                   // A/B sessions: the side as the user wrote it
};

struct MetricComparison {
  std::string metric;
  std::vector<double> before, after;
  double change = 0;  // relative change of the median, after against before
  double p = 1;       // two-sided Mann-Whitney U
  // A/B sessions: what the command found ("significant", "too few samples", ...); "" when
  // its result does not say.
  std::string finding;
  bool both_measured() const { return !before.empty() && !after.empty(); }
};

struct Comparison {
  std::string title;  // "culprit vs parent", "revert on bad", "B vs A", ...
  ReportSide before, after;
  std::vector<MetricComparison> metrics;  // one per metric of the report, in its order
};

std::vector<Comparison> comparisons_of(const ReportData& data);

}  // namespace kbisect
