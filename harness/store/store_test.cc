#include "store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "common/error.h"
#include "common/file.h"
#include "common/temp_dir.h"
#include "store/older_schema.h"
#include "store/schema.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { db_path_ = dir_ / "sub/dir/k.db"; }

  // Reads one integer with a plain read-only connection, independent of Store.
  int64_t count(const std::string& sql) {
    Database db = open_read_only(db_path_);
    Statement statement(db.get(), sql);
    EXPECT_TRUE(statement.step());
    return statement.int64(0);
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
  fs::path db_path_;
};

RunRecord a_run(const std::string& commit, Outcome outcome = Outcome::kOk) {
  RunRecord run;
  run.commit = commit;
  run.variant = "nolock";
  run.host = "h1";
  run.accel = "tcg";
  run.outcome = outcome;
  run.boot_seconds = 1.5;
  run.workload_seconds = 10;
  run.console_log = "/logs/console.txt";
  run.environment = "initramfs-1-2; QEMU 7.2";
  return run;
}

SampleRecord a_sample(const std::string& commit, double iops, int metrics = 1) {
  SampleRecord sample;
  sample.commit = commit;
  sample.tree_id = "tree-" + commit;
  sample.config_hash = "cfg";
  sample.variant = "nolock";
  sample.host = "h1";
  sample.accel = "tcg";
  sample.boot_seconds = 1.5;
  sample.kdio_json = R"({"jobs": [{"jobname": "r", "read": {"iops": 1}}]})";
  sample.metrics["read.iops"] = iops;
  for (int i = 1; i < metrics; ++i) sample.metrics[fmt::format("m{}", i)] = i;
  return sample;
}

TEST(SessionName, AnIdOrTheNewest) {
  EXPECT_EQ(parse_session_name("12")->id, 12);
  EXPECT_FALSE(parse_session_name("12")->newest);
  EXPECT_TRUE(parse_session_name("last")->newest);
  EXPECT_TRUE(parse_session_name("latest")->newest);
  for (const char* bad : {"", "0", "-3", "1x", " 1", "Last", "99999999999999999999"}) {
    EXPECT_FALSE(parse_session_name(bad)) << bad;
  }
}

TEST_F(StoreTest, MigratesAnEmptyDatabaseAndReopens) {
  { Store store(db_path_); }
  EXPECT_TRUE(fs::exists(db_path_));
  EXPECT_EQ(count("PRAGMA user_version"), schema_version());
  EXPECT_EQ(count("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"), 11);
  Store again(db_path_);  // idempotent: nothing to migrate, nothing fails
  EXPECT_EQ(count("PRAGMA user_version"), schema_version());
  Database db = open_read_only(db_path_);
  Statement mode(db.get(), "PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
}

// A command that fails before it stores anything (a mistyped ref, a --db in the wrong place)
// leaves neither the database nor its directory behind; the first use makes both.
TEST_F(StoreTest, ADatabaseCreatedWhenUsedIsNotMadeBefore) {
  Store store = Store::created_when_used(db_path_);
  EXPECT_FALSE(fs::exists(dir_ / "sub"));
  EXPECT_TRUE(store.sessions().empty());
  EXPECT_EQ(count("PRAGMA user_version"), schema_version());
}

// One that exists is checked at once, before the command does anything.
TEST_F(StoreTest, ADatabaseCreatedWhenUsedIsCheckedAtOnceIfItExists) {
  const fs::path other = dir_ / "other.db";
  {
    Database db = open_read_write(other);
    execute(db.get(), "CREATE TABLE t (x)");
  }
  EXPECT_THROW(Store::created_when_used(other), Error);
}

TEST_F(StoreTest, MigratesAnExistingEmptyFile) {
  fs::create_directories(db_path_.parent_path());
  std::ofstream(db_path_).close();
  Store store(db_path_);
  EXPECT_EQ(count("PRAGMA user_version"), schema_version());
}

TEST_F(StoreTest, UpgradesAnOlderSchema) {
  {
    Store store(db_path_);
    SessionRecord session;
    session.scenario = "kept";
    store.create_session(session);
  }
  downgrade(db_path_, 1);
  Store store(db_path_);
  EXPECT_EQ(count("PRAGMA user_version"), schema_version());
  EXPECT_EQ(count("SELECT COUNT(*) FROM sqlite_master WHERE name = 'journal'"), 1);
  EXPECT_EQ(store.sessions().at(0).scenario, "kept");
}

TEST_F(StoreTest, UpgradeGivesStoredSkipsTheirReason) {
  int64_t session = 0;
  {
    Store store(db_path_);
    session = store.create_session(SessionRecord{});
    store.add_step({.session_id = session, .step = 1, .commit = "c1", .phase = "search"});
    store.add_verdict({.session_id = session,
                       .step = 1,
                       .commit = "c1",
                       .verdict = Verdict::kSkip,
                       .phase = "search"});
    store.append_journal({.session_id = session,
                          .kind = "failure",
                          .phase = "search",
                          .commit = "c1",
                          .status = "build-failed",
                          .detail = "the kernel does not build"});
  }
  downgrade(db_path_, 2);
  Store store(db_path_);
  EXPECT_EQ(count("SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'environment'"), 1);
  auto verdicts = store.verdicts_of(session);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].phase, "search");
  EXPECT_EQ(verdicts[0].detail, "build-failed: the kernel does not build");
}

