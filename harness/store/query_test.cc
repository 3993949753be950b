#include "store/query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/file.h"
#include "common/fork_for_test.h"
#include "common/temp_dir.h"
#include "store/older_schema.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class QueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_ / "k.db";
    Store store(db_);
    SessionRecord session;
    session.scenario = "demo";
    session.bad_ref = "HEAD";
    session_ = store.create_session(session);
    store.add_step({.session_id = session_, .step = 1, .commit = "c0ffee1", .phase = "search"});
    store.add_verdict({.session_id = session_,
                       .step = 1,
                       .commit = "c0ffee1",
                       .verdict = Verdict::kBad,
                       .p_mwu = 0.001,
                       .samples = 3,
                       .phase = "search"});
    store.add_step({.session_id = session_, .step = 2, .commit = "b0rked", .phase = "search"});
    store.add_verdict({.session_id = session_,
                       .step = 2,
                       .commit = "b0rked",
                       .verdict = Verdict::kSkip,
                       .phase = "search",
                       .detail = "build-failed: the kernel does not build"});
    store.finish_session(session_, SessionStatus::kDone,
                         R"({"culprit": "c0ffee1", "verdict": "found"})");
    for (auto [commit, iops] :
         {std::pair{"aaaa111", 100.0}, {"aaaa111", 110.0}, {"c0ffee1", 50.5}}) {
      RunRecord run;
      run.commit = commit;
      SampleRecord sample;
      sample.commit = commit;
      sample.config_hash = "cfg";
      sample.kdio_json = "{}";
      sample.metrics["read.iops"] = iops;
      store.insert_run(run, {sample});
    }
  }

  std::string query(const std::string& sql, QueryFormat format = QueryFormat::kTable) {
    std::ostringstream out;
    run_query(db_, sql, format, out);
    return out.str();
  }

  std::string error_of(const std::string& sql) {
    try {
      query(sql);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
  fs::path db_;
  int64_t session_ = 0;
};

TEST_F(QueryTest, SqlAsTable) {
  EXPECT_EQ(query("SELECT commit_id, COUNT(*) AS n FROM samples GROUP BY commit_id ORDER BY 1"),
            "commit_id  n\n"
            "---------  -\n"
            "aaaa111    2\n"
            "c0ffee1    1\n"
            "(2 rows)\n");
}

// A table is for a terminal: a cell is one line without control characters, and its width is
// counted in characters, not bytes.
TEST_F(QueryTest, TableCellsAreOneLineAndAlignedByCharacter) {
  EXPECT_EQ(query("SELECT 'caf\xc3\xa9' AS s, 1 AS n UNION ALL SELECT 'a\nb' || char(27) || "
                  "'[31m', 22 ORDER BY n"),
            "s         n\n"
            "--------  --\n"
            "caf\xc3\xa9       1\n"
            "a?b?[31m  22\n"
            "(2 rows)\n");
}

TEST_F(QueryTest, TableRoundsRealsCsvAndJsonKeepEveryDigit) {
  const std::string sql = "SELECT 0.00216450216450216 AS p, 9890.2976197598 AS v, 0.1 + 0.2 AS s";
  EXPECT_EQ(query(sql),
            "p          v       s\n"
            "---------  ------  ---\n"
            "0.0021645  9890.3  0.3\n"
            "(1 row)\n");
  EXPECT_EQ(query(sql, QueryFormat::kCsv),
            "p,v,s\r\n0.00216450216450216,9890.2976197598,0.30000000000000004\r\n");
  auto rows = nlohmann::json::parse(query(sql, QueryFormat::kJson));
  EXPECT_EQ(rows[0]["s"].get<double>(), 0.1 + 0.2);
}

TEST_F(QueryTest, CsvQuotesWhatNeedsQuoting) {
  EXPECT_EQ(query("SELECT 'a,b' AS x, 'say \"hi\"' AS y, NULL AS z, 1.5 AS w", QueryFormat::kCsv),
            "x,y,z,w\r\n\"a,b\",\"say \"\"hi\"\"\",,1.5\r\n");
}

TEST_F(QueryTest, JsonReplacesTextThatIsNotUtf8) {
  auto rows = nlohmann::json::parse(query("SELECT CAST(x'41ff' AS TEXT) AS t", QueryFormat::kJson));
  EXPECT_EQ(rows[0]["t"], "A\xef\xbf\xbd");
}

// Text is read by its length: a NUL inside it is kept (JSON escapes it), where it ended the text.
TEST_F(QueryTest, TextIsKeptWholeThroughANul) {
  auto rows = nlohmann::json::parse(query("SELECT 'a' || char(0) || 'b' AS t", QueryFormat::kJson));
  EXPECT_EQ(rows[0]["t"], std::string("a\0b", 3));
}

TEST_F(QueryTest, JsonKeepsTypes) {
  auto rows = nlohmann::json::parse(
      query("SELECT 1 AS i, 2.5 AS r, 't' AS s, NULL AS n", QueryFormat::kJson));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["i"], 1);
  EXPECT_EQ(rows[0]["r"], 2.5);
  EXPECT_EQ(rows[0]["s"], "t");
  EXPECT_TRUE(rows[0]["n"].is_null());
}

