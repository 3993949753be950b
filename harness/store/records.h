// The rows of the results database as typed structs (columns: results/SCHEMA.md). An id of 0
// means "not stored yet"; optional fields are NULL columns. Timestamps are UTC ISO 8601 text
// ("2026-11-30T09:15:02.123Z") set by the database.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vm/runner.h"  // Outcome

namespace kbisect {

struct BuildRecord {
  int64_t id = 0;
  std::string commit;
  std::string tree_id;
  std::string config_hash;  // sha256 of the final kernel .config; a sample's config_hash is
                            // something else, the scenario_hash() of its config
  std::string compiler;     // e.g. "gcc (Debian 12.2.0-14) 12.2.0"
  std::optional<std::string> image_sha256;  // set when the build succeeded
  Outcome outcome = Outcome::kOk;           // kOk or kBuildFailed
  double seconds = 0;
  std::string log_path;
  std::string log_tail;
  std::string created_at;
};

// One VM boot (or one attempt that failed before it) for one commit and variant.
struct RunRecord {
  int64_t id = 0;
  std::optional<int64_t> session_id;
  std::optional<int64_t> build_id;  // absent for the sim runner
  std::string commit;
  std::string variant;  // "" for the default variant
  std::string host;
  std::string accel;        // kvm | tcg | sim
  std::string environment;  // RunPlace::environment ("sim" for the sim runner)
  Outcome outcome = Outcome::kOk;
  std::optional<double> boot_seconds;
  std::optional<double> workload_seconds;
  std::string detail;
  std::string console_log;
  std::string created_at;
};

// One measured sample: kdio's JSON and the metrics extracted from it.
struct SampleRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::optional<int64_t> session_id;
  std::string commit;
  std::string tree_id;
  std::optional<int64_t> build_id;
  std::string config_hash;  // scenario_hash() of the scenario measured
  std::string variant;
  std::string host;
  std::string accel;
  std::optional<double> boot_seconds;
  std::string kdio_json;
  std::map<std::string, double> metrics;  // metric_key() -> value
  std::string created_at;
};

// The metrics of one sample without kdio's JSON: what reports read.
struct SampleMetrics {
  int64_t sample_id = 0;
  int64_t run_id = 0;
  std::string commit;
  std::string variant;
  std::map<std::string, double> metrics;  // metric_key() -> value
};

enum class SessionKind { kBisect, kCompare, kRevertCheck, kNightly, kRun };
enum class SessionStatus { kRunning, kDone, kAborted };

struct SessionRecord {
  int64_t id = 0;
  SessionKind kind = SessionKind::kBisect;
  std::string scenario;     // Scenario::name
  std::string config_path;  // the YAML file
  std::string config_hash;
  std::vector<std::string> good_refs;     // as the user gave them
  std::vector<std::string> good_commits;  // resolved: a resume uses these, not the refs
  std::string bad_ref;
  std::string bad_commit;
  std::string strategy;
  std::string options_json = "{}";  // everything else the session needs to resume
  SessionStatus status = SessionStatus::kRunning;
  std::string result_json;  // culprit, verdict, ...; "" while nothing is known
  std::string started_at;
  std::string finished_at;  // "" while running
};

// A commit the search chose to measure, in order.
struct StepRecord {
  int64_t id = 0;
  int64_t session_id = 0;
  int step = 0;  // 1, 2, ... within the session
  std::string commit;
  std::string phase;        // search | confirm: the phase that first measured it (column role)
  int candidates_left = 0;  // candidates still in the range when this step was chosen
  std::string created_at;
};

enum class Verdict { kGood, kBad, kSkip, kUndecided };

// A decision about a commit after some samples; an undecided one is followed by more samples
// and another verdict.
struct VerdictRecord {
  int64_t id = 0;
  int64_t session_id = 0;
  std::optional<int> step;  // the step it belongs to, if any
  std::string commit;
  Verdict verdict = Verdict::kUndecided;
  std::optional<double> p_mwu;   // Mann-Whitney U p-value
  std::optional<double> p_ks;    // Kolmogorov-Smirnov p-value
  std::optional<double> effect;  // how much worse than good's median, relatively: > 0 worse
  int samples = 0;               // samples of this commit used
  int good_samples = 0;          // samples of the good reference used
  int bad_samples = 0;           // samples of the bad reference used
  std::string phase;             // "search" or "confirm"
  std::string detail;            // a skip: why ("build-failed: ...")
  std::string created_at;
};