// report and log read an older database through a copy in memory brought up to date: the file
// keeps the schema that an older kbisect, which may still be writing it, expects.
TEST_F(StoreTest, ReadingAnOlderDatabaseLeavesItsSchemaAsItIs) {
  int64_t session = 0;
  {
    Store store(db_path_);
    session = store.create_session(SessionRecord{.scenario = "kept"});
    store.add_step({.session_id = session, .step = 1, .commit = "c1", .phase = "search"});
    store.add_verdict({.session_id = session,
                       .step = 1,
                       .commit = "c1",
                       .verdict = Verdict::kGood,
                       .phase = "search"});
  }
  downgrade(db_path_, 1);
  Store reader = Store::for_reading(db_path_);
  EXPECT_EQ(reader.sessions().at(0).scenario, "kept");
  ASSERT_EQ(reader.verdicts_of(session).size(), 1u);
  EXPECT_EQ(reader.verdicts_of(session)[0].phase, "search");
  EXPECT_TRUE(reader.journal_of(session).empty());
  EXPECT_EQ(count("PRAGMA user_version"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM sqlite_master WHERE name = 'journal'"), 0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM pragma_table_info('verdicts') WHERE name = 'reason'"), 1);
}

TEST_F(StoreTest, RefusesADatabaseFromANewerKbisect) {
  {
    Database db = open_read_write(db_path_);
    execute(db.get(), "PRAGMA user_version = 99");
  }
  try {
    Store store(db_path_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("schema version 99, newer than this kbisect understands"));
  }
  const fs::path newer = dir_ / "newer.db";  // with kbisect's tables, which report reads
  { Store store(newer); }
  execute(open_read_write(newer).get(), "PRAGMA user_version = 99");
  try {
    Store::for_reading(newer);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("schema version 99, newer than this kbisect understands"));
  }
}

TEST_F(StoreTest, ReadOnlyOpenOfAMissingDatabaseSaysWhatToDo) {
  try {
    open_read_only(dir_ / "none.db");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("none.db; run kbisect run or bisect first, or pass --db FILE"));
  }
}

TEST_F(StoreTest, BuildsAreReadBack) {
  Store store(db_path_);
  BuildRecord failed{.commit = "c1",
                     .tree_id = "t1",
                     .config_hash = "k1",
                     .compiler = "gcc 12",
                     .outcome = Outcome::kBuildFailed,
                     .seconds = 3,
                     .log_tail = "error: x"};
  int64_t first = store.insert_build(failed);
  BuildRecord ok = failed;
  ok.outcome = Outcome::kOk;
  ok.image_sha256 = "abc";
  int64_t second = store.insert_build(ok);
  EXPECT_NE(first, second);
  auto found = store.build(second);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->tree_id, "t1");
  EXPECT_EQ(found->compiler, "gcc 12");
  EXPECT_EQ(found->image_sha256, "abc");
  EXPECT_EQ(found->outcome, Outcome::kOk);
  EXPECT_FALSE(found->created_at.empty());
  EXPECT_FALSE(store.build(second + 1));
  EXPECT_EQ(store.build(first)->log_tail, "error: x");
  // A successful build without an image is refused by the schema.
  ok.image_sha256.reset();
  EXPECT_THROW(store.insert_build(ok), Error);
}

