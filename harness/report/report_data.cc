#include "report/report_data.h"

#include <algorithm>
#include <set>

#include "bisect/aliases.h"
#include "bisect/session.h"
#include "common/error.h"
#include "store/store.h"
#include "store/store_lock.h"

namespace kbisect {
namespace {

// Merge bases the search tested first (older than the endpoints and the candidates), the good
// commits, then the candidates oldest first.
std::vector<std::string> oldest_first(const SessionRecord& session,
                                      std::vector<std::string> candidates,
                                      const std::vector<VerdictRecord>& verdicts) {
  std::vector<std::string> order = tested_merge_bases(session, candidates, verdicts);
  auto add = [&order](const std::string& commit) {
    if (std::find(order.begin(), order.end(), commit) == order.end()) order.push_back(commit);
  };
  for (const auto& good : session.good_commits) add(good);
  std::reverse(candidates.begin(), candidates.end());
  for (const auto& commit : candidates) add(commit);
  return order;
}

// Metric keys of the samples in first-seen order.
std::vector<std::string> metrics_of(const std::vector<SampleMetrics>& samples) {
  std::vector<std::string> metrics;
  for (const auto& sample : samples) {
    for (const auto& [key, value] : sample.metrics) {
      if (std::find(metrics.begin(), metrics.end(), key) == metrics.end()) metrics.push_back(key);
    }
  }
  return metrics;
}

std::string measured_as(const ReportData& data, const std::string& commit) {
  return follow_aliases(data.same_image_as, commit);
}

}  // namespace

ReportData load_report_data(Store& store, int64_t session_id) {
  auto session = store.session(session_id);
  if (!session) {
    fail("there is no session {} in {}; list them with `kbisect query sessions`", session_id,
         store.path().string());
  }
  ReportData data;
  data.database = std::filesystem::absolute(store.path());
  data.session = *session;
  if (!session->result_json.empty()) data.result = nlohmann::json::parse(session->result_json);
  data.samples = store.sample_metrics_of_session(session_id);
  data.steps = store.steps_of(session_id);
  data.verdicts = store.verdicts_of(session_id);
  data.topological_order = oldest_first(*session, store.candidates_of(session_id), data.verdicts);
  if (session->kind == SessionKind::kBisect && session->status == SessionStatus::kRunning) {
    data.running_in = store.live_holder(bisect_lock_name(session_id));
  }

  std::set<std::string> compilers;
  for (auto& run : store.runs_of_session(session_id)) {
    if (run.build_id) {
      if (auto build = store.build(*run.build_id)) compilers.insert(build->compiler);
    }
    if (run.outcome != Outcome::kOk) data.failed_runs.push_back(std::move(run));
  }
  data.compilers.assign(compilers.begin(), compilers.end());

  for (const auto& record : store.journal_of(session_id)) {
    if (record.kind == journal_kind_name(JournalEntry::Kind::kAlias)) {
      data.same_image_as[record.commit] = record.detail;
    }
    // A refuted culprit's confirmation went to the search; the next one confirms another.
    if (record.kind == journal_kind_name(JournalEntry::Kind::kReopen)) data.confirm_commits.clear();
    const bool measured = record.kind == journal_kind_name(JournalEntry::Kind::kSample) ||
                          record.kind == journal_kind_name(JournalEntry::Kind::kFailure);
    if (measured && record.phase == phase_name(Phase::kConfirm) &&
        std::find(data.confirm_commits.begin(), data.confirm_commits.end(), record.commit) ==
            data.confirm_commits.end()) {
      data.confirm_commits.push_back(record.commit);
    }
  }
  data.metrics = judged_first(data, metrics_of(data.samples));
  return data;
}

std::vector<double> values_of(const ReportData& data, const std::string& commit,
                              const std::string& metric,
                              const std::optional<std::string>& variant) {
  const std::string measured = measured_as(data, commit);
  std::vector<double> values;
  for (const auto& sample : data.samples) {
    if (sample.commit != measured || (variant && sample.variant != *variant)) continue;
    auto value = sample.metrics.find(metric);
    if (value != sample.metrics.end()) values.push_back(value->second);
  }
  return values;
}

std::optional<std::string> culprit_of(const ReportData& data) {
  if (!data.result.is_object()) return std::nullopt;
  auto culprit = data.result.find("culprit");
  if (culprit == data.result.end() || !culprit->is_string()) return std::nullopt;
  return culprit->get<std::string>();
}

ConfirmationCommits confirmation_commits(const ReportData& data) {
  ConfirmationCommits confirmation;
  auto culprit = culprit_of(data);
  if (!culprit) return confirmation;
  if (data.result.contains("parents")) {
    confirmation.parents = data.result["parents"].get<std::vector<std::string>>();
    confirmation.revert = data.result.value("revert_commit", "");
    return confirmation;
  }
  const auto& order = data.topological_order;
  for (const auto& commit : data.confirm_commits) {
    if (commit == measured_as(data, *culprit) || commit == data.session.bad_commit) continue;
    if (std::find(order.begin(), order.end(), commit) != order.end()) {
      confirmation.parents.push_back(commit);
    } else {
      confirmation.revert = commit;
    }
  }
  return confirmation;
}

std::optional<VerdictRecord> last_search_verdict(const ReportData& data,
                                                 const std::string& commit) {
  std::optional<VerdictRecord> last, last_decided;
  for (const auto& verdict : data.verdicts) {
    if (verdict.commit != commit || verdict.phase != phase_name(Phase::kSearch)) continue;
    last = verdict;
    if (verdict.verdict != Verdict::kUndecided) last_decided = verdict;
  }
  return last_decided ? last_decided : last;
}

std::string verdict_of(const ReportData& data, const std::string& commit) {
  auto verdict = last_search_verdict(data, commit);
  // An endpoint is good or bad by what it was asked as, unless it could not be measured.
  if (verdict && verdict->verdict == Verdict::kSkip) return "skip";
  const auto& goods = data.session.good_commits;
  if (std::find(goods.begin(), goods.end(), commit) != goods.end()) return "good";
  if (commit == data.session.bad_commit) {
    return string_at(data.result, "verdict") == "no-regression" ? "good" : "bad";
  }
  return verdict ? std::string(verdict_text(verdict->verdict)) : "";
}

nlohmann::json session_options(const ReportData& data) {
  auto options = nlohmann::json::parse(data.session.options_json, nullptr, false);
  return options.is_object() ? options : nlohmann::json::object();
}

std::string string_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto value = object.find(key);
  return value != object.end() && value->is_string() ? value->get<std::string>() : "";
}

