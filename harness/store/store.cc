#include "store/store.h"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/json_text.h"
#include "common/local_process.h"
#include "store/schema.h"

namespace kbisect {
namespace {

std::string json_array(const std::vector<std::string>& values) {
  return nlohmann::json(values).dump();
}

std::vector<std::string> parse_json_array(const std::string& text) {
  return nlohmann::json::parse(text).get<std::vector<std::string>>();
}

// The locks this process holds, by database and name (taken and released by the command's
// thread only).
std::set<std::string>& locks_held_here() {
  static std::set<std::string> held;
  return held;
}

std::string lock_key(const std::filesystem::path& database, const std::string& name) {
  return std::filesystem::absolute(database).lexically_normal().string() + '\n' + name;
}

// The tables of a database kbisect has not set up, comma-separated: one of schema version 0,
// or one without kbisect's tables (many programs set a version of their own). One statement,
// so one snapshot: read as two, the version before and the tables after another kbisect
// created them, a new database that two commands open at once looked like another program's.
std::string tables_of_another_program(const std::filesystem::path& path) {
  Database db = open_read_only(path);
  try {
    Statement tables(db.get(),
                     "SELECT group_concat(name, ', ') FROM sqlite_master WHERE type = 'table' "
                     "AND ((SELECT user_version FROM pragma_user_version) = 0 OR "
                     "(SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                     "('sessions', 'samples', 'sample_metrics')) < 3)");
    tables.step();
    return tables.text(0);
  } catch (const Error&) {
    if (sqlite3_errcode(db.get()) != SQLITE_NOTADB) throw;
    fail(
        "{} is not a kbisect results database (it is no SQLite database); pass --db a new file "
        "or a database kbisect wrote",
        path.string());
  }
}

// Checked before the first write (the switch to WAL, kbisect's tables): another program's
// database, given to --db by mistake, is left as it is.
Database open_results_database(const std::filesystem::path& path) {
  if (Store::holds_data(path)) {
    if (const std::string tables = tables_of_another_program(path); !tables.empty()) {
      fail(
          "{} is not a kbisect results database (it holds other tables: {}); pass --db a new "
          "file or a database kbisect wrote",
          path.string(), tables);
    }
  }
  return open_read_write(path);
}

std::optional<std::string> null_if_empty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

constexpr const char* kSampleColumns =
    "id, run_id, session_id, commit_id, tree_id, build_id, config_hash, variant, host, accel, "
    "boot_seconds, kdio_json, created_at";

constexpr const char* kBuildColumns =
    "id, commit_id, tree_id, config_hash, compiler, image_sha256, outcome, seconds, log_path, "
    "log_tail, created_at";

BuildRecord read_build(const Statement& row) {
  BuildRecord build;
  build.id = row.int64(0);
  build.commit = row.text(1);
  build.tree_id = row.text(2);
  build.config_hash = row.text(3);
  build.compiler = row.text(4);
  build.image_sha256 = row.optional_text(5);
  build.outcome = parse_outcome(row.text(6));
  build.seconds = row.real(7);
  build.log_path = row.text(8);
  build.log_tail = row.text(9);
  build.created_at = row.text(10);
  return build;
}

constexpr const char* kSessionColumns =
    "id, kind, scenario, config_path, config_hash, good_refs, good_commits, bad_ref, bad_commit, "
    "strategy, options, status, result, started_at, finished_at";

SessionRecord read_session(const Statement& row) {
  SessionRecord session;
  session.id = row.int64(0);
  session.kind = parse_session_kind(row.text(1));
  session.scenario = row.text(2);
  session.config_path = row.text(3);
  session.config_hash = row.text(4);
  session.good_refs = parse_json_array(row.text(5));
  session.good_commits = parse_json_array(row.text(6));
  session.bad_ref = row.text(7);
  session.bad_commit = row.text(8);
  session.strategy = row.text(9);
  session.options_json = row.text(10);
  session.status = parse_session_status(row.text(11));
  session.result_json = row.text(12);
  session.started_at = row.text(13);
  session.finished_at = row.text(14);
  return session;
}

constexpr const char* kRunColumns =
    "id, session_id, build_id, commit_id, variant, host, accel, outcome, boot_seconds, "
    "workload_seconds, detail, console_log, created_at, environment";

RunRecord read_run(const Statement& row) {
  RunRecord run;
  run.id = row.int64(0);
  run.session_id = row.optional_int64(1);
  run.build_id = row.optional_int64(2);
  run.commit = row.text(3);
  run.variant = row.text(4);
  run.host = row.text(5);
  run.accel = row.text(6);
  run.outcome = parse_outcome(row.text(7));
  run.boot_seconds = row.optional_real(8);
  run.workload_seconds = row.optional_real(9);
  run.detail = row.text(10);
  run.console_log = row.text(11);
  run.created_at = row.text(12);
  run.environment = row.text(13);
  return run;
}

}  // namespace

