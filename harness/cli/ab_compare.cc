#include "cli/ab_compare.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bisect/statistics.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "config/scenario_hash.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

struct MetricComparison {
  std::string metric;
  std::vector<double> a, b;
  double change = 0;  // relative change of the median, B against A
  double p_value = 1;
  bool significant = false;
};

std::string percent_stddev(const std::vector<double>& values) {
  if (values.size() < 2 || mean(values) == 0) return "-";
  return fmt::format("{:.1f}%", 100 * stddev(values) / mean(values));
}

void print_table(const std::vector<MetricComparison>& rows, const AbSide& a, const AbSide& b) {
  fmt::print("{:<40} {:>14} {:>8} {:>14} {:>8} {:>9} {:>9}  {}\n", "metric", "A median", "%stddev",
             "B median", "%stddev", "%change", "p", "");
  for (const auto& row : rows) {
    if (row.a.empty() || row.b.empty()) {
      fmt::print("{:<40} (not measured on both sides)\n", row.metric);
      continue;
    }
    fmt::print("{:<40} {:>14.2f} {:>8} {:>14.2f} {:>8} {:>+8.1f}% {:>9.3g}  {}\n", row.metric,
               median(row.a), percent_stddev(row.a), median(row.b), percent_stddev(row.b),
               100 * row.change, row.p_value, row.significant ? "significant" : "same");
  }
  fmt::print("A = {} ({}), B = {} ({})\n", a.label, a.commit.substr(0, 12), b.label,
             b.commit.substr(0, 12));
}

}  // namespace

int compare_sides(CommandContext& context, CommitMeasurer& measurer, SessionKind kind,
                  const AbSide& a, const AbSide& b, int samples) {
  const Scenario& scenario = context.scenario;
  SessionRecord session;
  session.kind = kind;
  session.scenario = scenario.name;
  session.config_path = std::filesystem::absolute(scenario.source_file).string();
  session.config_hash = scenario_hash(scenario);
  session.good_refs = {a.label};
  session.good_commits = {a.commit};
  session.bad_ref = b.label;
  session.bad_commit = b.commit;
  session.options_json = nlohmann::json{
      {"a_variant", a.variant ? a.variant->name : ""},
      {"b_variant", b.variant ? b.variant->name : ""},
      {"samples", samples}}.dump();
  session.id = context.store.create_session(session);

  std::vector<MetricComparison> rows;
  for (const auto& metric : scenario.metrics) rows.push_back({metric_key(metric), {}, {}});
  bool all_ok = true;
  for (int i = 0; i < samples; ++i) {
    for (const AbSide* side : {&a, &b}) {
      throw_if_interrupted();
      MeasuredRun run = measurer.measure(side->commit, side->variant, session.id);
      context.events.emit("sample", {{"side", side->label},
                                     {"outcome", outcome_name(run.outcome)},
                                     {"metrics", run.metrics}});
      if (run.outcome != Outcome::kOk) {
        all_ok = false;
        context.events.note("warning", fmt::format("{}: {} ({})", side->label,
                                                   outcome_name(run.outcome), run.detail));
        continue;
      }
      for (auto& row : rows) {
        (side == &a ? row.a : row.b).push_back(run.metrics.at(row.metric));
      }
    }
  }

  nlohmann::json result = nlohmann::json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& row = rows[i];
    if (row.a.empty() || row.b.empty()) continue;
    row.change = relative_change(row.a, row.b);
    row.p_value = mann_whitney_u(row.a, row.b).p_value;
    row.significant =
        row.p_value <= scenario.bisect.alpha && std::abs(row.change) >= scenario.bisect.min_effect;
    result.push_back({{"metric", row.metric},
                      {"a_median", median(row.a)},
                      {"b_median", median(row.b)},
                      {"change", row.change},
                      {"p", row.p_value},
                      {"significant", row.significant},
                      {"a", row.a},
                      {"b", row.b}});
  }
  context.store.finish_session(session.id, SessionStatus::kDone,
                               nlohmann::json{{"metrics", result}}.dump());
  if (context.events.mode() == Events::Mode::kJsonLines) {
    fmt::print("{}\n", nlohmann::json{{"session", session.id}, {"metrics", result}}.dump());
  } else {
    fmt::print("session {}\n", session.id);
    print_table(rows, a, b);
  }
  return all_ok ? 0 : 1;
}

}  // namespace kbisect