// One entry of a session's journal (bisect/session.h): what the search did, in order, so a
// killed session replays it and continues. kind, phase and status are the bisect engine's
// words; the store keeps them as given.
struct JournalRecord {
  int64_t id = 0;
  int64_t session_id = 0;
  std::string kind;   // sample | failure | alias | verdict | endpoints-ok | reopen
  std::string phase;  // search | confirm
  std::string commit;
  std::optional<double> value;  // sample: the metric
  std::string status;           // failure: why, as a measure status
  std::string detail;
  std::string verdict_json;       // verdict: the engine's verdict; "" otherwise
  std::optional<int64_t> run_id;  // sample, failure: the run it came from (journaled once)
  std::string created_at;
};

// A run of a session that no journal entry refers to: stored by a process that was killed
// before it journaled it.
struct UnjournaledRun {
  int64_t run_id = 0;
  std::string commit;
  Outcome outcome = Outcome::kOk;
  std::string detail;
  std::optional<double> value;  // the metric of its (first) sample, if it has one
};

// The reference a nightly run compares against, per scenario, variant and metric.
struct BaselineRecord {
  std::string scenario;
  std::string variant;
  std::string metric;
  std::string commit;
  std::string config_hash;
  double median = 0;
  double spread = 0;  // median absolute deviation
  int samples = 0;
  std::optional<int64_t> session_id;
  std::string updated_at;
};

// The holder of a named lock (table locks).
struct LockHolder {
  int64_t pid = 0;
  std::string host;
  std::string acquired_at;
};

struct LockAttempt {
  bool acquired = false;
  // Not acquired: who holds the lock. Acquired: the holder whose process was gone, if the
  // lock was taken over from one.
  std::optional<LockHolder> holder;
};

// Which samples to read: of a commit, or of a kernel image (identical images are the same
// kernel; a tree is not, since the compiler is no part of config_hash), always with
// config_hash and variant.
struct SampleFilter {
  std::string commit;
  std::string image_sha256;
  std::string config_hash;
  std::string variant;
  std::optional<int64_t> session_id;  // only this session's samples
  std::string host;                   // only samples taken there (empty: any)
  std::string accel;                  // only samples taken under it (empty: any)
  std::string environment;            // only samples of runs with it (empty: any)
};

Outcome parse_outcome(std::string_view text);
std::string_view session_kind_text(SessionKind kind);
SessionKind parse_session_kind(std::string_view text);
std::string_view session_status_text(SessionStatus status);
SessionStatus parse_session_status(std::string_view text);
std::string_view verdict_text(Verdict verdict);
Verdict parse_verdict(std::string_view text);

// A session as a command names it: its id, or "last" / "latest" for the newest one.
struct SessionName {
  bool newest = false;
  int64_t id = 0;  // when not newest
};
// nullopt when `text` is neither a positive whole number nor last / latest.
std::optional<SessionName> parse_session_name(std::string_view text);

// Why `commit` was skipped: the detail of its last skip verdict ("build-failed: ..."); "no
// reason stored" when it has none.
std::string skip_reason(const std::vector<VerdictRecord>& verdicts, std::string_view commit);

// The bisect session a nightly session ran (its result's bisect_session); nullopt for other
// sessions and for a nightly that did not get to bisect.
std::optional<int64_t> nightly_bisection(const SessionRecord& session);

// The merge bases a session's search tested first, in the order it judged them. A good commit
// bad does not descend from makes the search test their merge base, as git does; such a commit
// is neither a candidate nor an endpoint, yet it has search verdicts.
std::vector<std::string> tested_merge_bases(const SessionRecord& session,
                                            const std::vector<std::string>& candidates,
                                            const std::vector<VerdictRecord>& verdicts);

}  // namespace kbisect
