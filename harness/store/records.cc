#include "store/records.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/error.h"

namespace kbisect {
namespace {

template <typename E, size_t N>
std::string_view text_of(const std::array<std::pair<E, std::string_view>, N>& names, E value) {
  for (const auto& [candidate, text] : names) {
    if (candidate == value) return text;
  }
  fail("internal error: enum value {} has no name", static_cast<int>(value));
}

template <typename E, size_t N>
E value_of(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view text,
           std::string_view what) {
  for (const auto& [value, candidate] : names) {
    if (candidate == text) return value;
  }
  fail("unknown {} '{}' in the database; is it from a newer kbisect?", what, text);
}

constexpr std::array<std::pair<SessionKind, std::string_view>, 5> kKinds = {{
    {SessionKind::kBisect, "bisect"},
    {SessionKind::kCompare, "compare"},
    {SessionKind::kRevertCheck, "revert-check"},
    {SessionKind::kNightly, "nightly"},
    {SessionKind::kRun, "run"},
}};

constexpr std::array<std::pair<SessionStatus, std::string_view>, 3> kStatuses = {{
    {SessionStatus::kRunning, "running"},
    {SessionStatus::kDone, "done"},
    {SessionStatus::kAborted, "aborted"},
}};

constexpr std::array<std::pair<Verdict, std::string_view>, 4> kVerdicts = {{
    {Verdict::kGood, "good"},
    {Verdict::kBad, "bad"},
    {Verdict::kSkip, "skip"},
    {Verdict::kUndecided, "undecided"},
}};

}  // namespace

Outcome parse_outcome(std::string_view text) {
  return value_of(kOutcomeNames, text, "outcome");
}
std::string_view session_kind_text(SessionKind kind) {
  return text_of(kKinds, kind);
}
SessionKind parse_session_kind(std::string_view text) {
  return value_of(kKinds, text, "session kind");
}
std::string_view session_status_text(SessionStatus status) {
  return text_of(kStatuses, status);
}
SessionStatus parse_session_status(std::string_view text) {
  return value_of(kStatuses, text, "session status");
}
std::string_view verdict_text(Verdict verdict) {
  return text_of(kVerdicts, verdict);
}
Verdict parse_verdict(std::string_view text) {
  return value_of(kVerdicts, text, "verdict");
}

std::optional<SessionName> parse_session_name(std::string_view text) {
  if (text == "last" || text == "latest") return SessionName{.newest = true};
  int64_t id = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, id);
  if (error != std::errc() || stop != end || id <= 0) return std::nullopt;
  return SessionName{.id = id};
}

std::string skip_reason(const std::vector<VerdictRecord>& verdicts, std::string_view commit) {
  auto skip = std::find_if(verdicts.rbegin(), verdicts.rend(), [&](const VerdictRecord& v) {
    return v.commit == commit && v.verdict == Verdict::kSkip;
  });
  return skip != verdicts.rend() && !skip->detail.empty() ? skip->detail : "no reason stored";
}

std::optional<int64_t> nightly_bisection(const SessionRecord& session) {
  if (session.kind != SessionKind::kNightly) return std::nullopt;
  const auto result = nlohmann::json::parse(session.result_json, nullptr, false);
  if (!result.is_object()) return std::nullopt;
  const auto bisection = result.find("bisect_session");
  if (bisection == result.end() || !bisection->is_number_integer()) return std::nullopt;
  return bisection->get<int64_t>();
}

std::vector<std::string> tested_merge_bases(const SessionRecord& session,
                                            const std::vector<std::string>& candidates,
                                            const std::vector<VerdictRecord>& verdicts) {
  std::vector<std::string> merge_bases;
  for (const auto& verdict : verdicts) {
    const bool known =
        std::ranges::find(candidates, verdict.commit) != candidates.end() ||
        std::ranges::find(session.good_commits, verdict.commit) != session.good_commits.end() ||
        verdict.commit == session.bad_commit;
    if (verdict.phase == "search" && !known &&
        std::ranges::find(merge_bases, verdict.commit) == merge_bases.end()) {
      merge_bases.push_back(verdict.commit);
    }
  }
  return merge_bases;
}

}  // namespace kbisect
