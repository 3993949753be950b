#include "cli/ab_compare.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "bisect/statistics.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/json_text.h"
#include "config/config.h"
#include "config/scenario_hash.h"
#include "report/format.h"
#include "store/metrics.h"
#include "store/store_lock.h"
#include "tables/table.h"

namespace kbisect {
namespace {

struct AbMetricRow {
  std::string metric;
  std::vector<double> a, b;
  double change = 0;  // relative change of the median, B against A
  double p_value = 1;
  double smallest_p = 1;  // the smallest p these sample counts allow
  bool significant = false;
};

// What the row's test says. Not significant is not "the same": with too few samples no
// difference could have been significant, and a significant one may be below min_effect.
std::string finding(const AbMetricRow& row, const BisectSpec& spec) {
  if (row.significant) return "significant";
  if (std::isnan(row.change)) return "A's median is 0: no relative change";
  if (row.smallest_p > spec.alpha) return "too few samples";
  if (row.p_value <= spec.alpha) return "below min_effect";
  return "not significant";
}

// One pair's measurements: the comparison per metric and the runs of each side.
struct PairResult {
  std::vector<AbMetricRow> rows;
  std::vector<int64_t> a_runs, b_runs;
};

std::string variant_name(const Variant* variant) {
  return variant ? variant->name : "";
}

void print_table(const std::vector<AbMetricRow>& rows, const BisectSpec& spec, const AbSide& a,
                 const AbSide& b) {
  fmt::print("{:<40} {:>14} {:>8} {:>14} {:>8} {:>9} {:>9}  {}\n", "metric", "A median", "%stddev",
             "B median", "%stddev", "%change", "p", "");
  for (const auto& row : rows) {
    if (row.a.empty() || row.b.empty()) {
      fmt::print("{:<40} (not measured on both sides)\n", row.metric);
      continue;
    }
    fmt::print("{:<40} {:>14.2f} {:>8} {:>14.2f} {:>8} {:>9} {:>9.3g}  {}\n", row.metric,
               median(row.a), format_percent_stddev(row.a), median(row.b),
               format_percent_stddev(row.b), format_change(row.change), row.p_value,
               finding(row, spec));
  }
  fmt::print("A = {} ({}), B = {} ({})\n", a.label, a.commit.substr(0, 12), b.label,
             b.commit.substr(0, 12));
}

SessionRecord session_of(const Scenario& scenario, SessionKind kind,
                         const std::vector<AbPair>& pairs, int samples) {
  const AbPair& first = pairs.front();
  SessionRecord session;
  session.kind = kind;
  session.scenario = scenario.name;
  session.config_path = stored_config_path(scenario);
  session.config_hash = scenario_hash(scenario);
  session.good_refs = {first.a.label};
  session.good_commits = {first.a.commit};
  session.bad_ref = first.b.label;
  session.bad_commit = first.b.commit;
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& pair : pairs) {
    variants.push_back({variant_name(pair.a.variant), variant_name(pair.b.variant)});
  }
  session.options_json = nlohmann::json{
      {"a_variant", variant_name(first.a.variant)},
      {"b_variant", variant_name(first.b.variant)},
      {"variants", variants},
      {"samples", samples}}.dump();
  return session;
}

// Measures one side once; returns whether the sample was ok.
bool measure_side(CommandContext& context, CommitMeasurer& measurer, const AbSide& side,
                  int64_t session_id, std::vector<AbMetricRow>& rows, bool is_a,
                  std::vector<int64_t>& run_ids) {
  throw_if_interrupted();
  MeasuredRun run = measurer.measure(side.commit, side.variant, session_id);
  run_ids.push_back(run.run_id);
  context.events.emit("sample", {{"side", side.label},
                                 {"variant", variant_name(side.variant)},
                                 {"outcome", outcome_name(run.outcome)},
                                 {"metrics", run.metrics}});
  if (run.outcome == Outcome::kBuildFailed || run.outcome == Outcome::kBootFailed) {
    // A kernel that does not build or boot gives the same answer every time: the side would
    // never have a sample.
    fail("{}: {} ({}); a comparison needs kernels that build and boot", side.label,
         outcome_name(run.outcome), run.detail);
  }
  if (run.outcome != Outcome::kOk) {
    context.events.note(
        "warning", fmt::format("{}: {} ({})", side.label, outcome_name(run.outcome), run.detail));
    return false;
  }
  for (auto& row : rows) (is_a ? row.a : row.b).push_back(run.metrics.at(row.metric));
  return true;
}

nlohmann::json judge(const Scenario& scenario, std::vector<AbMetricRow>& rows) {
  nlohmann::json result = nlohmann::json::array();
  for (auto& row : rows) {
    if (row.a.empty() || row.b.empty()) continue;
    row.change = relative_change_or_nan(row.a, row.b);
    row.p_value = mann_whitney_u(row.a, row.b).p_value;
    row.smallest_p = mann_whitney_smallest_p(row.a.size(), row.b.size());
    row.significant =
        row.p_value <= scenario.bisect.alpha && std::abs(row.change) >= scenario.bisect.min_effect;
    result.push_back({{"metric", row.metric},
                      {"a_median", median(row.a)},
                      {"b_median", median(row.b)},
                      {"change", row.change},
                      {"p", row.p_value},
                      {"significant", row.significant},
                      {"finding", finding(row, scenario.bisect)},
                      {"a", row.a},
                      {"b", row.b}});
  }
  return result;
}

nlohmann::json judge_pairs(const Scenario& scenario, const std::vector<AbPair>& pairs,
                           std::vector<PairResult>& results) {
  nlohmann::json judged = nlohmann::json::array();
  for (size_t p = 0; p < pairs.size(); ++p) {
    judged.push_back({{"a_variant", variant_name(pairs[p].a.variant)},
                      {"b_variant", variant_name(pairs[p].b.variant)},
                      {"metrics", judge(scenario, results[p].rows)}});
  }
  // One pair keeps the result of a plain comparison: {"metrics": [...]}.
  return pairs.size() == 1 ? nlohmann::json{{"metrics", judged[0]["metrics"]}}
                           : nlohmann::json{{"pairs", judged}};
}

// The scenario's table over both sides of every pair, read back from the database.
std::string scenario_table(CommandContext& context, const std::vector<AbPair>& pairs,
                           const std::vector<PairResult>& results) {
  std::vector<SampleSet> sets;
  for (size_t i = 0; i < pairs.size(); ++i) {
    sets.push_back(load_sample_set(context.store, pairs[i].a.label,
                                   variant_name(pairs[i].a.variant), results[i].a_runs));
    sets.push_back(load_sample_set(context.store, pairs[i].b.label,
                                   variant_name(pairs[i].b.variant), results[i].b_runs));
  }
  return render_table(context.scenario.table, sets);
}

// Said before the first boot: a comparison that cannot find a difference is better rerun now.
void warn_if_too_few(CommandContext& context, int samples) {
  const double alpha = context.scenario.bisect.alpha;
  const size_t n = static_cast<size_t>(samples);
  if (mann_whitney_smallest_p(n, n) <= alpha) return;
  size_t enough = n + 1;
  while (mann_whitney_smallest_p(enough, enough) > alpha) ++enough;
  context.events.note(
      "warning",
      fmt::format("{} sample{} a side cannot show a difference at alpha {} (the smallest p is "
                  "{:.3g}); --samples {} can",
                  samples, samples == 1 ? "" : "s", alpha, mann_whitney_smallest_p(n, n), enough));
}

// Held while a comparison measures: its session is "running" only while the lock is held.
std::string comparison_lock(int64_t session_id) {
  return fmt::format("comparison:{}", session_id);
}

// A comparison does not resume, so one still "running" whose lock is free had its process
// killed outright (kill -9, a host that went down), which could not end the session itself.
void abort_killed_comparisons(Store& store) {
  for (const SessionRecord& session : store.sessions()) {
    if ((session.kind != SessionKind::kCompare && session.kind != SessionKind::kRevertCheck) ||
        session.status != SessionStatus::kRunning) {
      continue;
    }
    try {
      StoreLock gone(store, comparison_lock(session.id));
      store.finish_session(
          session.id, SessionStatus::kAborted,
          json_text({{"message",
                      "its process was gone before it finished (killed, or its host went down)"}}));
    } catch (const LockHeld&) {
      // Its process is still measuring.
    }
  }
}

}  // namespace