// Every column is kept, in the order selected: one object key a name kept only the last of
// two columns named alike (SELECT s.id, v.id), and the keys came out sorted.
TEST_F(QueryTest, JsonKeepsEveryColumnInOrder) {
  EXPECT_EQ(query("SELECT 2 AS b, 1 AS a, 3 AS a, 4 AS \"a:2\"", QueryFormat::kJson),
            "[\n  {\"b\": 2, \"a\": 1, \"a:2\": 3, \"a:2:2\": 4}\n]\n");
  EXPECT_EQ(query("SELECT 1 AS a WHERE 0", QueryFormat::kJson), "[]\n");
}

TEST_F(QueryTest, JsonLinesAreAnObjectARow) {
  EXPECT_EQ(query("SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, 'y'", QueryFormat::kJsonLines),
            "{\"a\": 1, \"b\": \"x\"}\n{\"a\": 2, \"b\": \"y\"}\n");
  EXPECT_EQ(query("SELECT 1 AS a WHERE 0", QueryFormat::kJsonLines), "");
}

TEST_F(QueryTest, NamedQueries) {
  auto sessions = nlohmann::json::parse(query("sessions", QueryFormat::kJson));
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["culprit"], "c0ffee1");
  EXPECT_EQ(sessions[0]["verdict"], "found");
  EXPECT_EQ(sessions[0]["status"], "done");

  auto steps = nlohmann::json::parse(query(fmt::format("steps {}", session_), QueryFormat::kJson));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0]["verdict"], "bad");
  EXPECT_EQ(steps[0]["p_mwu"], 0.001);
  EXPECT_EQ(steps[0]["phase"], "search");
  EXPECT_EQ(steps[1]["verdict"], "skip");
  EXPECT_EQ(steps[1]["detail"], "build-failed: the kernel does not build");

  auto samples = nlohmann::json::parse(query("samples aaaa", QueryFormat::kJson));
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(query("samples AAAA1", QueryFormat::kJson)).size(), 2u);
  // SQL's JSON text stays a string, also in a column named as no named query's is.
  EXPECT_EQ(nlohmann::json::parse(query("SELECT '[1]' AS \"\"", QueryFormat::kJson))[0][""], "[1]");
  // An object, not its text in a string.
  EXPECT_EQ(samples[1]["metrics"]["read.iops"], 110.0);
  const std::string lines = query("samples aaaa", QueryFormat::kJsonLines);
  EXPECT_EQ(nlohmann::json::parse(lines.substr(0, lines.find('\n')))["metrics"]["read.iops"],
            100.0);

  auto history = nlohmann::json::parse(query("  history   read.iops ", QueryFormat::kJson));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0]["commit_id"], "aaaa111");
  EXPECT_EQ(history[0]["n"], 2);
  EXPECT_EQ(history[0]["mean"], 105.0);
  EXPECT_EQ(history[1]["max"], 50.5);
}

TEST_F(QueryTest, HistoryKeepsEachHostAndAcceleratorApart) {
  {
    Store store(db_);
    SampleRecord sample{.commit = "aaaa111", .config_hash = "cfg", .accel = "kvm"};
    sample.kdio_json = "{}";
    sample.metrics["read.iops"] = 900;
    store.insert_run(RunRecord{.commit = "aaaa111"}, {sample});
  }
  auto history = nlohmann::json::parse(query("history read.iops", QueryFormat::kJson));
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0]["mean"], 105.0);
  EXPECT_EQ(history[2]["accel"], "kvm");
  EXPECT_EQ(history[2]["mean"], 900.0);
}