TEST_F(StoreTest, RunsAndSamplesAreReadBackByCommitTreeImageAndSession) {
  Store store(db_path_);
  BuildRecord build{.commit = "c1",
                    .tree_id = "tree-c1",
                    .config_hash = "k",
                    .compiler = "gcc",
                    .image_sha256 = "img1",
                    .outcome = Outcome::kOk};
  int64_t build_id = store.insert_build(build);
  SessionRecord session;
  session.scenario = "demo";
  int64_t session_id = store.create_session(session);

  RunRecord run = a_run("c1");
  run.session_id = session_id;
  run.build_id = build_id;
  std::vector<SampleRecord> samples = {a_sample("c1", 100, 3), a_sample("c1", 110, 3)};
  for (auto& sample : samples) sample.build_id = build_id;
  samples[1].session_id = session_id;
  int64_t run_id = store.insert_run(run, samples);
  store.insert_run(a_run("c2"), {a_sample("c2", 50)});

  EXPECT_EQ(
      store.samples_for({.commit = "c1", .config_hash = "cfg", .variant = "nolock"}, "read.iops"),
      (std::vector<double>{100, 110}));
  EXPECT_EQ(store.samples_for({.commit = "c1", .config_hash = "cfg", .variant = "nolock"}, "m2"),
            (std::vector<double>{2, 2}));
  EXPECT_EQ(store.samples_for({.image_sha256 = "img1", .config_hash = "cfg", .variant = "nolock"},
                              "read.iops"),
            (std::vector<double>{100, 110}));
  EXPECT_EQ(
      store.samples_for(
          {.commit = "c1", .config_hash = "cfg", .variant = "nolock", .session_id = session_id},
          "read.iops"),
      (std::vector<double>{110}));
  EXPECT_TRUE(
      store.samples_for({.commit = "c1", .config_hash = "other", .variant = "nolock"}, "read.iops")
          .empty());
  EXPECT_TRUE(store.samples_for({.commit = "c1", .config_hash = "cfg", .variant = ""}, "read.iops")
                  .empty());
  EXPECT_THROW(store.samples_for({.config_hash = "cfg"}, "read.iops"), Error);

  // Only the samples of one place, when the filter names it.
  SampleRecord under_kvm = a_sample("c1", 300);
  under_kvm.accel = "kvm";
  SampleRecord elsewhere = a_sample("c1", 200);
  elsewhere.host = "h2";
  store.insert_run(a_run("c1"), {under_kvm, elsewhere});
  const SampleFilter of_c1{.commit = "c1", .config_hash = "cfg", .variant = "nolock"};
  SampleFilter placed = of_c1;
  placed.host = "h1";
  placed.accel = "tcg";
  EXPECT_EQ(store.samples_for(placed, "read.iops"), (std::vector<double>{100, 110}));
  placed.accel = "kvm";
  EXPECT_EQ(store.samples_for(placed, "read.iops"), (std::vector<double>{300}));
  placed.host = "h2";
  placed.accel = "tcg";
  EXPECT_EQ(store.samples_for(placed, "read.iops"), (std::vector<double>{200}));
  EXPECT_EQ(store.samples_for(of_c1, "read.iops"), (std::vector<double>{100, 110, 300, 200}));

  // Only the samples of runs with one environment (guest image and QEMU), when the filter
  // names it.
  RunRecord with_other_qemu = a_run("c1");
  with_other_qemu.environment = "initramfs-a-b; QEMU 8.0";
  store.insert_run(with_other_qemu, {a_sample("c1", 400)});
  SampleFilter in_environment = of_c1;
  in_environment.environment = "initramfs-a-b; QEMU 8.0";
  EXPECT_EQ(store.samples_for(in_environment, "read.iops"), (std::vector<double>{400}));
  in_environment.environment = "initramfs-a-b; QEMU 7.2";
  EXPECT_TRUE(store.samples_for(in_environment, "read.iops").empty());

  auto of_run = store.samples_of_run(run_id);
  ASSERT_EQ(of_run.size(), 2u);
  EXPECT_EQ(of_run[0].run_id, run_id);
  EXPECT_EQ(of_run[0].metrics, samples[0].metrics);
  EXPECT_FALSE(of_run[0].session_id);
  EXPECT_EQ(of_run[1].session_id, session_id);
  EXPECT_EQ(of_run[0].kdio_json, samples[0].kdio_json);
  EXPECT_EQ(of_run[1].metrics, samples[1].metrics);
  EXPECT_TRUE(store.samples_of_run(run_id + 1000).empty());
  auto runs = store.runs_of_session(session_id);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].build_id, build_id);
  EXPECT_EQ(runs[0].environment, "initramfs-1-2; QEMU 7.2");
  EXPECT_EQ(runs[0].boot_seconds, 1.5);
}

TEST_F(StoreTest, ASessionsRunsAndSampleMetricsAreReadBackInOrder) {
  Store store(db_path_);
  SessionRecord session;
  session.scenario = "demo";
  int64_t session_id = store.create_session(session);
  int64_t other_session = store.create_session(session);

  RunRecord run = a_run("c1");
  run.session_id = session_id;
  std::vector<SampleRecord> samples = {a_sample("c1", 100, 2), a_sample("c1", 110, 2)};
  for (auto& sample : samples) sample.session_id = session_id;
  int64_t first_run = store.insert_run(run, samples);
  run.commit = "c2";
  run.outcome = Outcome::kBootFailed;
  run.detail = "no console";
  int64_t failed_run = store.insert_run(run);
  RunRecord elsewhere = a_run("c1");
  elsewhere.session_id = other_session;
  SampleRecord other_sample = a_sample("c1", 1);
  other_sample.session_id = other_session;
  store.insert_run(elsewhere, {other_sample});

  auto runs = store.runs_of_session(session_id);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, first_run);
  EXPECT_EQ(runs[1].id, failed_run);
  EXPECT_EQ(runs[1].outcome, Outcome::kBootFailed);
  EXPECT_EQ(runs[1].detail, "no console");

  auto metrics = store.sample_metrics_of_session(session_id);
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].run_id, first_run);
  EXPECT_EQ(metrics[0].commit, "c1");
  EXPECT_EQ(metrics[0].variant, "nolock");
  EXPECT_EQ(metrics[0].metrics, samples[0].metrics);
  EXPECT_EQ(metrics[1].metrics.at("read.iops"), 110);
  EXPECT_LT(metrics[0].sample_id, metrics[1].sample_id);
  EXPECT_TRUE(store.sample_metrics_of_session(other_session + 1).empty());
}

