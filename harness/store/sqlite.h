// A thin RAII layer over the sqlite3 C API for the store: connections configured the one
// way this project uses them, prepared statements with bound values, and write
// transactions that roll back unless committed.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/unique_handle.h"

namespace kbisect {

using Database = Unique<sqlite3, sqlite3_close_v2>;

// Read-write: creates the file and its directory, WAL, busy_timeout, foreign_keys=ON,
// synchronous=FULL (a committed sample survives a power cut, not only a kill).
Database open_read_write(const std::filesystem::path& path);

// Read-only by construction: SQLITE_OPEN_READONLY and query_only. The file must exist. In a
// directory this user cannot write, where no writer has the database open (it has no -shm
// file), SQLite could not create the -shm file reading takes: there it is opened immutable.
// A write that a killed process left half done is undone first (that takes write access), as
// any read-write connection would: a read-only one cannot read past it.
Database open_read_only(const std::filesystem::path& path);

// A copy of the database of `db` in memory (SQLite's backup API): what is written to it stays
// there.
Database copy_in_memory(sqlite3* db);

// How long a connection waits for another process's write lock before giving up.
inline constexpr int kBusyTimeoutMs = 60'000;

// Runs SQL that has no values in it (pragmas, DDL, BEGIN/COMMIT).
void execute(sqlite3* db, const char* sql);

[[noreturn]] void fail_sqlite(sqlite3* db, std::string_view doing);

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);

  // Binds the arguments to ?1, ?2, ... in order.
  template <typename... Args>
  Statement& bind(const Args&... args) {
    int index = 1;
    (bind_one(index++, args), ...);
    return *this;
  }

  bool step();  // true: a row is ready; false: done
  void run();   // steps to the end, for statements without rows

  bool is_null(int column) const;
  int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::optional<int64_t> optional_int64(int column) const;
  std::optional<double> optional_real(int column) const;
  std::optional<std::string> optional_text(int column) const;

  sqlite3_stmt* get() const { return statement_.get(); }

 private:
  void bind_one(int index, std::nullptr_t);
  void bind_one(int index, int64_t value);
  void bind_one(int index, int value) { bind_one(index, static_cast<int64_t>(value)); }
  void bind_one(int index, double value);
  void bind_one(int index, std::string_view value);
  void bind_one(int index, const std::string& value) { bind_one(index, std::string_view(value)); }
  void bind_one(int index, const char* value) { bind_one(index, std::string_view(value)); }
  template <typename T>
  void bind_one(int index, const std::optional<T>& value) {
    if (value) {
      bind_one(index, *value);
    } else {
      bind_one(index, nullptr);
    }
  }
  void check_bind(int rc);

  sqlite3* db_;
  Unique<sqlite3_stmt, sqlite3_finalize> statement_;
};

// BEGIN IMMEDIATE: takes the write lock up front (waiting up to the busy timeout), so a
// transaction never fails half-way because another writer came first. Inside another
// transaction it is part of that one: the outer one commits or rolls back all of it.
class Transaction {
 public:
  explicit Transaction(sqlite3* db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  sqlite3* db_;
  bool done_ = false;
  bool nested_ = false;
};

}  // namespace kbisect