// As `log` and `report`: a nightly's steps are those of the bisection it ran.
TEST_F(QueryTest, StepsOfANightlyAreItsBisections) {
  int64_t nightly = 0;
  {
    Store store(db_);
    SessionRecord session;
    session.kind = SessionKind::kNightly;
    session.scenario = "demo";
    nightly = store.create_session(session);
    store.finish_session(nightly, SessionStatus::kDone,
                         fmt::format(R"({{"bisect_session": {}}})", session_));
  }
  EXPECT_EQ(query(fmt::format("steps {}", nightly)), query(fmt::format("steps {}", session_)));
  EXPECT_THAT(query(fmt::format("steps {}", nightly)), HasSubstr("(2 rows)"));
}

TEST_F(QueryTest, NamedQueryArgumentsAreChecked) {
  EXPECT_THAT(error_of("steps"),
              HasSubstr("named query 'steps' needs one SESSION: kbisect query 'steps SESSION'"));
  EXPECT_THAT(error_of("steps 1; DROP TABLE samples"), HasSubstr("needs one SESSION"));
  EXPECT_THAT(error_of("steps x"), HasSubstr("needs a session id"));
  EXPECT_THAT(error_of("sessions 3"), HasSubstr("takes no argument"));
  EXPECT_THAT(error_of("history"), HasSubstr("needs one METRIC"));
}

TEST_F(QueryTest, NamedQueryArgumentThatMatchesNothingSaysWhatThereIs) {
  EXPECT_THAT(error_of("steps 999"),
              HasSubstr(fmt::format("no session 999 in this database (the latest: {};", session_)));
  EXPECT_THAT(error_of("samples v6.1"),
              HasSubstr("no sample of a commit whose id starts with 'v6.1': give a commit id"));
  EXPECT_THAT(error_of("samples a%"), HasSubstr("holds samples of 2 commits"));  // % is no wildcard
  EXPECT_THAT(error_of("history read.iop"),
              HasSubstr("no sample has the metric 'read.iop'; the metrics measured: read.iops"));
  // A job's name may have blanks ([rand  read]): the metric is the rest of the text.
  EXPECT_THAT(error_of(" history  rand  read:read.iops "),
              HasSubstr("no sample has the metric 'rand  read:read.iops';"));
}

TEST_F(QueryTest, ReportingStatementsAreAllowed) {
  EXPECT_THAT(query("PRAGMA table_info(samples)"), HasSubstr("kdio_json"));
  EXPECT_THAT(query("PRAGMA user_version"), HasSubstr(std::to_string(schema_version())));
  EXPECT_THAT(query("WITH x AS (SELECT 41 + 1 AS v) SELECT v FROM x"), HasSubstr("42"));
  EXPECT_THAT(query("SELECT json_extract(result, '$.culprit') FROM sessions"),
              HasSubstr("c0ffee1"));
}