TEST_F(StoreTest, AFailedWriteLeavesNothingBehind) {
  Store store(db_path_);
  SampleRecord broken = a_sample("c1", 1);
  broken.kdio_json = "{not json";
  EXPECT_THROW(store.insert_run(a_run("c1"), {a_sample("c1", 1), broken}), Error);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples"), 0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM sample_metrics"), 0);
  // The store is usable afterwards (the transaction was rolled back, not left open).
  store.insert_run(a_run("c1"), {a_sample("c1", 1)});
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples"), 1);
}

// git allows a branch name that is not UTF-8; a session keeps its refs as text (JSON).
TEST_F(StoreTest, ASessionWhoseRefIsNotUtf8IsRefusedWithWhatToGiveInstead) {
  Store store(db_path_);
  for (const auto& session : {SessionRecord{.good_refs = {"v\xe9good"}, .bad_ref = "main"},
                              SessionRecord{.good_refs = {"v1"}, .bad_ref = "b\xff"}}) {
    try {
      store.create_session(session);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("is not UTF-8 text"));
      EXPECT_THAT(error.what(), HasSubstr("give its commit id instead"));
    }
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM sessions"), 0);
}

// Another program's database given to --db by mistake: refused before anything is written,
// whatever schema version it sets (a newer one was refused as a newer kbisect's, after the
// switch to WAL; an older one had kbisect's migrations run on it).
TEST_F(StoreTest, AnotherProgramsDatabaseIsRefusedAndLeftAsItIs) {
  fs::create_directories(db_path_.parent_path());
  for (int version : {0, 2, 7}) {
    fs::remove(db_path_);
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db_path_.c_str(), &raw), SQLITE_OK);
    Database other(raw);
    execute(other.get(), "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    execute(other.get(), fmt::format("PRAGMA user_version={}", version).c_str());
    other.reset();
    const std::string before = read_file(db_path_);
    try {
      Store store(db_path_);
      ADD_FAILURE() << "opened another program's database of version " << version;
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("is not a kbisect results database (it holds other "
                                          "tables: customers)"));
    }
    EXPECT_EQ(read_file(db_path_), before) << version;
    EXPECT_FALSE(std::filesystem::exists(db_path_.string() + "-wal"));
  }
}

// SQLite takes a name that starts with "file:" for a URI; --db names a file.
TEST_F(StoreTest, APathThatLooksLikeAUriIsAFile) {
  const fs::path working_directory = fs::current_path();
  fs::current_path(temp_.path());
  { Store store("file:m.db?mode=memory"); }
  fs::current_path(working_directory);
  EXPECT_TRUE(fs::is_regular_file(temp_.path() / "file:m.db?mode=memory"));
}

TEST_F(StoreTest, FailedOutcomesAreRecorded) {
  Store store(db_path_);
  RunRecord run = a_run("c9", Outcome::kBootFailed);
  run.session_id = store.create_session(SessionRecord{.scenario = "demo"});
  run.boot_seconds.reset();
  run.detail = "Kernel panic - not syncing";
  store.insert_run(run);
  auto runs = store.runs_of_session(*run.session_id);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].outcome, Outcome::kBootFailed);
  EXPECT_FALSE(runs[0].boot_seconds);
  EXPECT_EQ(runs[0].detail, "Kernel panic - not syncing");
}