int compare_sides(CommandContext& context, CommitMeasurer& measurer, SessionKind kind,
                  const std::vector<AbPair>& pairs, int samples) {
  const Scenario& scenario = context.scenario;
  warn_if_too_few(context, samples);
  SessionRecord session = session_of(scenario, kind, pairs, samples);
  abort_killed_comparisons(context.store);
  std::optional<StoreLock> lock;
  {
    // One transaction: no other process may see the session running before it is locked.
    Transaction making = context.store.transaction();
    session.id = context.store.create_session(session);
    lock.emplace(context.store, comparison_lock(session.id));
    making.commit();
  }

  std::vector<PairResult> results(pairs.size());
  for (auto& result : results) {
    for (const auto& metric : scenario.metrics) result.rows.push_back({metric_key(metric), {}, {}});
  }
  bool all_ok = true;
  nlohmann::json result;
  try {
    for (int i = 0; i < samples; ++i) {
      for (size_t p = 0; p < pairs.size(); ++p) {
        PairResult& pair = results[p];
        all_ok &=
            measure_side(context, measurer, pairs[p].a, session.id, pair.rows, true, pair.a_runs);
        all_ok &=
            measure_side(context, measurer, pairs[p].b, session.id, pair.rows, false, pair.b_runs);
      }
    }
    result = judge_pairs(scenario, pairs, results);
  } catch (const Error& error) {
    // A comparison does not resume (its samples stay stored): it ends here, saying why.
    context.store.finish_session(session.id, SessionStatus::kAborted,
                                 json_text({{"message", error.what()}}));
    throw;
  }
  context.store.finish_session(session.id, SessionStatus::kDone, json_text(result));
  std::string table = scenario_table(context, pairs, results);
  if (context.events.mode() == Events::Mode::kJsonLines) {
    result["session"] = session.id;
    if (!table.empty()) result["table"] = table;
    fmt::print("{}\n", json_text(result));
  } else {
    fmt::print("session {}\n", session.id);
    for (size_t p = 0; p < pairs.size(); ++p) {
      if (pairs.size() > 1) fmt::print("variant {}:\n", variant_name(pairs[p].a.variant));
      print_table(results[p].rows, scenario.bisect, pairs[p].a, pairs[p].b);
    }
    if (!table.empty()) fmt::print("\n{}", table);
  }
  return all_ok ? 0 : 1;
}

}  // namespace kbisect
