// The results database: the only code that writes SQL. Every write is one BEGIN IMMEDIATE
// transaction, so a killed process leaves whole rows or none, and several processes can
// share one database (WAL, busy timeout). Not thread-safe: one Store per thread, and open a
// new one after fork() (SQLite connections must not cross a fork).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/records.h"
#include "store/sqlite.h"

namespace kbisect {

class Store {
 public:
  // Opens (creating the file and its directory) and migrates to the current schema.
  explicit Store(const std::filesystem::path& path);

  // For the commands that measure: a database that exists is opened (and checked) at once, one
  // that does not (or an empty file) is created (with its directory) when first used, so a
  // command that fails before that (a mistyped ref, a --db in the wrong place) leaves no empty
  // database behind.
  static Store created_when_used(const std::filesystem::path& path);
  // Whether `path` is a file with something in it: a database to open, not one to create.
  static bool holds_data(const std::filesystem::path& path);

  // Opens the database now, creating it if need be: for a command about to do long work whose
  // results it stores (a kernel build), so that a database it cannot create stops it first.
  void open();

  // For commands that only read (report, log): read-only, after checking that the file is a
  // kbisect results database. One of an older schema is read from a copy in memory brought up
  // to date; one of a newer schema is refused.
  static Store for_reading(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }

  // Makes the writes until its commit() one transaction, for rows that must exist together.
  Transaction transaction() { return Transaction(db()); }

  int64_t insert_build(const BuildRecord& build);
  std::optional<BuildRecord> build(int64_t id);

  // The run and its samples (their run_id is filled in) in one transaction.
  int64_t insert_run(const RunRecord& run, const std::vector<SampleRecord>& samples = {});
  std::vector<RunRecord> runs_of_session(int64_t session_id);  // oldest first
  std::vector<SampleRecord> samples_of_run(int64_t run_id);    // oldest first
  // Every sample of a session that has metrics, with them, oldest first.
  std::vector<SampleMetrics> sample_metrics_of_session(int64_t session_id);
  // The values of one metric (a metric_key()) of the matching samples, oldest first.
  std::vector<double> samples_for(const SampleFilter& filter, const std::string& metric);

  int64_t create_session(const SessionRecord& session);
  void finish_session(int64_t id, SessionStatus status, const std::string& result_json);
  // What a running session has found so far (a nightly: its bisection), before it finishes.
  void set_session_result(int64_t id, const std::string& result_json);
  std::optional<SessionRecord> session(int64_t id);
  std::vector<SessionRecord> sessions();  // newest first

  // The candidate commits of a session in rev-list order; replaces any earlier list.
  void set_candidates(int64_t session_id, const std::vector<std::string>& commits);
  std::vector<std::string> candidates_of(int64_t session_id);

  int64_t add_step(const StepRecord& step);
  int64_t add_verdict(const VerdictRecord& verdict);
  std::vector<StepRecord> steps_of(int64_t session_id);        // by step number
  std::vector<VerdictRecord> verdicts_of(int64_t session_id);  // in the order added

  // The session journal: appended entries are committed at once; a run is journaled at most
  // once (a second entry for the same run_id is refused).
  int64_t append_journal(const JournalRecord& record);
  std::vector<JournalRecord> journal_of(int64_t session_id);  // in the order appended
  // Runs of the session without a journal entry, oldest first, with the value of `metric_key`.
  // Infra-errors are left out: they say nothing of their commit, which is measured again.
  std::vector<UnjournaledRun> unjournaled_runs(int64_t session_id, const std::string& metric_key);

  void set_baseline(const BaselineRecord& baseline);
  // The baseline stored last for the scenario and variant, under whichever metric: a nightly
  // stores its first metric's, and metrics reordered in the config must not lose it.
  std::optional<BaselineRecord> baseline(const std::string& scenario, const std::string& variant);

  // A named lock between processes (e.g. "nightly:<scenario>"), taken in one transaction. A
  // lock held by a process of this host that no longer exists (or is a zombie, or whose pid
  // is now this process's, which did not take it) is taken over (and reported in the
  // attempt); one held from another host never is. store_lock.h holds it for a scope.
  LockAttempt try_lock(const std::string& name);
  // Releases the lock if this process holds it.
  void unlock(const std::string& name);
  // Who holds `name`, unless try_lock would take it over: read only.
  std::optional<LockHolder> live_holder(const std::string& name);

 private:
  Store(std::filesystem::path path, Database db);  // db null: opened on first use
  std::optional<LockHolder> holder(const std::string& name);
  // Whether the holder is a process of this host that no longer holds the lock.
  bool is_gone(const LockHolder& holder, const std::string& name) const;

  sqlite3* db();  // opens the database on first use

  int64_t insert_sample_row(const SampleRecord& sample);
  std::vector<SampleRecord> read_samples(Statement& query);  // rows of kSampleColumns

  std::filesystem::path path_;
  Database db_;
};

}  // namespace kbisect