TEST_F(StoreTest, SessionsStepsAndVerdicts) {
  Store store(db_path_);
  SessionRecord session;
  session.kind = SessionKind::kBisect;
  session.scenario = "demo";
  session.config_path = "/c.yaml";
  session.config_hash = "cfg";
  session.good_refs = {"v6.0", "v5.19"};
  session.good_commits = {"aaa", "bbb"};
  session.bad_ref = "HEAD";
  session.bad_commit = "ccc";
  session.strategy = "adaptive";
  session.options_json = R"({"paths":["fs/ext4"]})";
  int64_t id = store.create_session(session);
  int64_t other = store.create_session(session);

  store.set_candidates(id, {"c3", "c2", "c1"});
  store.set_candidates(id, {"c2", "c1"});
  EXPECT_EQ(store.candidates_of(id), (std::vector<std::string>{"c2", "c1"}));

  store.add_step(
      {.session_id = id, .step = 1, .commit = "c2", .phase = "search", .candidates_left = 2});
  store.add_step(
      {.session_id = id, .step = 2, .commit = "c1", .phase = "search", .candidates_left = 1});
  EXPECT_THROW(store.add_step({.session_id = id, .step = 2, .commit = "c9"}), Error);  // step taken
  store.add_verdict({.session_id = id,
                     .step = 1,
                     .commit = "c2",
                     .verdict = Verdict::kUndecided,
                     .p_mwu = 0.2,
                     .p_ks = 0.3,
                     .effect = -0.01,
                     .samples = 3,
                     .good_samples = 3,
                     .bad_samples = 3,
                     .phase = "search"});
  store.add_verdict({.session_id = id,
                     .step = 1,
                     .commit = "c2",
                     .verdict = Verdict::kBad,
                     .p_mwu = 0.001,
                     .samples = 6,
                     .phase = "confirm"});
  store.add_verdict({.session_id = id,
                     .step = 2,
                     .commit = "c1",
                     .verdict = Verdict::kSkip,
                     .phase = "search",
                     .detail = "build-failed: the kernel does not build"});
  // A verdict for a step that does not exist is refused.
  EXPECT_THROW(store.add_verdict({.session_id = id, .step = 7, .commit = "c2"}), Error);

  auto steps = store.steps_of(id);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].commit, "c2");
  EXPECT_EQ(steps[1].candidates_left, 1);
  auto verdicts = store.verdicts_of(id);
  ASSERT_EQ(verdicts.size(), 3u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kUndecided);
  EXPECT_EQ(verdicts[0].p_ks, 0.3);
  EXPECT_EQ(verdicts[1].verdict, Verdict::kBad);
  EXPECT_FALSE(verdicts[1].p_ks);
  EXPECT_EQ(verdicts[1].phase, "confirm");
  EXPECT_EQ(verdicts[2].detail, "build-failed: the kernel does not build");
  EXPECT_EQ(verdicts[1].step, 1);
  EXPECT_TRUE(store.steps_of(other).empty());

  EXPECT_EQ(store.session(id)->status, SessionStatus::kRunning);
  EXPECT_THROW(store.finish_session(id, SessionStatus::kDone, "{broken"), Error);
  store.finish_session(id, SessionStatus::kDone, R"({"culprit": "c2", "verdict": "found"})");
  auto done = store.session(id);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, SessionStatus::kDone);
  EXPECT_FALSE(done->finished_at.empty());
  EXPECT_EQ(done->good_refs, session.good_refs);
  EXPECT_EQ(done->good_commits, session.good_commits);
  EXPECT_EQ(done->bad_commit, "ccc");
  EXPECT_EQ(done->options_json, session.options_json);
  EXPECT_THROW(store.finish_session(999, SessionStatus::kDone, ""), Error);

  auto all = store.sessions();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, other);  // newest first
  EXPECT_FALSE(store.session(12345));
}

TEST_F(StoreTest, JournalAndTheRunsItHasNotSeen) {
  Store store(db_path_);
  SessionRecord session;
  int64_t id = store.create_session(session);
  RunRecord run = a_run("c1");
  run.session_id = id;
  int64_t measured = store.insert_run(run, {a_sample("c1", 123)});
  RunRecord failed = a_run("c2", Outcome::kBuildFailed);
  failed.session_id = id;
  failed.detail = "error: x";
  int64_t broken = store.insert_run(failed);
  store.insert_run(a_run("c3"));  // another session's (none): never reported
  RunRecord no_vm = a_run("c5", Outcome::kInfraError);
  no_vm.session_id = id;
  store.insert_run(no_vm);  // says nothing of c5: never reported, c5 is measured again

  store.append_journal(
      {.session_id = id, .kind = "endpoints-ok", .phase = "search", .commit = "c0"});
  store.append_journal({.session_id = id,
                        .kind = "sample",
                        .phase = "search",
                        .commit = "c1",
                        .value = 123,
                        .run_id = measured});
  // Each run is journaled once.
  EXPECT_THROW(store.append_journal(
                   {.session_id = id, .kind = "sample", .commit = "c1", .run_id = measured}),
               Error);
  auto runs = store.unjournaled_runs(id, "read.iops");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_id, broken);
  EXPECT_EQ(runs[0].commit, "c2");
  EXPECT_EQ(runs[0].outcome, Outcome::kBuildFailed);
  EXPECT_EQ(runs[0].detail, "error: x");
  EXPECT_FALSE(runs[0].value);

  store.append_journal({.session_id = id,
                        .kind = "failure",
                        .phase = "search",
                        .commit = "c2",
                        .status = "build-failed",
                        .run_id = broken});
  store.append_journal({.session_id = id,
                        .kind = "verdict",
                        .phase = "confirm",
                        .commit = "c1",
                        .verdict_json = R"({"kind": "bad"})"});
  EXPECT_TRUE(store.unjournaled_runs(id, "read.iops").empty());
  auto journal = store.journal_of(id);
  ASSERT_EQ(journal.size(), 4u);
  EXPECT_EQ(journal[0].kind, "endpoints-ok");
  EXPECT_FALSE(journal[0].run_id);
  EXPECT_EQ(journal[1].value, 123);
  EXPECT_EQ(journal[1].run_id, measured);
  EXPECT_EQ(journal[2].status, "build-failed");
  EXPECT_EQ(journal[3].verdict_json, R"({"kind": "bad"})");
  EXPECT_EQ(journal[3].phase, "confirm");

  // A run whose journal entry was lost reports its sample's value.
  RunRecord again = a_run("c4");
  again.session_id = id;
  store.insert_run(again, {a_sample("c4", 77)});
  runs = store.unjournaled_runs(id, "read.iops");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].value, 77);
  EXPECT_FALSE(store.unjournaled_runs(id, "write.iops")[0].value);
}

