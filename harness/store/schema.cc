#include "store/schema.h"

#include <fmt/format.h>

#include <array>

#include "common/error.h"
#include "store/sqlite.h"

namespace kbisect {
namespace {

// Never edit a migration that has shipped: add a new one.
constexpr std::array kMigrations = {
    R"sql(
CREATE TABLE builds (
  id INTEGER PRIMARY KEY,
  commit_id TEXT NOT NULL,
  tree_id TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  compiler TEXT NOT NULL,
  image_sha256 TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'build-failed')),
  seconds REAL NOT NULL,
  log_path TEXT NOT NULL,
  log_tail TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK ((outcome = 'ok') = (image_sha256 IS NOT NULL))
);
CREATE INDEX builds_by_key ON builds (tree_id, config_hash, compiler);
CREATE INDEX builds_by_image ON builds (image_sha256);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('bisect', 'compare', 'revert-check', 'nightly', 'run')),
  scenario TEXT NOT NULL,
  config_path TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  good_refs TEXT NOT NULL CHECK (json_valid(good_refs)),
  good_commits TEXT NOT NULL CHECK (json_valid(good_commits)),
  bad_ref TEXT NOT NULL,
  bad_commit TEXT NOT NULL,
  strategy TEXT NOT NULL,
  options TEXT NOT NULL CHECK (json_valid(options)),
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'aborted')),
  result TEXT CHECK (result IS NULL OR json_valid(result)),
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at TEXT
);

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  session_id INTEGER REFERENCES sessions (id),
  build_id INTEGER REFERENCES builds (id),
  commit_id TEXT NOT NULL,
  variant TEXT NOT NULL,
  host TEXT NOT NULL,
  accel TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'build-failed', 'boot-failed',
                                           'workload-failed', 'timeout', 'infra-error')),
  boot_seconds REAL,
  workload_seconds REAL,
  detail TEXT NOT NULL,
  console_log TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX runs_by_commit ON runs (commit_id);
CREATE INDEX runs_by_session ON runs (session_id);

CREATE TABLE samples (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  session_id INTEGER REFERENCES sessions (id),
  commit_id TEXT NOT NULL,
  tree_id TEXT NOT NULL,
  build_id INTEGER REFERENCES builds (id),
  config_hash TEXT NOT NULL,
  variant TEXT NOT NULL,
  host TEXT NOT NULL,
  accel TEXT NOT NULL,
  boot_seconds REAL,
  kdio_json TEXT NOT NULL CHECK (json_valid(kdio_json)),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX samples_by_commit ON samples (commit_id, config_hash, variant);
CREATE INDEX samples_by_tree ON samples (tree_id, config_hash, variant);
CREATE INDEX samples_by_build ON samples (build_id);
CREATE INDEX samples_by_run ON samples (run_id);
CREATE INDEX samples_by_session ON samples (session_id);

CREATE TABLE sample_metrics (
  sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (sample_id, metric)
) WITHOUT ROWID;
CREATE INDEX sample_metrics_by_metric ON sample_metrics (metric);

CREATE TABLE candidates (
  session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  commit_id TEXT NOT NULL,
  PRIMARY KEY (session_id, position)
) WITHOUT ROWID;

CREATE TABLE steps (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  step INTEGER NOT NULL CHECK (step >= 1),
  commit_id TEXT NOT NULL,
  role TEXT NOT NULL,
  candidates_left INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (session_id, step)
);

CREATE TABLE verdicts (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  step INTEGER,
  commit_id TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('good', 'bad', 'skip', 'undecided')),
  p_mwu REAL,
  p_ks REAL,
  effect REAL,
  samples INTEGER NOT NULL,
  good_samples INTEGER NOT NULL,
  bad_samples INTEGER NOT NULL,
  reason TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  FOREIGN KEY (session_id, step) REFERENCES steps (session_id, step)
);
CREATE INDEX verdicts_by_session ON verdicts (session_id, step);

