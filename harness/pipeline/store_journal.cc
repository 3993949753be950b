#include "pipeline/store_journal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "bisect/aliases.h"
#include "common/error.h"
#include "common/interrupt.h"

namespace kbisect {
namespace {

JournalEntry::Kind parse_kind(const std::string& text) {
  for (auto kind : {JournalEntry::Kind::kSample, JournalEntry::Kind::kFailure,
                    JournalEntry::Kind::kAlias, JournalEntry::Kind::kVerdict,
                    JournalEntry::Kind::kEndpointsOk, JournalEntry::Kind::kReopen}) {
    if (text == journal_kind_name(kind)) return kind;
  }
  fail("the database holds an unknown journal entry kind '{}'; was it written by a newer kbisect?",
       text);
}

MeasureStatus parse_status(const std::string& text) {
  for (auto status : {MeasureStatus::kOk, MeasureStatus::kBuildFailed, MeasureStatus::kBootFailed,
                      MeasureStatus::kOtherFailure, MeasureStatus::kIdenticalImage}) {
    if (text == measure_status_name(status)) return status;
  }
  fail("the database holds an unknown measure status '{}'", text);
}

VerdictKind parse_verdict_kind(const std::string& text) {
  for (auto kind :
       {VerdictKind::kGood, VerdictKind::kBad, VerdictKind::kUndecided, VerdictKind::kSkip}) {
    if (text == verdict_name(kind)) return kind;
  }
  fail("the database holds an unknown verdict '{}'", text);
}

nlohmann::json verdict_json(const CommitVerdict& v) {
  return {{"kind", verdict_name(v.kind)}, {"llr", v.llr},
          {"p_vs_good", v.p_vs_good},     {"p_vs_bad", v.p_vs_bad},
          {"ks_vs_good", v.ks_vs_good},   {"ks_vs_bad", v.ks_vs_bad},
          {"effect", v.effect},           {"shift", {v.shift.estimate, v.shift.low, v.shift.high}},
          {"samples", v.samples},         {"good_samples", v.good_samples},
          {"bad_samples", v.bad_samples}, {"by_boot", v.by_boot}};
}

CommitVerdict parse_verdict(const std::string& text) {
  auto json = nlohmann::json::parse(text);
  CommitVerdict v;
  v.kind = parse_verdict_kind(json.at("kind"));
  v.llr = json.at("llr");
  v.p_vs_good = json.at("p_vs_good");
  v.p_vs_bad = json.at("p_vs_bad");
  // Journals written before the verdicts carried Kolmogorov-Smirnov p-values lack them.
  v.ks_vs_good = json.value("ks_vs_good", 1.0);
  v.ks_vs_bad = json.value("ks_vs_bad", 1.0);
  v.effect = json.at("effect");
  v.shift = {json.at("shift").at(0), json.at("shift").at(1), json.at("shift").at(2)};
  v.samples = json.at("samples");
  v.good_samples = json.at("good_samples");
  v.bad_samples = json.at("bad_samples");
  v.by_boot = json.value("by_boot", false);
  return v;
}

Verdict store_verdict(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kGood:
      return Verdict::kGood;
    case VerdictKind::kBad:
      return Verdict::kBad;
    case VerdictKind::kSkip:
      return Verdict::kSkip;
    case VerdictKind::kUndecided:
      break;
  }
  return Verdict::kUndecided;
}

// A verdict as the verdicts table holds it: the smaller of its p-values against either side;
// none for a verdict by boot, whose detail says whether the commit boots.
VerdictRecord verdict_record(const CommitVerdict& v, const std::string& reason) {
  VerdictRecord verdict;
  verdict.verdict = store_verdict(v.kind);
  verdict.samples = v.samples;
  if (v.by_boot) {
    verdict.detail = reason;
    return verdict;
  }
  verdict.p_mwu = std::min(v.p_vs_good, v.p_vs_bad);
  verdict.p_ks = std::min(v.ks_vs_good, v.ks_vs_bad);
  verdict.effect = v.effect;
  verdict.good_samples = v.good_samples;
  verdict.bad_samples = v.bad_samples;
  return verdict;
}

std::string short_id(const JournalEntry& entry) {
  return entry.commit.substr(0, 12);
}

std::string evidence_text(const CommitVerdict& v) {
  return fmt::format("median {:.1f}% {} than good's, {} samples", 100 * std::abs(v.effect),
                     v.effect > 0 ? "worse" : "better", v.samples);
}

}  // namespace

StoreJournal::StoreJournal(Store& store, Events& events, const StoringMeasurer& measurer,
                           int64_t session_id)
    : store_(store), events_(events), measurer_(measurer), session_id_(session_id) {
  for (const auto& step : store_.steps_of(session_id_)) {
    step_of_commit_.emplace(step.commit, step.step);
    steps_ = std::max(steps_, step.step);
  }
}

void StoreJournal::add_step_once(const JournalEntry& entry, const std::string& phase) {
  if (step_of_commit_.contains(entry.commit)) return;
  StepRecord step;
  step.session_id = session_id_;
  step.step = ++steps_;
  step.commit = entry.commit;
  step.phase = phase;
  step.candidates_left = entry.candidates_left;
  store_.add_step(step);
  step_of_commit_.emplace(entry.commit, step.step);
}

std::optional<int> StoreJournal::step_of(const std::string& commit) const {
  auto found = step_of_commit_.find(commit);
  if (found == step_of_commit_.end()) return std::nullopt;
  return found->second;
}