TEST_F(StoreTest, BaselinesAreReplaced) {
  Store store(db_path_);
  BaselineRecord baseline{.scenario = "demo",
                          .variant = "",
                          .metric = "read.iops",
                          .commit = "c1",
                          .config_hash = "cfg",
                          .median = 100,
                          .spread = 5,
                          .samples = 5};
  store.set_baseline(baseline);
  baseline.commit = "c2";
  baseline.median = 90;
  store.set_baseline(baseline);
  auto read = store.baseline("demo", "");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->commit, "c2");
  EXPECT_EQ(read->median, 90);
  EXPECT_EQ(read->metric, "read.iops");
  EXPECT_FALSE(store.baseline("demo", "other-variant"));
  EXPECT_FALSE(store.baseline("other", ""));
}

// The scenario's metrics reordered: the last baseline stored is found under its old metric.
TEST_F(StoreTest, TheLastBaselineIsFoundUnderWhicheverMetricItWasStored) {
  Store store(db_path_);
  BaselineRecord baseline{.scenario = "demo", .metric = "read.iops", .commit = "c1"};
  store.set_baseline(baseline);
  ::usleep(2000);  // updated_at counts milliseconds
  baseline.metric = "read.clat_ns.mean";
  baseline.commit = "c2";
  store.set_baseline(baseline);
  EXPECT_EQ(store.baseline("demo", "")->commit, "c2");
  EXPECT_EQ(store.baseline("demo", "")->metric, "read.clat_ns.mean");
}

// Runs `body` in a forked child with its own connection; returns its exit status.
pid_t fork_child(const std::function<void()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    int code = 0;
    try {
      body();
    } catch (const std::exception& e) {
      fprintf(stderr, "child: %s\n", e.what());
      code = 1;
    }
    _exit(code);
  }
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(StoreTest, LocksExcludeOthersAndStaleOnesAreTakenOver) {
  // The child takes the lock and dies without releasing it.
  pid_t child = fork_child([&] {
    Store store(db_path_);
    if (!store.try_lock("nightly:demo").acquired) throw Error("lock not taken");
  });
  ASSERT_EQ(wait_exit_code(child), 0);
  Store store(db_path_);
  EXPECT_FALSE(store.live_holder("nightly:demo"));  // a report: nobody runs it any more
  EXPECT_FALSE(store.live_holder("nightly:other"));
  LockAttempt taken = store.try_lock("nightly:demo");  // its holder is gone
  EXPECT_TRUE(taken.acquired);
  ASSERT_TRUE(store.live_holder("nightly:demo"));
  EXPECT_EQ(store.live_holder("nightly:demo")->pid, getpid());
  ASSERT_TRUE(taken.holder);
  EXPECT_EQ(taken.holder->pid, child);
  LockAttempt again = store.try_lock("nightly:demo");  // now held by a live process: us
  EXPECT_FALSE(again.acquired);
  ASSERT_TRUE(again.holder);
  EXPECT_EQ(again.holder->pid, getpid());
  EXPECT_FALSE(again.holder->acquired_at.empty());
  store.unlock("nightly:demo");
  LockAttempt free = store.try_lock("nightly:demo");
  EXPECT_TRUE(free.acquired);
  EXPECT_FALSE(free.holder);  // nobody held it: nothing was taken over
}

TEST_F(StoreTest, ConcurrentWritersFromTwoProcessesLoseNothing) {
  constexpr int kRuns = 150;
  std::vector<pid_t> children;
  for (const char* host : {"writer-a", "writer-b"}) {
    children.push_back(fork_child([&, host] {
      Store store(db_path_);  // both migrate the new database at the same time
      for (int i = 0; i < kRuns; ++i) {
        RunRecord run = a_run(fmt::format("c{}", i % 7));
        run.host = host;
        SampleRecord sample = a_sample(run.commit, i, 5);
        sample.host = host;
        store.insert_run(run, {sample});
      }
    }));
  }
  for (pid_t child : children) EXPECT_EQ(wait_exit_code(child), 0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 2 * kRuns);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples WHERE host = 'writer-a'"), kRuns);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples WHERE host = 'writer-b'"), kRuns);
  EXPECT_EQ(count("SELECT COUNT(*) FROM sample_metrics"), 2 * kRuns * 5);
  EXPECT_EQ(
      count("SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.host != s.host"),
      0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
}