CREATE TABLE baselines (
  scenario TEXT NOT NULL,
  variant TEXT NOT NULL,
  metric TEXT NOT NULL,
  commit_id TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  median REAL NOT NULL,
  spread REAL NOT NULL,
  samples INTEGER NOT NULL,
  session_id INTEGER REFERENCES sessions (id),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (scenario, variant, metric)
) WITHOUT ROWID;

CREATE TABLE locks (
  name TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  acquired_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) WITHOUT ROWID;
)sql",
    // 2: the bisection journal, one row per entry of bisect/session.h's SessionJournal.
    R"sql(
CREATE TABLE journal (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  phase TEXT NOT NULL,
  commit_id TEXT NOT NULL,
  value REAL,
  status TEXT NOT NULL,
  detail TEXT NOT NULL,
  verdict TEXT CHECK (verdict IS NULL OR json_valid(verdict)),
  run_id INTEGER REFERENCES runs (id),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX journal_by_session ON journal (session_id, id);
CREATE UNIQUE INDEX journal_by_run ON journal (run_id) WHERE run_id IS NOT NULL;
)sql",
    // 3: a verdict's phase (search or confirm) had been kept as its 'reason'; a skip now says
    // why, from the journal for the skips already stored.
    R"sql(
ALTER TABLE verdicts RENAME COLUMN reason TO phase;
ALTER TABLE verdicts ADD COLUMN detail TEXT NOT NULL DEFAULT '';
UPDATE verdicts SET detail = coalesce((SELECT j.status || ': ' || j.detail FROM journal j
  WHERE j.session_id = verdicts.session_id AND j.commit_id = verdicts.commit_id
    AND j.kind = 'failure' ORDER BY j.id DESC LIMIT 1), '')
WHERE verdict = 'skip';
)sql",
    // 4: what a run measured with (vm/runner.h's RunPlace::environment), so that samples taken
    // with another kdio, guest tools or QEMU are not compared as if taken with these. Added,
    // not changed: a kbisect of schema 3 still writing this database leaves it ''.
    R"sql(
ALTER TABLE runs ADD COLUMN environment TEXT NOT NULL DEFAULT '';
)sql",
};

}  // namespace

int schema_version() {
  return static_cast<int>(kMigrations.size());
}

int database_version(sqlite3* db) {
  Statement version(db, "PRAGMA user_version");
  version.step();
  return static_cast<int>(version.int64(0));
}

void migrate(sqlite3* db) {
  for (;;) {
    // Cheap check outside a transaction first: an up-to-date database takes no write lock.
    int version = database_version(db);
    if (version > schema_version()) {
      fail(
          "database {} has schema version {}, newer than this kbisect understands ({}); "
          "use a newer kbisect or another --db",
          sqlite3_db_filename(db, "main"), version, schema_version());
    }
    if (version == schema_version()) return;
    Transaction transaction(db);
    if (database_version(db) == version) {
      execute(db, kMigrations[version]);
      // PRAGMA takes no bound values; the version is our own integer.
      execute(db, fmt::format("PRAGMA user_version={}", version + 1).c_str());
    }
    transaction.commit();
  }
}

Database up_to_date_for_reading(Database db) {
  if (database_version(db.get()) < schema_version()) {
    Database copy = copy_in_memory(db.get());
    migrate(copy.get());
    execute(copy.get(), "PRAGMA query_only=1");
    return copy;
  }
  migrate(db.get());  // writes nothing at this kbisect's schema; refuses a newer one
  return db;
}

void check_results_database(sqlite3* db, const std::filesystem::path& path) {
  std::string why = "it has no sessions, samples and sample_metrics tables";
  try {
    Statement tables(db,
                     "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name "
                     "IN ('sessions', 'samples', 'sample_metrics')");
    if (tables.step() && tables.int64(0) == 3) return;
  } catch (const Error&) {
    why = sqlite3_errmsg(db);
  }
  fail(
      "{} is not a kbisect results database ({}); pass --db with the database kbisect run or "
      "bisect wrote (results/kbisect.db unless the config's database: names another)",
      path.string(), why);
}

}  // namespace kbisect