nlohmann::json judged_by(const ReportData& data) {
  const nlohmann::json options = session_options(data);
  auto judged = options.find("judged_by");
  return judged != options.end() && judged->is_object() ? *judged : nlohmann::json::object();
}

std::vector<std::string> judged_first(const ReportData& data, std::vector<std::string> metrics) {
  const std::string judged = string_at(judged_by(data), "metric");
  auto at = std::find(metrics.begin(), metrics.end(), judged);
  if (at != metrics.end()) std::rotate(metrics.begin(), at, at + 1);
  return metrics;
}

std::vector<VariantPair> compared_variants(const ReportData& data) {
  const nlohmann::json options = session_options(data);
  auto text = [](const nlohmann::json& value) {
    return value.is_string() ? value.get<std::string>() : std::string();
  };
  std::vector<VariantPair> pairs;
  if (auto variants = options.find("variants"); variants != options.end() && variants->is_array()) {
    for (const auto& pair : *variants) {
      if (pair.is_array() && pair.size() == 2) pairs.push_back({text(pair[0]), text(pair[1])});
    }
  }
  if (pairs.empty()) {
    pairs.push_back({text(options.value("a_variant", nlohmann::json())),
                     text(options.value("b_variant", nlohmann::json()))});
  }
  return pairs;
}

std::string subject_of(const ReportData& data, const std::string& commit) {
  auto subject = data.subjects.find(commit);
  if (subject != data.subjects.end()) return subject->second;
  return "subject unavailable";
}

}  // namespace kbisect