TEST_F(StoreTest, AWriterKilledMidTransactionLeavesNoHalfRows) {
  // Each transaction is a run with many samples and metrics, so a kill almost always lands
  // inside one; the check holds whenever it lands.
  constexpr int kSamplesPerRun = 20;
  constexpr int kMetrics = 50;
  { Store store(db_path_); }
  for (int round = 0; round < 4; ++round) {
    int64_t before = count("SELECT COUNT(*) FROM runs");
    pid_t child = fork_child([&] {
      Store store(db_path_);
      std::vector<SampleRecord> samples(kSamplesPerRun, a_sample("c1", 1, kMetrics));
      for (;;) store.insert_run(a_run("c1"), samples);
    });
    // Kill once this child has committed something, at a different point each round.
    while (count("SELECT COUNT(*) FROM runs") <= before)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * round));
    kill(child, SIGKILL);
    EXPECT_EQ(wait_exit_code(child), 128 + SIGKILL);

    Store store(db_path_);  // recovers the WAL and can write again
    store.insert_run(a_run("c2"));
    EXPECT_EQ(count("SELECT COUNT(*) FROM samples") % kSamplesPerRun, 0);
    EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT r.id FROM runs r LEFT JOIN samples s "
                    "ON s.run_id = r.id WHERE r.commit_id = 'c1' GROUP BY r.id "
                    "HAVING COUNT(s.id) != 20)"),
              0);
    EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT s.id FROM samples s LEFT JOIN sample_metrics m "
                    "ON m.sample_id = s.id GROUP BY s.id HAVING COUNT(m.metric) != 50)"),
              0);
    EXPECT_EQ(count("SELECT COUNT(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"),
              0);
  }
}

TEST(SkipReason, IsTheDetailOfTheCommitsLastSkip) {
  std::vector<VerdictRecord> verdicts(4);
  verdicts[0] = {.commit = "a", .verdict = Verdict::kSkip, .detail = "boot-failed: panic"};
  verdicts[1] = {.commit = "b", .verdict = Verdict::kSkip, .detail = "build-failed: x.c:1: error"};
  verdicts[2] = {.commit = "a", .verdict = Verdict::kSkip, .detail = "boot-failed: timeout"};
  verdicts[3] = {.commit = "c", .verdict = Verdict::kSkip};
  EXPECT_EQ(skip_reason(verdicts, "a"), "boot-failed: timeout");
  EXPECT_EQ(skip_reason(verdicts, "b"), "build-failed: x.c:1: error");
  EXPECT_EQ(skip_reason(verdicts, "c"), "no reason stored");
  EXPECT_EQ(skip_reason(verdicts, "d"), "no reason stored");
}

TEST(TestedMergeBases, AreTheSearchsCommitsThatAreNeitherCandidatesNorEndpoints) {
  SessionRecord session{.good_commits = {"g1", "g2"}, .bad_commit = "b"};
  const std::vector<std::string> candidates = {"b", "c2", "c1"};
  std::vector<VerdictRecord> verdicts(6);
  verdicts[0] = {.commit = "m2", .verdict = Verdict::kGood, .phase = "search"};
  verdicts[1] = {.commit = "m1", .verdict = Verdict::kUndecided, .phase = "search"};
  verdicts[2] = {.commit = "m1", .verdict = Verdict::kGood, .phase = "search"};
  verdicts[3] = {.commit = "c1", .verdict = Verdict::kBad, .phase = "search"};
  verdicts[4] = {.commit = "g1", .verdict = Verdict::kGood, .phase = "search"};
  verdicts[5] = {.commit = "p", .verdict = Verdict::kGood, .phase = "confirm"};
  EXPECT_EQ(tested_merge_bases(session, candidates, verdicts),
            (std::vector<std::string>{"m2", "m1"}));
  verdicts.erase(verdicts.begin(), verdicts.begin() + 3);
  EXPECT_TRUE(tested_merge_bases(session, candidates, verdicts).empty());
}

// The sessions `report` and `log` read from `db`, counted in a child process that runs as
// nobody when this one is root (another account than the database's owner); -1 for an error,
// or when the child cannot change its account.
int sessions_read_as_another_account(const fs::path& db) {
  pid_t child = ::fork();
  if (child == 0) {
    if (::geteuid() == 0 &&
        (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)) {
      ::_exit(101);
    }
    try {
      ::_exit(static_cast<int>(std::min<size_t>(Store::for_reading(db).sessions().size(), 100)));
    } catch (const std::exception&) {
      ::_exit(101);
    }
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status) == 101 ? -1 : WEXITSTATUS(status);
}

