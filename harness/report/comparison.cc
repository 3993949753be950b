#include "report/comparison.h"

#include "bisect/statistics.h"

namespace kbisect {
namespace {

std::string option_text(const ReportData& data, const char* key) {
  auto options = nlohmann::json::parse(data.session.options_json, nullptr, false);
  if (!options.is_object() || !options.contains(key) || !options[key].is_string()) return "";
  return options[key].get<std::string>();
}

Comparison compare(const ReportData& data, std::string title, ReportSide before, ReportSide after) {
  Comparison comparison{std::move(title), std::move(before), std::move(after), {}};
  for (const auto& metric : data.metrics) {
    MetricComparison row;
    row.metric = metric;
    row.before = values_of(data, comparison.before.commit, metric, comparison.before.variant);
    row.after = values_of(data, comparison.after.commit, metric, comparison.after.variant);
    if (row.both_measured()) {
      row.change = relative_change(row.before, row.after);
      row.p = mann_whitney_u(row.before, row.after).p_value;
    }
    comparison.metrics.push_back(std::move(row));
  }
  return comparison;
}

// Before a culprit is named and confirmed against its parent: the endpoints.
std::vector<Comparison> endpoint_comparison(const ReportData& data) {
  const auto& session = data.session;
  if (session.good_commits.empty()) return {};
  return {compare(data, "bad vs good", {"good", session.good_commits.front(), {}, ""},
                  {"bad", session.bad_commit, {}, ""})};
}

std::vector<Comparison> bisect_comparisons(const ReportData& data) {
  auto culprit = culprit_of(data);
  const auto confirmation = confirmation_commits(data);
  if (!culprit || confirmation.parents.empty()) return endpoint_comparison(data);
  const auto& session = data.session;
  std::vector<Comparison> comparisons;
  for (const auto& parent : confirmation.parents) {
    comparisons.push_back(compare(data, "culprit vs parent", {"parent", parent, {}, ""},
                                  {"culprit", *culprit, {}, ""}));
  }
  if (!confirmation.revert.empty()) {
    comparisons.push_back(compare(data, "revert on bad",
                                  {"bad - culprit", confirmation.revert, {}, ""},
                                  {"bad", session.bad_commit, {}, ""}));
  }
  return comparisons;
}

std::vector<Comparison> ab_comparisons(const ReportData& data, const std::string& before_role,
                                       const std::string& after_role) {
  const auto& session = data.session;
  if (session.good_commits.empty()) return {};
  ReportSide before{before_role, session.good_commits.front(), option_text(data, "a_variant"),
                    session.good_refs.empty() ? "" : session.good_refs.front()};
  ReportSide after{after_role, session.bad_commit, option_text(data, "b_variant"), session.bad_ref};
  return {compare(data, after_role + " vs " + before_role, before, after)};
}

}  // namespace

std::vector<Comparison> comparisons_of(const ReportData& data) {
  switch (data.session.kind) {
    case SessionKind::kBisect:
      return bisect_comparisons(data);
    case SessionKind::kCompare:
      return ab_comparisons(data, "A", "B");
    case SessionKind::kRevertCheck:
      return ab_comparisons(data, "base", "reverted");
    case SessionKind::kNightly:
    case SessionKind::kRun:
      break;
  }
  return {};
}

}  // namespace kbisect
