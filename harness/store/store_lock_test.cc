#include "store/store_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/local_process.h"
#include "common/process.h"
#include "common/temp_dir.h"
#include "store/sqlite.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class StoreLockTest : public ::testing::Test {
 protected:
  void SetUp() override { db_path_ = dir_ / "k.db"; }

  // The lock's row as the database has it: "pid@host", or "" when there is none.
  std::string row(const std::string& name) {
    Database db = open_read_only(db_path_);
    Statement query(db.get(), "SELECT pid, host FROM locks WHERE name = ?1");
    query.bind(name);
    if (!query.step()) return "";
    return fmt::format("{}@{}", query.int64(0), query.text(1));
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
  fs::path db_path_;
};

// A child process that takes `name` and holds it until the returned pipe is closed: then it
// exits normally, releasing the lock. Returns the child's pid and the write end to close.
std::pair<pid_t, int> hold_in_child(const fs::path& db_path, const std::string& name) {
  int ready[2], release[2];
  if (pipe(ready) != 0 || pipe(release) != 0) throw Error("pipe failed");
  pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    close(release[1]);
    int code = 0;
    try {
      Store store(db_path);
      StoreLock lock(store, name);
      char byte = 1;
      if (write(ready[1], &byte, 1) != 1) code = 2;
      while (read(release[0], &byte, 1) > 0) {
      }
    } catch (const std::exception&) {
      code = 1;
    }
    _exit(code);
  }
  close(ready[1]);
  close(release[0]);
  char byte = 0;
  if (read(ready[0], &byte, 1) != 1) throw Error("the child did not take the lock");
  close(ready[0]);
  return {pid, release[1]};
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(StoreLockTest, HeldForTheScopeAndReleasedAfter) {
  Store store(db_path_);
  {
    StoreLock lock(store, "nightly:demo");
    EXPECT_FALSE(lock.taken_over_from());
    EXPECT_EQ(row("nightly:demo"), fmt::format("{}@{}", getpid(), this_host_name()));
  }
  EXPECT_EQ(row("nightly:demo"), "");
}

TEST_F(StoreLockTest, ReleasedWhenAnErrorUnwindsTheScope) {
  Store store(db_path_);
  try {
    StoreLock lock(store, "nightly:demo");
    throw Error("the nightly failed");
  } catch (const Error&) {
  }
  EXPECT_EQ(row("nightly:demo"), "");
  StoreLock again(store, "nightly:demo");  // free again
}

// The advice's command works as pasted, with a blank in the path and a quote in the name.
TEST_F(StoreLockTest, TheCommandThatRemovesALockWorksAsPrinted) {
  db_path_ = dir_ / "nightly results.db";
  const std::string name = "nightly:it's";
  auto [child, release] = hold_in_child(db_path_, name);
  Store store(db_path_);
  std::string command;
  try {
    StoreLock lock(store, name);
    ADD_FAILURE() << "took a lock that a live process holds";
  } catch (const LockHeld& held) {
    const std::string message = held.what();
    command = message.substr(message.find("remove the lock: ") + 17);
  }
  run_process({"bash", "-c", command});
  EXPECT_EQ(row(name), "") << command;
  close(release);
  wait_for(child);
}

TEST_F(StoreLockTest, ASecondTakerIsRefusedWhileALiveProcessHoldsIt) {
  auto [child, release] = hold_in_child(db_path_, "nightly:demo");
  Store store(db_path_);
  try {
    StoreLock lock(store, "nightly:demo");
    ADD_FAILURE() << "took a lock that a live process holds";
  } catch (const LockHeld& held) {
    EXPECT_EQ(held.holder().pid, child);
    EXPECT_THAT(held.what(), HasSubstr(fmt::format("held by process {} (", child)));
    EXPECT_THAT(held.what(), HasSubstr("DELETE FROM locks WHERE name = '\\''nightly:demo'"));
  }
  StoreLock other(store, "nightly:other");  // another name is another lock
  close(release);
  ASSERT_EQ(wait_for(child), 0);
  EXPECT_EQ(row("nightly:demo"), "");  // the child released it on its way out
  StoreLock lock(store, "nightly:demo");
  EXPECT_FALSE(lock.taken_over_from());
}

TEST_F(StoreLockTest, ALockOfAKilledProcessIsTakenOver) {
  auto [child, release] = hold_in_child(db_path_, "nightly:demo");
  kill(child, SIGKILL);
  ASSERT_EQ(wait_for(child), 128 + SIGKILL);
  close(release);
  EXPECT_EQ(row("nightly:demo"), fmt::format("{}@{}", child, this_host_name()));  // left behind

  Store store(db_path_);
  StoreLock lock(store, "nightly:demo");
  ASSERT_TRUE(lock.taken_over_from());
  EXPECT_EQ(lock.taken_over_from()->pid, child);
  EXPECT_EQ(row("nightly:demo"), fmt::format("{}@{}", getpid(), this_host_name()));
}

// In a container every nightly may get the same pid: a dead one's lock then names this one.
TEST_F(StoreLockTest, ALockLeftByADeadHolderWithThisPidIsTakenOver) {
  Store store(db_path_);
  {
    Database db = open_read_write(db_path_);
    Statement insert(db.get(), "INSERT INTO locks (name, pid, host) VALUES (?1, ?2, ?3)");
    insert.bind("nightly:demo", static_cast<int64_t>(getpid()), this_host_name()).run();
  }
  StoreLock lock(store, "nightly:demo");
  ASSERT_TRUE(lock.taken_over_from());
  EXPECT_EQ(lock.taken_over_from()->pid, getpid());
  // Still, this process cannot take a lock it holds a second time.
  Store other(db_path_);
  EXPECT_THROW(StoreLock(other, "nightly:demo"), LockHeld);
}

TEST_F(StoreLockTest, ALockFromAnotherHostIsNeverTakenOver) {
  Store store(db_path_);
  {
    // A pid that is free here means nothing about a process on another host.
    Database db = open_read_write(db_path_);
    Statement insert(db.get(), "INSERT INTO locks (name, pid, host) VALUES (?1, ?2, ?3)");
    insert.bind("nightly:demo", int64_t{999999999}, "elsewhere.example").run();
  }
  try {
    StoreLock lock(store, "nightly:demo");
    ADD_FAILURE() << "took over a lock of another host";
  } catch (const LockHeld& held) {
    EXPECT_EQ(held.holder().host, "elsewhere.example");
    EXPECT_THAT(held.what(), HasSubstr("process 999999999 on elsewhere.example since "));
  }
}

}  // namespace
}  // namespace kbisect