TEST_F(QueryTest, WritesAreRefused) {
  const char* writes[] = {
      "INSERT INTO runs (commit_id, variant, host, accel, outcome, detail, console_log) "
      "VALUES ('x', '', '', '', 'ok', '', '')",
      "REPLACE INTO locks (name, pid, host) VALUES ('x', 1, 'h')",
      "WITH v AS (SELECT 1) INSERT INTO locks (name, pid, host) SELECT 'x', 1, 'h' FROM v",
      "UPDATE sessions SET status = 'aborted'",
      "DELETE FROM samples",
      "DROP TABLE samples",
      "DROP INDEX samples_by_commit",
      "CREATE TABLE t (x)",
      "CREATE TEMP TABLE t (x)",
      "CREATE INDEX i ON samples (host)",
      "ALTER TABLE samples ADD COLUMN x",
      "ATTACH DATABASE ':memory:' AS other",
      "DETACH DATABASE main",
      "PRAGMA user_version = 5",
      "PRAGMA query_only = 0",
      "PRAGMA query_only = false",
      "PRAGMA journal_mode = delete",
      "PRAGMA foreign_keys = OFF",
      "PRAGMA wal_checkpoint(TRUNCATE)",
      "PRAGMA optimize",
      "VACUUM",
      "REINDEX",
      "ANALYZE",
  };
  for (const char* sql : writes) {
    EXPECT_THAT(error_of(sql), StartsWith("kbisect query is read-only: ")) << sql;
  }
  // SQLite alone would say only "not authorized".
  EXPECT_EQ(error_of("SELECT load_extension('x')"),
            "kbisect query is read-only: load_extension() would load code into kbisect, not read "
            "results; use a SELECT statement or a named query (sessions, steps SESSION, samples "
            "COMMIT, history METRIC)");
  EXPECT_THAT(error_of("SELECT hex(fts3_tokenizer('simple'))"),
              StartsWith("kbisect query is read-only: fts3_tokenizer() reads and sets pointers"));
  std::string vacuum_into = fmt::format("VACUUM INTO '{}'", (dir_ / "copy.db").string());
  EXPECT_THAT(error_of(vacuum_into), StartsWith("kbisect query is read-only: "));
  EXPECT_FALSE(fs::exists(dir_ / "copy.db"));
  EXPECT_THAT(error_of("SELECT 1; DELETE FROM samples"), HasSubstr("runs one statement at a time"));
  EXPECT_THAT(error_of("SELECT 1; /* c */ SELECT 2"), HasSubstr("runs one statement at a time"));
  // What follows the statement may be comments.
  for (const char* sql : {"SELECT 7 AS n; -- how many", "SELECT 7 AS n; /* done */ ;",
                          "SELECT 7 AS n -- how many\n;"}) {
    EXPECT_THAT(query(sql, QueryFormat::kCsv), HasSubstr("\r\n7\r\n")) << sql;
  }

  // Nothing changed.
  EXPECT_THAT(query("SELECT COUNT(*) AS n FROM samples", QueryFormat::kCsv),
              HasSubstr("\r\n3\r\n"));
  EXPECT_THAT(query("SELECT status FROM sessions", QueryFormat::kCsv), HasSubstr("done"));
  Database db = open_read_only(db_);
  Statement mode(db.get(), "PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
  EXPECT_THAT(query("PRAGMA user_version", QueryFormat::kCsv),
              HasSubstr(std::to_string(schema_version())));
  EXPECT_THAT(query("SELECT COUNT(*) FROM sqlite_master WHERE name = 'samples'", QueryFormat::kCsv),
              HasSubstr("\r\n1\r\n"));
  // Table-valued pragmas: SQLite asks the authorizer about an UPDATE of sqlite_master for them.
  EXPECT_THAT(query("SELECT user_version FROM pragma_user_version", QueryFormat::kCsv),
              HasSubstr(std::to_string(schema_version())));
  EXPECT_THAT(
      query("SELECT name FROM pragma_table_info('sessions') WHERE cid = 0", QueryFormat::kCsv),
      HasSubstr("\r\nid\r\n"));
}

// The refusal names the statement and what it would change, not only that it would write.
TEST_F(QueryTest, ARefusedWriteSaysWhatItWouldChange) {
  auto refusal = [](const std::string& why) {
    return StartsWith("kbisect query is read-only: " + why + "; use a SELECT statement");
  };
  EXPECT_THAT(error_of("INSERT INTO locks (name, pid, host) VALUES ('x', 1, 'h')"),
              refusal("INSERT into locks is not allowed"));
  EXPECT_THAT(error_of("UPDATE sessions SET status = 'aborted'"),
              refusal("UPDATE of sessions is not allowed"));
  EXPECT_THAT(error_of("DELETE FROM samples"), refusal("DELETE from samples is not allowed"));
  EXPECT_THAT(error_of("PRAGMA user_version = 5"),
              refusal("PRAGMA user_version = 5 changes the database"));
  EXPECT_THAT(error_of("DROP TABLE samples"),
              refusal("schema changes (CREATE, DROP, ALTER) are not allowed"));
  EXPECT_THAT(error_of("ALTER TABLE samples ADD COLUMN x"),
              refusal("schema changes (CREATE, DROP, ALTER) are not allowed"));
  EXPECT_THAT(error_of("UPDATE sqlite_master SET sql = 'x'"),
              HasSubstr("table sqlite_master may not be modified"));
  // Refused as it runs, not as it is prepared.
  EXPECT_THAT(error_of("SELECT * FROM pragma_optimize"), refusal("PRAGMA optimize is not allowed"));
}

// Ctrl-C's handler only records the signal: the query must look for it, also inside one step
// (count(*) reads all of its million rows in its one step). In a child process, the signal's.
TEST_F(QueryTest, AnInterruptStopsTheStatementItCameIn) {
  pid_t child = fork_running([&] {
    ::raise(SIGINT);
    query(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000) "
        "SELECT count(*) FROM c",
        QueryFormat::kCsv);
  });
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(ended_interrupted(status)) << status;
}

