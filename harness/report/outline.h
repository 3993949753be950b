// What a report says, before it is laid out as text or HTML: the labelled facts of its header,
// the confirmation, the path the bisection took and the runs that failed. Both renderers show
// the same facts in the same order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_data.h"

namespace kbisect {

struct Fact {
  std::string label;  // "commit", "in testcase", ...
  std::string value;
};

// commit (with its subject), in testcase, the session, its endpoints or sides, its verdict,
// and why subjects are missing if they are.
std::vector<Fact> header_of(const ReportData& data);

// A bisection's checks of its culprit, as the session stated them; empty for other kinds.
std::vector<Fact> confirmation_of(const ReportData& data);

// One entry of a bisect result's "refuted" list as the report and the CLI summary say it:
// "abc123def456: not worse than parent ...; the search went on".
std::string refuted_text(const nlohmann::json& refuted);

// Why the confirmation's p of two commits can differ from the comparison table's.
inline constexpr std::string_view kConfirmationSamples =
    "on samples taken after the search, unbiased by its choice (the tables pool all samples)";

// One measured commit of a bisection, in the order the search chose it.
struct PathRow {
  int step = 0;
  std::string commit;
  std::string phase;    // search | confirm
  std::string verdict;  // good, bad, skip, undecided, or "" (confirmation only)
  int samples = 0;      // of the bisected metric in this session
  std::optional<double> median;
  // The verdict's effect: the relative change of the median against good's, > 0 is worse
  // (whichever direction is worse for the metric).
  std::optional<double> worse_than_good;
  std::optional<double> p;  // the verdict's p-value
  std::string subject;
  std::string note;  // "culprit", "same image as ...", "bad - culprit", a failure
};
std::vector<PathRow> path_of(const ReportData& data);

// Runs that produced no sample: short commit id -> "outcome: detail".
std::vector<Fact> failures_of(const ReportData& data);

}  // namespace kbisect
