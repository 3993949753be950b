#include "report/outline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bisect/statistics.h"
#include "common/printable.h"
#include "report/comparison.h"
#include "report/format.h"

namespace kbisect {
namespace {

std::string named(const ReportData& data, const std::string& commit) {
  return fmt::format("{} ({})", commit, subject_of(data, commit));
}

// The session's metric direction, as its options keep it (judged_by.better); nullopt for a
// session from before they did.
std::optional<bool> higher_is_better(const ReportData& data) {
  const std::string better = string_at(judged_by(data), "better");
  if (better != "higher" && better != "lower") return std::nullopt;
  return better == "higher";
}

std::string session_text(const ReportData& data) {
  const auto& session = data.session;
  std::string text = fmt::format("{}: {}", session.id, session_kind_text(session.kind));
  if (!session.strategy.empty()) text += fmt::format(" (strategy {})", session.strategy);
  text += fmt::format(", {}, started {}", session_status_text(session.status), session.started_at);
  if (!session.finished_at.empty()) text += fmt::format(", finished {}", session.finished_at);
  return text;
}

void add_bisect_facts(const ReportData& data, std::vector<Fact>& facts) {
  const auto& session = data.session;
  for (const auto& good : session.good_commits) facts.push_back({"good", named(data, good)});
  facts.push_back({"bad", named(data, session.bad_commit)});
  const std::string verdict = string_at(data.result, "verdict");
  if (!verdict.empty()) {
    // Only a culprit found is confirmed or not; no regression has nothing to confirm.
    const std::string confirmation = verdict != "found"                      ? ""
                                     : data.result.value("confirmed", false) ? ", confirmed"
                                                                             : ", not confirmed";
    facts.push_back(
        {"verdict", fmt::format("{}{}; {} steps, {} samples", verdict, confirmation,
                                data.result.value("steps", 0), data.result.value("samples", 0))});
  }
  if (auto message = string_at(data.result, "message"); !message.empty()) {
    facts.push_back({"message", message});
  }
  if (auto drift = string_at(data.result, "drift"); !drift.empty()) {
    facts.push_back({"host drift", "the endpoints moved by " + drift});
  }
  if (data.result.is_object() && data.result.contains("skipped") &&
      !data.result["skipped"].empty()) {
    facts.push_back({"skipped", short_ids(data.result["skipped"])});
  }
  if (verdict == "only-skipped" && data.result.contains("candidates")) {
    facts.push_back({"culprit is one of", short_ids(data.result["candidates"])});
  }
}

// `with_variant`: false when the variants are named apart (one comparison each).
std::string side_text(const ReportData& data, const ReportSide& side, bool with_variant) {
  std::string text = named(data, side.commit);
  if (with_variant && side.variant && !side.variant->empty()) text += " variant " + *side.variant;
  if (!side.label.empty()) text += fmt::format(", given as '{}'", side.label);
  return text;
}

}  // namespace

std::vector<Fact> header_of(const ReportData& data) {
  const auto& session = data.session;
  std::vector<Fact> facts;
  const auto comparisons = comparisons_of(data);
  if (session.kind == SessionKind::kBisect) {
    auto culprit = culprit_of(data);
    facts.push_back({"commit", culprit ? named(data, *culprit) : "no culprit named"});
  } else if (!comparisons.empty()) {
    const auto& sides = comparisons.front();
    const bool revert_check = session.kind == SessionKind::kRevertCheck;
    const bool one_variant = comparisons.size() == 1;
    facts.push_back(
        {"commit", side_text(data, revert_check ? sides.before : sides.after, one_variant)});
    facts.push_back({revert_check ? "reverted" : "compared with",
                     side_text(data, revert_check ? sides.after : sides.before, one_variant)});
    if (!one_variant) {
      std::vector<std::string> variants;
      for (const auto& pair : compared_variants(data)) variants.push_back(pair.a);
      facts.push_back({"variants", fmt::format("{}", fmt::join(variants, ", "))});
    }
  }
  facts.push_back({"in testcase", session.scenario});
  facts.push_back({"session", session_text(data)});
  if (session.kind == SessionKind::kBisect) {
    add_bisect_facts(data, facts);
  } else {
    // A nightly reported as itself did not bisect: nothing new, or it stopped.
    if (auto verdict = string_at(data.result, "verdict");
        session.kind == SessionKind::kNightly && !verdict.empty()) {
      facts.push_back({"verdict", verdict});
    }
    if (auto message = string_at(data.result, "message"); !message.empty()) {
      facts.push_back({"message", message});  // why a comparison or a nightly was aborted
    }
  }
  if (!data.subjects_unavailable.empty()) {
    facts.push_back({"note", "commit subjects are unavailable: " + data.subjects_unavailable});
  }
  return facts;
}

std::vector<Fact> confirmation_of(const ReportData& data) {
  std::vector<Fact> facts;
  if (data.session.kind != SessionKind::kBisect || !culprit_of(data)) return facts;
  if (auto parent = string_at(data.result, "parent_check"); !parent.empty()) {
    facts.push_back({"culprit vs parent", parent});
  }
  if (auto revert = string_at(data.result, "revert_check"); !revert.empty()) {
    facts.push_back({"revert on bad", revert});
  }
  for (const auto& refuted : data.result.value("refuted", nlohmann::json::array())) {
    facts.push_back({"refuted before", refuted_text(refuted)});
  }
  return facts;
}

std::string refuted_text(const nlohmann::json& refuted) {
  return fmt::format("{}: {}; the search went on", refuted.value("commit", "").substr(0, 12),
                     refuted.value("parent_check", ""));
}

std::vector<PathRow> path_of(const ReportData& data) {
  std::vector<PathRow> rows;
  if (data.session.kind != SessionKind::kBisect) return rows;
  const std::string metric = data.metrics.empty() ? "" : data.metrics.front();
  const auto culprit = culprit_of(data);
  const auto confirmation = confirmation_commits(data);
  const std::optional<bool> higher = higher_is_better(data);
  const std::vector<double> good_values =
      data.session.good_commits.empty()
          ? std::vector<double>()
          : values_of(data, data.session.good_commits.front(), metric);
  for (const auto& step : data.steps) {
    PathRow row;
    row.step = step.step;
    row.commit = step.commit;
    row.phase = step.phase;
    row.verdict = verdict_of(data, step.commit);
    row.subject = subject_of(data, step.commit);
    auto values = values_of(data, step.commit, metric);
    row.samples = static_cast<int>(values.size());
    if (!values.empty()) row.median = median(values);
    if (auto verdict = last_search_verdict(data, step.commit)) {
      row.worse_than_good = verdict->effect;
      row.p = verdict->p_mwu;
    }
    // "worse" from the same samples as the median beside it (the verdict's effect is from the
    // samples the search had then, without the confirmation's).
    if (row.median && !good_values.empty() && higher) {
      const double change = relative_change_or_nan(good_values, values);
      if (!std::isnan(change)) row.worse_than_good = *higher ? -change : change;
    }
    if (culprit && step.commit == *culprit) row.note = "culprit";
    if (step.commit == confirmation.revert) {
      row.note = "bad - culprit";
      // A sim runner's revert is no commit of the repository and has no subject.
      if (!data.subjects.count(step.commit)) row.subject = "bad with the culprit reverted";
    }
    if (auto alias = data.same_image_as.find(step.commit); alias != data.same_image_as.end()) {
      row.note += (row.note.empty() ? "" : "; ") + ("same image as " + short_id(alias->second));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Fact> failures_of(const ReportData& data) {
  // A boot regression's culprit fails the same way in the search and in its confirmation: one
  // line with a count, not the same line twice.
  struct Counted {
    Fact fact;
    int runs = 0;
  };
  std::vector<Counted> failures;
  for (const auto& run : data.failed_runs) {
    std::string what = outcome_name(run.outcome);
    // Databases written before the guest's text was cleaned where it enters may hold any byte.
    if (!run.detail.empty()) what += ": " + printable_line(run.detail);
    const Fact fact{short_id(run.commit), what};
    auto same = std::find_if(failures.begin(), failures.end(), [&](const Counted& seen) {
      return seen.fact.label == fact.label && seen.fact.value == fact.value;
    });
    if (same == failures.end()) same = failures.insert(failures.end(), {fact, 0});
    ++same->runs;
  }
  std::vector<Fact> facts;
  for (auto& [fact, runs] : failures) {
    if (runs > 1) fact.value += fmt::format(" ({} runs)", runs);
    facts.push_back(std::move(fact));
  }
  return facts;
}

}  // namespace kbisect