TEST_F(QueryTest, AWordThatIsNoNamedQueryListsThem) {
  EXPECT_EQ(error_of("sessionz"),
            "'sessionz' is not a named query (did you mean 'sessions'?); the named queries are "
            "sessions, steps SESSION, samples COMMIT, history METRIC (anything else is read as "
            "SQL)");
  EXPECT_THAT(error_of(" frobnicate "), StartsWith("'frobnicate' is not a named query; the"));
}

// SQLite alone says "file is not a database" or "no such table: sessions", without the file.
TEST_F(QueryTest, AFileThatIsNoResultsDatabaseIsNamed) {
  auto error_with = [&](const fs::path& file) {
    try {
      std::ostringstream out;
      run_query(file, "sessions", QueryFormat::kTable, out);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const fs::path text = dir_ / "notes.txt";
  write_file(text, std::string(4096, 'x'));
  EXPECT_THAT(error_with(text),
              StartsWith(text.string() + " is not a kbisect results database (file is not a "
                                         "database); pass --db with the database"));
  const fs::path empty = dir_ / "empty.db";
  write_file(empty, "");
  EXPECT_THAT(error_with(empty),
              StartsWith(empty.string() + " is not a kbisect results database (it has no "
                                          "sessions, samples and sample_metrics tables)"));
  const fs::path other = dir_ / "other.db";
  {
    Database db = open_read_write(other);
    execute(db.get(), "CREATE TABLE sessions (x)");
  }
  EXPECT_THAT(error_with(other), HasSubstr(" is not a kbisect results database"));
}

// The named queries read this kbisect's tables: an older database's from a copy brought up to
// date (the file keeps its schema), a newer one's not at all. SQL reads whatever the file has.
TEST_F(QueryTest, NamedQueriesReadAnOlderDatabaseAndRefuseANewerOne) {
  downgrade(db_, 1);
  const std::string steps = query("steps 1", QueryFormat::kCsv);
  EXPECT_THAT(steps, HasSubstr(",phase,detail\r\n"));
  EXPECT_THAT(steps, HasSubstr("c0ffee1"));
  EXPECT_THAT(query("SELECT user_version FROM pragma_user_version", QueryFormat::kCsv),
              HasSubstr("\r\n1\r\n"));
  EXPECT_THAT(error_of("SELECT phase FROM verdicts"), HasSubstr("no such column: phase"));
  EXPECT_THAT(query("SELECT count(*) AS n FROM sessions", QueryFormat::kCsv),
              HasSubstr("\r\n1\r\n"));
  {
    Database db = open_read_write(db_);
    execute(db.get(), fmt::format("PRAGMA user_version = {}", schema_version() + 1).c_str());
  }
  EXPECT_THAT(error_of("sessions"), HasSubstr("a newer kbisect wrote it, whose query reads it"));
}

TEST_F(QueryTest, OtherErrorsAreClear) {
  EXPECT_THAT(error_of("SELECT nope FROM samples"),
              HasSubstr("kbisect query: no such column: nope"));
  EXPECT_THAT(error_of("   "), HasSubstr("no SQL statement given"));
  EXPECT_THROW(parse_query_format("xml"), Error);
  EXPECT_EQ(parse_query_format("csv"), QueryFormat::kCsv);
  std::ostringstream out;
  EXPECT_THROW(run_query(dir_ / "missing.db", "sessions", QueryFormat::kTable, out), Error);
  EXPECT_FALSE(fs::exists(dir_ / "missing.db"));  // a query never creates a database
}

}  // namespace
}  // namespace kbisect