void StoreJournal::add_verdict(VerdictRecord verdict, const std::string& commit,
                               const std::string& phase) {
  verdict.session_id = session_id_;
  verdict.step = step_of(commit);
  verdict.commit = commit;
  verdict.phase = phase;
  store_.add_verdict(verdict);
}

void StoreJournal::append(const JournalEntry& entry) {
  JournalRecord record;
  record.session_id = session_id_;
  record.kind = journal_kind_name(entry.kind);
  record.phase = phase_name(entry.phase);
  record.commit = entry.commit;
  record.detail = entry.detail;
  // The entry with its step and verdict, or none of them: a verdict stored without its entry
  // (killed in between) was stored again when the session resumed.
  Transaction transaction = store_.transaction();
  switch (entry.kind) {
    case JournalEntry::Kind::kSample:
      record.value = entry.value;
      record.run_id = measurer_.last_run_id();
      add_step_once(entry, record.phase);
      events_.emit("sample", {{"commit", entry.commit}, {"value", entry.value}});
      break;
    case JournalEntry::Kind::kFailure:
      record.status = measure_status_name(entry.status);
      record.run_id = measurer_.last_run_id();
      add_step_once(entry, record.phase);
      store_failure(entry, record.status);
      break;
    case JournalEntry::Kind::kAlias:
      // A step of its own, for its verdict to join: the culprit may be such a commit, when a
      // documentation commit on top of it (the same image) was measured first.
      add_step_once(entry, record.phase);
      events_.note("alias",
                   fmt::format("{} has the same kernel image as {}", short_id(entry),
                               entry.detail.substr(0, 12)),
                   {{"commit", entry.commit}, {"same_as", entry.detail}});
      break;
    case JournalEntry::Kind::kVerdict:
      record.verdict_json = verdict_json(entry.verdict).dump();
      store_verdict_of(entry);
      break;
    case JournalEntry::Kind::kEndpointsOk:
      events_.note("endpoints", entry.detail.empty()
                                    ? "good and bad differ as configured: searching"
                                    : entry.detail);
      break;
    case JournalEntry::Kind::kReopen:
      events_.note(
          "reopen",
          fmt::format("the confirmation refutes {}: {}; the search goes on with its samples",
                      short_id(entry), entry.detail),
          {{"commit", entry.commit}, {"parent_check", entry.detail}});
      break;
  }
  store_.append_journal(record);
  transaction.commit();
  // Right after an entry is committed the session can stop and resume losing nothing; the sim
  // runner never waits on a process that would notice Ctrl-C, so this is where it does.
  throw_if_interrupted();
}

void StoreJournal::store_failure(const JournalEntry& entry, const std::string& status) {
  const nlohmann::json fields = {{"commit", entry.commit}, {"status", status}};
  if (entry.retried) {
    events_.note("retry",
                 fmt::format("{} {}: {}; it measured fine before, so it is measured again",
                             short_id(entry), status, entry.detail),
                 fields);
    return;
  }
  if (entry.counts_as_bad) {
    events_.note("bad",
                 fmt::format("{} {}: {}; boot_failure_is_bad counts it as bad", short_id(entry),
                             status, entry.detail),
                 fields);
    return;
  }
  if (entry.phase == Phase::kSearch) {
    VerdictRecord skip;
    skip.verdict = Verdict::kSkip;
    skip.detail = fmt::format("{}: {}", status, entry.detail);
    add_verdict(skip, entry.commit, phase_name(entry.phase));
  }
  events_.note("skip", fmt::format("{} {}: {}", short_id(entry), status, entry.detail), fields);
}

void StoreJournal::store_verdict_of(const JournalEntry& entry) {
  const CommitVerdict& verdict = entry.verdict;
  if (verdict.kind == VerdictKind::kSkip) {
    // A skip with no reason of its own is a merge base's: its failure stored the skip and said
    // so. One with a reason is a commit's whose image failed to measure as another commit.
    if (entry.detail.empty()) return;
    VerdictRecord skip;
    skip.verdict = Verdict::kSkip;
    skip.detail = entry.detail;
    add_verdict(skip, entry.commit, phase_name(entry.phase));
    events_.note("skip", fmt::format("{} {}", short_id(entry), entry.detail),
                 {{"commit", entry.commit}});
    return;
  }
  add_verdict(verdict_record(verdict, entry.detail), entry.commit, phase_name(entry.phase));
  events_.note("verdict",
               fmt::format("{} is {} ({})", short_id(entry), verdict_name(verdict.kind),
                           verdict.by_boot ? entry.detail : evidence_text(verdict)),
               {{"commit", entry.commit}, {"verdict", verdict_name(verdict.kind)}});
}

std::vector<JournalEntry> StoreJournal::replay() const {
  std::vector<JournalEntry> entries;
  for (const auto& record : store_.journal_of(session_id_)) {
    JournalEntry entry;
    entry.kind = parse_kind(record.kind);
    entry.phase = record.phase == phase_name(Phase::kConfirm) ? Phase::kConfirm : Phase::kSearch;
    entry.commit = record.commit;
    entry.detail = record.detail;
    if (record.value) entry.value = *record.value;
    if (!record.status.empty()) entry.status = parse_status(record.status);
    if (!record.verdict_json.empty()) entry.verdict = parse_verdict(record.verdict_json);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Builds would not tell: another scenario may have built the commit since.
std::string measured_as(Store& store, int64_t session_id, const std::string& commit) {
  std::map<std::string, std::string> aliases;
  for (const JournalRecord& entry : store.journal_of(session_id)) {
    if (entry.kind == journal_kind_name(JournalEntry::Kind::kAlias))
      aliases[entry.commit] = entry.detail;
  }
  return follow_aliases(aliases, commit);
}

}  // namespace kbisect