// A database of another account (a nightly's) in a directory this user cannot write: report
// and log read it as it is, where opening it failed (SQLite could not create the -shm file
// its reading takes, nor switch it to WAL). Read in a child as another user when root.
TEST_F(StoreTest, ADatabaseInADirectoryThisUserCannotWriteIsRead) {
  {
    Store store(db_path_);
    SessionRecord session;
    session.bad_commit = "b";
    store.create_session(session);
  }
  ASSERT_FALSE(fs::exists(db_path_.string() + "-shm"));
  for (fs::path dir = db_path_.parent_path(); dir != dir_.parent_path(); dir = dir.parent_path()) {
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  }
  fs::permissions(db_path_.parent_path(), fs::perms::owner_write, fs::perm_options::remove);
  const int sessions = sessions_read_as_another_account(db_path_);
  fs::permissions(db_path_.parent_path(), fs::perms::owner_write, fs::perm_options::add);
  EXPECT_EQ(sessions, 1) << "-1: an error";
  EXPECT_FALSE(fs::exists(db_path_.string() + "-shm"));
}

// A shared directory that every account may write, and a database only its owner may: a
// reader made the -shm and -wal files that reading live takes, as its own, and locked the
// owner out of the database until someone removed them. Such a reader reads it as it is.
TEST_F(StoreTest, AReaderWhoCannotWriteTheDatabaseLeavesNoFilesBeside) {
  {
    Store store(db_path_);
    store.create_session(SessionRecord{});
  }
  for (fs::path dir = db_path_.parent_path(); dir != dir_.parent_path(); dir = dir.parent_path()) {
    fs::permissions(dir, fs::perms::all);
  }
  fs::permissions(db_path_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const int sessions = sessions_read_as_another_account(db_path_);
  EXPECT_EQ(sessions, 1) << "-1: an error";
  EXPECT_FALSE(fs::exists(db_path_.string() + "-shm"));
  EXPECT_FALSE(fs::exists(db_path_.string() + "-wal"));
}

// An error of the file or the disk says what to do about it, not which statement of kbisect's
// met it.
TEST_F(StoreTest, AWriteThisAccountMayNotDoSaysWhatToDo) {
  { Store store(db_path_); }
  Database db = open_read_only(db_path_);
  try {
    execute(db.get(), "INSERT INTO locks (name, pid, host) VALUES ('x', 1, 'h')");
    ADD_FAILURE() << "wrote through a read-only connection";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr(" cannot be written (attempt to write a readonly "
                                        "database): run kbisect as the account that owns it"));
    EXPECT_THAT(error.what(), Not(HasSubstr("INSERT")));
  }
}

// report and log read: an empty file (or another program's) given to --db stays as it is.
// What a process killed in the middle of a write to a rollback-journal database (kbisect
// creating a new one, before WAL mode takes over) leaves at `path`: the database half written
// and the journal that undoes it, copied while the transaction is open.
void leave_hot_journal(const fs::path& path) {
  const fs::path writing = path.parent_path() / "writing.db";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(writing.c_str(), &raw), SQLITE_OK);
  Database db(raw);
  execute(db.get(), "PRAGMA cache_size=1");
  execute(db.get(), "BEGIN");
  execute(db.get(), "CREATE TABLE t(x)");
  execute(db.get(), "INSERT INTO t VALUES (randomblob(1000000))");
  ASSERT_GT(fs::file_size(writing), 0u) << "the transaction spilled nothing into the database";
  fs::copy_file(writing, path);
  fs::copy_file(writing.string() + "-journal", path.string() + "-journal");
}

TEST_F(StoreTest, AWriteLeftHalfDoneByAKilledProcessIsUndoneOnOpen) {
  fs::create_directories(db_path_.parent_path());
  leave_hot_journal(db_path_);
  // Read-only: `kbisect query` on it.
  EXPECT_EQ(count("SELECT count(*) FROM sqlite_master"), 0);
  EXPECT_FALSE(fs::exists(db_path_.string() + "-journal"));

  const fs::path again = dir_ / "again.db";
  leave_hot_journal(again);
  Store store(again);
  EXPECT_GT(store.insert_build({.commit = "c1", .outcome = Outcome::kBuildFailed}), 0);
}

TEST_F(StoreTest, ReadingRefusesAFileThatIsNoResultsDatabaseAndLeavesIt) {
  const fs::path empty = dir_ / "empty.db";
  write_file(empty, "");
  try {
    Store::for_reading(empty);
    ADD_FAILURE() << "an empty file was read as a database";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr(" is not a kbisect results database"));
  }
  EXPECT_EQ(fs::file_size(empty), 0u);
  EXPECT_FALSE(fs::exists(empty.string() + "-wal"));
}

}  // namespace
}  // namespace kbisect
