// The bisection state machine: verify the endpoints, search, name the culprit, confirm it
// (and, once, when the confirmation refutes the culprit: check the endpoints again, and end
// with no regression or search on). It talks to the world only through a Measurer (commit ->
// one sample or a classified failure) and a SessionJournal (every sample and verdict, appended
// as it happens and replayed at start), so a session killed at any moment resumes exactly where
// it was: no sample lost, none duplicated, same answer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bisect/commit_graph.h"
#include "bisect/strategy.h"
#include "config/scenario.h"

namespace kbisect {

struct MeasureRequest {
  std::string commit;  // 40-hex id, or a RevertPlan::measure_id
  int attempt = 0;     // how many times this commit was measured before in this session
  int sequence = 0;    // how many measurements the session made before this one
};

enum class MeasureStatus { kOk, kBuildFailed, kBootFailed, kOtherFailure, kIdenticalImage };
const char* measure_status_name(MeasureStatus status);

struct Measurement {
  MeasureStatus status = MeasureStatus::kOtherFailure;
  double value = 0;     // kOk: the metric
  std::string same_as;  // kIdenticalImage: a commit already measured with the same image
  std::string detail;   // failures: one line saying why
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual Measurement measure(const MeasureRequest& request) = 0;
};

// "Revert `commit` on top of `base`": cli/bisect_session.cc wires this to git/revert.h; the
// Measurer then measures `measure_id`. ok = false: a conflict (reason names the files).
struct RevertPlan {
  bool ok = false;
  std::string measure_id;
  std::string reason;
};
using RevertFn = std::function<RevertPlan(const std::string& base, const std::string& commit)>;

enum class Phase { kSearch, kConfirm };

struct JournalEntry {
  // kReopen: the confirmation found the culprit `commit` no worse than a parent (`detail`
  // says how); the confirmation's samples so far join the search's and the search goes on.
  enum class Kind { kSample, kFailure, kAlias, kVerdict, kEndpointsOk, kReopen };
  Kind kind = Kind::kSample;
  Phase phase = Phase::kSearch;
  std::string commit;
  double value = 0;                           // kSample
  MeasureStatus status = MeasureStatus::kOk;  // kFailure
  // kFailure: why; kAlias: the commit it equals; kReopen: the parent check; kVerdict by boot:
  // whether it boots; kEndpointsOk: how they differ, when not as configured
  std::string detail;
  CommitVerdict verdict;    // kVerdict
  int candidates_left = 0;  // kSample, kFailure: Action::candidates_left of its measurement
  // kFailure of a commit that measured fine before and has not failed since: taken for the
  // run's failure (a guest I/O timeout on a loaded host), not the commit's, so the commit is
  // measured again. The session sets it as it journals the entry, for the journal's own
  // records; it works it out again from the entries before when it replays them.
  bool retried = false;
  // kFailure of the search that counts as bad (a boot failure under bisect.boot_failure_is_bad):
  // a verdict follows, and it is no skip. Set as it is journaled, for the journal's own records;
  // the replay works out the same from `status`.
  bool counts_as_bad = false;
};

// The words the store keeps for these (store/records.h: JournalRecord, VerdictRecord), which the
// report and the other commands read back: "sample", "failure", "alias", "verdict",
// "endpoints-ok", "reopen"; "search", "confirm".
const char* journal_kind_name(JournalEntry::Kind kind);
const char* phase_name(Phase phase);

// Append-only: the store implements it with SQLite (one row per entry, committed at once).
class SessionJournal {
 public:
  virtual ~SessionJournal() = default;
  virtual void append(const JournalEntry& entry) = 0;
  virtual std::vector<JournalEntry> replay() const = 0;
};

class MemoryJournal : public SessionJournal {
 public:
  void append(const JournalEntry& entry) override { entries_.push_back(entry); }
  std::vector<JournalEntry> replay() const override { return entries_; }

 private:
  std::vector<JournalEntry> entries_;
};

struct SessionInput {
  const CommitGraph* graph = nullptr;  // candidates; nodes[0] is bad
  std::string good;                    // the good endpoint's id
  MetricSpec metric;
  BisectSpec spec;
  bool confirm = true;  // culprit vs parent(s) and the revert check after the search
  RevertFn revert;      // empty: the revert check is skipped
  // All parents of a commit, also those outside the candidates (libgit2). Empty: the
  // culprit's parents among the candidates, or else the good endpoint, stand in.
  std::function<std::vector<std::string>(const std::string& commit)> parents_of;
  // Merge bases of bad and a good commit that is not its ancestor (git/candidates.h): tested
  // once the endpoints differ, before the search, as git bisect makes one test them. Each must
  // be good for the search to hold; a bad one ends the session.
  std::vector<std::string> merge_bases;
};

// A culprit the search named and its confirmation refuted: no worse than a parent.
struct RefutedCulprit {
  std::string commit;
  std::string parent_check;  // as SessionResult::parent_check
  bool operator==(const RefutedCulprit&) const = default;
};

enum class SessionVerdict { kFound, kNoRegression, kOnlySkipped, kAborted };
const char* session_verdict_name(SessionVerdict verdict);  // "found", "no-regression", ...

struct SessionResult {
  SessionVerdict verdict = SessionVerdict::kAborted;
  std::optional<std::string> culprit;
  int steps = 0;    // commits that got a verdict
  int samples = 0;  // measurements that produced a sample, confirmation included
  bool confirmed = false;
  std::vector<std::string> skipped;     // commits that could not be measured
  std::vector<std::string> candidates;  // only-skipped: the culprit is one of these
  // Why, for no-regression and aborted; for found, a culprit that carries a regression from
  // outside --paths.
  std::string message;
  std::string parent_check;  // e.g. "worse than parent abc123: -9.8%, p = 0.0001"
  // "fixes the regression", "does not fix", "not shown to fix ... in the samples allowed" (at
  // the cap, undecided), "skipped: ..."
  std::string revert_check;
  // What the confirmation measured by name: the culprit's parents and the culprit reverted on
  // bad ("" when the revert check was skipped before measuring). Their samples are journaled
  // under the commit whose image each shares, which may be another.
  std::vector<std::string> parents;
  std::string revert_commit;
  // Named before the culprit (the search went on) or before a no-regression end.
  std::vector<RefutedCulprit> refuted;
  // Clear host drift in the endpoints' samples (drift.h), e.g. "-3.5% of good at the start per
  // 100 samples (p = 2.1e-09)"; empty when there is none.
  std::string drift;
};

SessionResult run_session(const SessionInput& input, const Strategy& strategy, Measurer& measurer,
                          SessionJournal& journal);

}  // namespace kbisect
