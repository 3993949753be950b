#include "report/comparison.h"

#include <optional>
#include <vector>

#include "bisect/statistics.h"

namespace kbisect {
namespace {

// The metric rows compare and revert-check stored for their pair `index`: {"metrics": [...]}
// for one pair, {"pairs": [{"metrics": [...]}, ...]} for several.
nlohmann::json stored_rows(const nlohmann::json& result, size_t index) {
  if (!result.is_object()) return nullptr;
  if (auto pairs = result.find("pairs"); pairs != result.end()) {
    if (!pairs->is_array() || index >= pairs->size() || !(*pairs)[index].is_object()) {
      return nullptr;
    }
    return (*pairs)[index].value("metrics", nlohmann::json());
  }
  return index == 0 ? result.value("metrics", nlohmann::json()) : nullptr;
}

// The stored row of `metric`, or null.
nlohmann::json stored_row(const nlohmann::json& rows, const std::string& metric) {
  if (!rows.is_array()) return nullptr;
  for (const auto& row : rows) {
    if (row.is_object() && row.value("metric", nlohmann::json()) == metric) return row;
  }
  return nullptr;
}

std::string stored_finding(const nlohmann::json& row) {
  const auto finding = row.is_object() ? row.value("finding", nlohmann::json()) : nullptr;
  return finding.is_string() ? finding.get<std::string>() : "";
}

// The values of a side as its row stores them (its "a" or "b"), if it does.
std::optional<std::vector<double>> stored_side(const nlohmann::json& row, const char* side) {
  if (!row.is_object()) return std::nullopt;
  const auto values = row.find(side);
  if (values == row.end() || !values->is_array()) return std::nullopt;
  std::vector<double> out;
  for (const auto& value : *values) {
    if (!value.is_number()) return std::nullopt;
    out.push_back(value.get<double>());
  }
  return out;
}

void judge(MetricComparison& row) {
  if (!row.both_measured()) return;
  row.change = relative_change_or_nan(row.before, row.after);
  row.p = mann_whitney_u(row.before, row.after).p_value;
}

Comparison compare(const ReportData& data, std::string title, ReportSide before, ReportSide after) {
  Comparison comparison{std::move(title), std::move(before), std::move(after), {}};
  for (const auto& metric : data.metrics) {
    MetricComparison row;
    row.metric = metric;
    row.before = values_of(data, comparison.before.commit, metric, comparison.before.variant);
    row.after = values_of(data, comparison.after.commit, metric, comparison.after.variant);
    judge(row);
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
  const auto variants = compared_variants(data);
  std::vector<Comparison> comparisons;
  for (size_t i = 0; i < variants.size(); ++i) {
    ReportSide before{before_role, session.good_commits.front(), variants[i].a,
                      session.good_refs.empty() ? "" : session.good_refs.front()};
    ReportSide after{after_role, session.bad_commit, variants[i].b, session.bad_ref};
    std::string title = after_role + " vs " + before_role;
    if (variants.size() > 1) title += ", variant " + variants[i].a;
    Comparison comparison = compare(data, std::move(title), before, after);
    const nlohmann::json rows = stored_rows(data.result, i);
    for (auto& metric : comparison.metrics) {
      const nlohmann::json row = stored_row(rows, metric.metric);
      metric.finding = stored_finding(row);
      // Each side's own samples: by commit and variant, A against A took all of them twice.
      auto a = stored_side(row, "a");
      auto b = stored_side(row, "b");
      if (a && b) {
        metric.before = std::move(*a);
        metric.after = std::move(*b);
        judge(metric);
      }
    }
    comparisons.push_back(std::move(comparison));
  }
  return comparisons;
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