Store::Store(const std::filesystem::path& path) : path_(path) {
  open();
}

Store::Store(std::filesystem::path path, Database db)
    : path_(std::move(path)), db_(std::move(db)) {}

Store Store::created_when_used(const std::filesystem::path& path) {
  Store store(path, nullptr);
  // Another program's database, or one of a newer schema, is still refused before the command
  // does anything.
  if (holds_data(path)) store.open();
  return store;
}

bool Store::holds_data(const std::filesystem::path& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  return !error && size > 0;
}

void Store::open() {
  if (db_) return;
  Database db = open_results_database(path_);
  migrate(db.get());
  db_ = std::move(db);
}

sqlite3* Store::db() {
  open();
  return db_.get();
}

Store Store::for_reading(const std::filesystem::path& path) {
  Database db = open_read_only(path);
  // Checked before anything could write: an empty file or another program's is left as it is.
  check_results_database(db.get(), path);
  return Store(path, up_to_date_for_reading(std::move(db)));
}

int64_t Store::insert_build(const BuildRecord& build) {
  Transaction transaction(db());
  Statement insert(
      db(),
      "INSERT INTO builds (commit_id, tree_id, config_hash, compiler, image_sha256, "
      "outcome, seconds, log_path, log_tail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  insert
      .bind(build.commit, build.tree_id, build.config_hash, build.compiler, build.image_sha256,
            outcome_name(build.outcome), build.seconds, build.log_path, build.log_tail)
      .run();
  int64_t id = sqlite3_last_insert_rowid(db());
  transaction.commit();
  return id;
}

std::optional<BuildRecord> Store::build(int64_t id) {
  Statement query(db(), fmt::format("SELECT {} FROM builds WHERE id = ?1", kBuildColumns));
  query.bind(id);
  if (!query.step()) return std::nullopt;
  return read_build(query);
}

int64_t Store::insert_run(const RunRecord& run, const std::vector<SampleRecord>& samples) {
  Transaction transaction(db());
  Statement insert(db(),
                   "INSERT INTO runs (session_id, build_id, commit_id, variant, host, accel, "
                   "outcome, boot_seconds, workload_seconds, detail, console_log, environment) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  insert
      .bind(run.session_id, run.build_id, run.commit, run.variant, run.host, run.accel,
            outcome_name(run.outcome), run.boot_seconds, run.workload_seconds, run.detail,
            run.console_log, run.environment)
      .run();
  int64_t run_id = sqlite3_last_insert_rowid(db());
  for (SampleRecord sample : samples) {
    sample.run_id = run_id;
    insert_sample_row(sample);
  }
  transaction.commit();
  return run_id;
}

int64_t Store::insert_sample_row(const SampleRecord& sample) {
  Statement insert(db(),
                   "INSERT INTO samples (run_id, session_id, commit_id, tree_id, build_id, "
                   "config_hash, variant, host, accel, boot_seconds, kdio_json) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  insert
      .bind(sample.run_id, sample.session_id, sample.commit, sample.tree_id, sample.build_id,
            sample.config_hash, sample.variant, sample.host, sample.accel, sample.boot_seconds,
            sample.kdio_json)
      .run();
  int64_t id = sqlite3_last_insert_rowid(db());
  Statement metric(db(),
                   "INSERT INTO sample_metrics (sample_id, metric, value) VALUES (?1, ?2, ?3)");
  for (const auto& [name, value] : sample.metrics) {
    sqlite3_reset(metric.get());
    metric.bind(id, name, value).run();
  }
  return id;
}

std::vector<RunRecord> Store::runs_of_session(int64_t session_id) {
  Statement query(
      db(), fmt::format("SELECT {} FROM runs WHERE session_id = ?1 ORDER BY id", kRunColumns));
  query.bind(session_id);
  std::vector<RunRecord> runs;
  while (query.step()) runs.push_back(read_run(query));
  return runs;
}

std::vector<SampleRecord> Store::samples_of_run(int64_t run_id) {
  Statement query(db(), std::string("SELECT ") + kSampleColumns +
                            " FROM samples WHERE run_id = ?1 ORDER BY id");
  query.bind(run_id);
  return read_samples(query);
}

std::vector<SampleRecord> Store::read_samples(Statement& query) {
  Statement metrics(db(), "SELECT metric, value FROM sample_metrics WHERE sample_id = ?1");
  std::vector<SampleRecord> samples;
  while (query.step()) {
    SampleRecord sample;
    sample.id = query.int64(0);
    sample.run_id = query.int64(1);
    sample.session_id = query.optional_int64(2);
    sample.commit = query.text(3);
    sample.tree_id = query.text(4);
    sample.build_id = query.optional_int64(5);
    sample.config_hash = query.text(6);
    sample.variant = query.text(7);
    sample.host = query.text(8);
    sample.accel = query.text(9);
    sample.boot_seconds = query.optional_real(10);
    sample.kdio_json = query.text(11);
    sample.created_at = query.text(12);
    sqlite3_reset(metrics.get());
    metrics.bind(sample.id);
    while (metrics.step()) sample.metrics[metrics.text(0)] = metrics.real(1);
    samples.push_back(std::move(sample));
  }
  return samples;
}

std::vector<SampleMetrics> Store::sample_metrics_of_session(int64_t session_id) {
  Statement query(db(),
                  "SELECT s.id, s.run_id, s.commit_id, s.variant, m.metric, m.value FROM samples s "
                  "JOIN sample_metrics m ON m.sample_id = s.id WHERE s.session_id = ?1 "
                  "ORDER BY s.id, m.metric");
  query.bind(session_id);
  std::vector<SampleMetrics> samples;
  while (query.step()) {
    if (samples.empty() || samples.back().sample_id != query.int64(0)) {
      samples.push_back({.sample_id = query.int64(0),
                         .run_id = query.int64(1),
                         .commit = query.text(2),
                         .variant = query.text(3),
                         .metrics = {}});
    }
    samples.back().metrics[query.text(4)] = query.real(5);
  }
  return samples;
}

std::vector<double> Store::samples_for(const SampleFilter& filter, const std::string& metric) {
  if (filter.commit.empty() == filter.image_sha256.empty()) {
    fail("internal error: samples_for needs one of commit and image_sha256");
  }
  const char* match = !filter.commit.empty()
                          ? "s.commit_id = ?4"
                          : "s.build_id IN (SELECT id FROM builds WHERE image_sha256 = ?4)";
  Statement query(db(), fmt::format("SELECT m.value FROM samples s JOIN sample_metrics m "
                                    "ON m.sample_id = s.id WHERE s.config_hash = ?1 AND "
                                    "s.variant = ?2 AND m.metric = ?3 AND {} AND "
                                    "(?5 IS NULL OR s.session_id = ?5) AND "
                                    "(?6 = '' OR s.host = ?6) AND (?7 = '' OR s.accel = ?7) AND "
                                    "(?8 = '' OR s.run_id IN (SELECT id FROM runs WHERE "
                                    "environment = ?8)) ORDER BY s.id",
                                    match));
  query.bind(filter.config_hash, filter.variant, metric, filter.commit + filter.image_sha256,
             filter.session_id, filter.host, filter.accel, filter.environment);
  std::vector<double> values;
  while (query.step()) values.push_back(query.real(0));
  return values;
}

int64_t Store::create_session(const SessionRecord& session) {
  std::vector<std::string> refs = session.good_refs;
  refs.push_back(session.bad_ref);
  for (const auto& ref : refs) {
    if (!is_utf8(ref)) {
      fail(
          "the ref '{}' is not UTF-8 text, which a session keeps its refs as: give its commit id "
          "instead",
          ref);
    }
  }
  Transaction transaction(db());
  Statement insert(db(),
                   "INSERT INTO sessions (kind, scenario, config_path, config_hash, good_refs, "
                   "good_commits, bad_ref, bad_commit, strategy, options, status, result) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  insert
      .bind(session_kind_text(session.kind), session.scenario, session.config_path,
            session.config_hash, json_array(session.good_refs), json_array(session.good_commits),
            session.bad_ref, session.bad_commit, session.strategy,
            session.options_json.empty() ? std::string("{}") : session.options_json,
            session_status_text(session.status), null_if_empty(session.result_json))
      .run();
  int64_t id = sqlite3_last_insert_rowid(db());
  transaction.commit();
  return id;
}

void Store::finish_session(int64_t id, SessionStatus status, const std::string& result_json) {
  Transaction transaction(db());
  Statement update(db(),
                   "UPDATE sessions SET status = ?1, result = ?2, "
                   "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?3");
  update.bind(session_status_text(status), null_if_empty(result_json), id).run();
  if (sqlite3_changes(db()) != 1) fail("no session {} in {}", id, path_.string());
  transaction.commit();
}

void Store::set_session_result(int64_t id, const std::string& result_json) {
  Transaction transaction(db());
  Statement update(db(), "UPDATE sessions SET result = ?1 WHERE id = ?2");
  update.bind(null_if_empty(result_json), id).run();
  if (sqlite3_changes(db()) != 1) fail("no session {} in {}", id, path_.string());
  transaction.commit();
}

std::optional<SessionRecord> Store::session(int64_t id) {
  Statement query(db(), fmt::format("SELECT {} FROM sessions WHERE id = ?1", kSessionColumns));
  query.bind(id);
  if (!query.step()) return std::nullopt;
  return read_session(query);
}

std::vector<SessionRecord> Store::sessions() {
  Statement query(db(), fmt::format("SELECT {} FROM sessions ORDER BY id DESC", kSessionColumns));
  std::vector<SessionRecord> sessions;
  while (query.step()) sessions.push_back(read_session(query));
  return sessions;
}

void Store::set_candidates(int64_t session_id, const std::vector<std::string>& commits) {
  Transaction transaction(db());
  Statement clear(db(), "DELETE FROM candidates WHERE session_id = ?1");
  clear.bind(session_id).run();
  Statement insert(db(),
                   "INSERT INTO candidates (session_id, position, commit_id) VALUES (?1, ?2, ?3)");
  for (size_t i = 0; i < commits.size(); ++i) {
    sqlite3_reset(insert.get());
    insert.bind(session_id, static_cast<int64_t>(i), commits[i]).run();
  }
  transaction.commit();
}

std::vector<std::string> Store::candidates_of(int64_t session_id) {
  Statement query(db(), "SELECT commit_id FROM candidates WHERE session_id = ?1 ORDER BY position");
  query.bind(session_id);
  std::vector<std::string> commits;
  while (query.step()) commits.push_back(query.text(0));
  return commits;
}

int64_t Store::add_step(const StepRecord& step) {
  Transaction transaction(db());
  Statement insert(db(),
                   "INSERT INTO steps (session_id, step, commit_id, role, candidates_left) "
                   "VALUES (?1, ?2, ?3, ?4, ?5)");
  insert.bind(step.session_id, step.step, step.commit, step.phase, step.candidates_left).run();
  int64_t id = sqlite3_last_insert_rowid(db());
  transaction.commit();
  return id;
}

int64_t Store::add_verdict(const VerdictRecord& verdict) {
  Transaction transaction(db());
  Statement insert(db(),
                   "INSERT INTO verdicts (session_id, step, commit_id, verdict, p_mwu, p_ks, "
                   "effect, samples, good_samples, bad_samples, phase, detail) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  insert
      .bind(verdict.session_id, verdict.step, verdict.commit, verdict_text(verdict.verdict),
            verdict.p_mwu, verdict.p_ks, verdict.effect, verdict.samples, verdict.good_samples,
            verdict.bad_samples, verdict.phase, verdict.detail)
      .run();
  int64_t id = sqlite3_last_insert_rowid(db());
  transaction.commit();
  return id;
}

std::vector<StepRecord> Store::steps_of(int64_t session_id) {
  Statement query(db(),
                  "SELECT id, session_id, step, commit_id, role, candidates_left, created_at "
                  "FROM steps WHERE session_id = ?1 ORDER BY step");
  query.bind(session_id);
  std::vector<StepRecord> steps;
  while (query.step()) {
    StepRecord step;
    step.id = query.int64(0);
    step.session_id = query.int64(1);
    step.step = static_cast<int>(query.int64(2));
    step.commit = query.text(3);
    step.phase = query.text(4);
    step.candidates_left = static_cast<int>(query.int64(5));
    step.created_at = query.text(6);
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<VerdictRecord> Store::verdicts_of(int64_t session_id) {
  Statement query(db(),
                  "SELECT id, session_id, step, commit_id, verdict, p_mwu, p_ks, effect, samples, "
                  "good_samples, bad_samples, phase, detail, created_at FROM verdicts "
                  "WHERE session_id = ?1 ORDER BY id");
  query.bind(session_id);
  std::vector<VerdictRecord> verdicts;
  while (query.step()) {
    VerdictRecord verdict;
    verdict.id = query.int64(0);
    verdict.session_id = query.int64(1);
    if (auto step = query.optional_int64(2)) verdict.step = static_cast<int>(*step);
    verdict.commit = query.text(3);
    verdict.verdict = parse_verdict(query.text(4));
    verdict.p_mwu = query.optional_real(5);
    verdict.p_ks = query.optional_real(6);
    verdict.effect = query.optional_real(7);
    verdict.samples = static_cast<int>(query.int64(8));
    verdict.good_samples = static_cast<int>(query.int64(9));
    verdict.bad_samples = static_cast<int>(query.int64(10));
    verdict.phase = query.text(11);
    verdict.detail = query.text(12);
    verdict.created_at = query.text(13);
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

int64_t Store::append_journal(const JournalRecord& record) {
  Transaction transaction(db());
  Statement insert(
      db(),
      "INSERT INTO journal (session_id, kind, phase, commit_id, value, status, detail, "
      "verdict, run_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  insert
      .bind(record.session_id, record.kind, record.phase, record.commit, record.value,
            record.status, record.detail, null_if_empty(record.verdict_json), record.run_id)
      .run();
  int64_t id = sqlite3_last_insert_rowid(db());
  transaction.commit();
  return id;
}

std::vector<JournalRecord> Store::journal_of(int64_t session_id) {
  Statement query(db(),
                  "SELECT id, session_id, kind, phase, commit_id, value, status, detail, verdict, "
                  "run_id, created_at FROM journal WHERE session_id = ?1 ORDER BY id");
  query.bind(session_id);
  std::vector<JournalRecord> records;
  while (query.step()) {
    JournalRecord record;
    record.id = query.int64(0);
    record.session_id = query.int64(1);
    record.kind = query.text(2);
    record.phase = query.text(3);
    record.commit = query.text(4);
    record.value = query.optional_real(5);
    record.status = query.text(6);
    record.detail = query.text(7);
    record.verdict_json = query.text(8);
    record.run_id = query.optional_int64(9);
    record.created_at = query.text(10);
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<UnjournaledRun> Store::unjournaled_runs(int64_t session_id,
                                                    const std::string& metric_key) {
  Statement query(
      db(),
      "SELECT r.id, r.commit_id, r.outcome, r.detail, "
      "(SELECT m.value FROM samples s JOIN sample_metrics m ON m.sample_id = s.id "
      "WHERE s.run_id = r.id AND m.metric = ?2 ORDER BY s.id LIMIT 1) "
      "FROM runs r WHERE r.session_id = ?1 AND r.outcome != 'infra-error' AND NOT EXISTS "
      "(SELECT 1 FROM journal j WHERE j.run_id = r.id) ORDER BY r.id");
  query.bind(session_id, metric_key);
  std::vector<UnjournaledRun> runs;
  while (query.step()) {
    UnjournaledRun run;
    run.run_id = query.int64(0);
    run.commit = query.text(1);
    run.outcome = parse_outcome(query.text(2));
    run.detail = query.text(3);
    run.value = query.optional_real(4);
    runs.push_back(std::move(run));
  }
  return runs;
}

void Store::set_baseline(const BaselineRecord& baseline) {
  Transaction transaction(db());
  Statement upsert(db(),
                   "INSERT OR REPLACE INTO baselines (scenario, variant, metric, commit_id, "
                   "config_hash, median, spread, samples, session_id) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  upsert
      .bind(baseline.scenario, baseline.variant, baseline.metric, baseline.commit,
            baseline.config_hash, baseline.median, baseline.spread, baseline.samples,
            baseline.session_id)
      .run();
  transaction.commit();
}

std::optional<BaselineRecord> Store::baseline(const std::string& scenario,
                                              const std::string& variant) {
  Statement query(db(),
                  "SELECT commit_id, config_hash, median, spread, samples, session_id, updated_at, "
                  "metric FROM baselines WHERE scenario = ?1 AND variant = ?2 "
                  "ORDER BY updated_at DESC, metric LIMIT 1");
  query.bind(scenario, variant);
  if (!query.step()) return std::nullopt;
  BaselineRecord baseline;
  baseline.scenario = scenario;
  baseline.variant = variant;
  baseline.metric = query.text(7);
  baseline.commit = query.text(0);
  baseline.config_hash = query.text(1);
  baseline.median = query.real(2);
  baseline.spread = query.real(3);
  baseline.samples = static_cast<int>(query.int64(4));
  baseline.session_id = query.optional_int64(5);
  baseline.updated_at = query.text(6);
  return baseline;
}

std::optional<LockHolder> Store::holder(const std::string& name) {
  Statement current(db(), "SELECT pid, host, acquired_at FROM locks WHERE name = ?1");
  current.bind(name);
  if (!current.step()) return std::nullopt;
  return LockHolder{current.int64(0), current.text(1), current.text(2)};
}

bool Store::is_gone(const LockHolder& holder, const std::string& name) const {
  const auto pid = static_cast<pid_t>(holder.pid);
  // This pid is this process's own only when a dead holder's pid came round again (a container
  // gives every nightly the same one), unless this process took the lock itself.
  return holder.host == this_host_name() &&
         (pid == getpid() ? !locks_held_here().contains(lock_key(path_, name))
                          : !process_exists(pid));
}

std::optional<LockHolder> Store::live_holder(const std::string& name) {
  std::optional<LockHolder> current = holder(name);
  if (current && is_gone(*current, name)) return std::nullopt;
  return current;
}

LockAttempt Store::try_lock(const std::string& name) {
  Transaction transaction(db());
  LockAttempt attempt;
  attempt.holder = holder(name);
  if (attempt.holder) {
    if (!is_gone(*attempt.holder, name)) return attempt;
    Statement take_over(db(), "DELETE FROM locks WHERE name = ?1");
    take_over.bind(name).run();
  }
  Statement insert(db(), "INSERT INTO locks (name, pid, host) VALUES (?1, ?2, ?3)");
  insert.bind(name, static_cast<int64_t>(getpid()), this_host_name()).run();
  transaction.commit();
  locks_held_here().insert(lock_key(path_, name));
  attempt.acquired = true;
  return attempt;
}

void Store::unlock(const std::string& name) {
  Transaction transaction(db());
  Statement remove(db(), "DELETE FROM locks WHERE name = ?1 AND pid = ?2 AND host = ?3");
  remove.bind(name, static_cast<int64_t>(getpid()), this_host_name()).run();
  transaction.commit();
  locks_held_here().erase(lock_key(path_, name));
}

}  // namespace kbisect
