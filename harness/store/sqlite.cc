#include "store/sqlite.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "common/error.h"

namespace kbisect {
namespace {

std::string database_name(sqlite3* db) {
  const char* name = sqlite3_db_filename(db, "main");
  return name != nullptr && *name != '\0' ? name : "(memory)";
}

Database open_with(const std::filesystem::path& path, int flags) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db(raw);
  if (rc != SQLITE_OK) {
    fail("cannot open database {}: {}; check the path (--db) and its permissions", path.string(),
         raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  return db;
}

// file:PATH?immutable=1, PATH percent-encoded as RFC 3986 asks.
std::string immutable_uri(const std::filesystem::path& absolute) {
  std::string uri = "file:";
  for (unsigned char c : absolute.string()) {
    if (std::isalnum(c) || std::strchr("/-._~", c) != nullptr) {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri + "?immutable=1";
}

// SQLite answers one of two connections that switch a new database to WAL at the same moment
// SQLITE_BUSY at once, without calling the busy handler (waiting could deadlock), so the
// switch is retried here for as long as the busy timeout. Returns the journal mode now set.
std::string switch_to_wal(sqlite3* db) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  std::string mode;
  auto keep_mode = +[](void* out, int, char** values, char**) {
    *static_cast<std::string*>(out) = values[0] != nullptr ? values[0] : "";
    return 0;
  };
  for (;;) {
    int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", keep_mode, &mode, nullptr);
    if (rc == SQLITE_OK) return mode;
    if ((rc & 0xff) != SQLITE_BUSY || Clock::now() > deadline) {
      fail_sqlite(db, "running 'PRAGMA journal_mode=WAL'");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// A rollback journal that a process killed mid-write left (kbisect creating a new database,
// before WAL mode takes over): a read-only connection cannot undo it, and fails every read.
bool has_hot_journal(sqlite3* db) {
  return sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) !=
             SQLITE_OK &&
         sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK;
}

// Undoes the killed write, as a read-write connection does on its first read: the database
// is as its last finished transaction left it.
void roll_back_hot_journal(const std::filesystem::path& absolute) {
  if (::access(absolute.c_str(), W_OK) != 0 ||
      ::access(absolute.parent_path().c_str(), W_OK) != 0) {
    fail(
        "database {} holds the journal of a write that was killed, and undoing it takes write "
        "access: run any kbisect command on it as its owner",
        absolute.string());
  }
  Database db = open_with(absolute, SQLITE_OPEN_READWRITE);
  execute(db.get(), "SELECT count(*) FROM sqlite_master");
}

// What the person can do about an error that is the file's or the disk's, not the statement's:
// the statement itself is kbisect's business, and naming it only hides what to do.
std::optional<std::string> problem_of_the_file(sqlite3* db) {
  const std::string name = database_name(db);
  const char* message = sqlite3_errmsg(db);
  switch (sqlite3_errcode(db)) {
    case SQLITE_READONLY:
      return fmt::format(
          "database {} cannot be written ({}): run kbisect as the account that owns it, or "
          "pass --db a file this account can write",
          name, message);
    case SQLITE_FULL:
      return fmt::format("database {}: the disk is full ({}); free space there and run again", name,
                         message);
    case SQLITE_IOERR:
      return fmt::format("database {}: the disk failed to read or write it ({}); check the disk",
                         name, message);
    case SQLITE_CORRUPT:
      return fmt::format(
          "database {} is damaged ({}); `sqlite3 {} .recover` may save its rows, or pass --db a "
          "new file",
          name, message, name);
    default:
      return std::nullopt;
  }
}

}  // namespace

[[noreturn]] void fail_sqlite(sqlite3* db, std::string_view doing) {
  if (auto problem = problem_of_the_file(db)) fail("{}", *problem);
  fail("database {}: {}: {}", database_name(db), doing, sqlite3_errmsg(db));
}

Database open_read_write(const std::filesystem::path& path) {
  if (path.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) {
      fail("cannot create the directory of database {}: {}", path.string(), error.message());
    }
  }
  // Absolute: SQLite reads a name that starts with "file:" as a URI, whatever the flags say.
  Database db =
      open_with(std::filesystem::absolute(path), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (switch_to_wal(db.get()) != "wal") {
    fail("database {}: cannot switch to WAL mode; put it on a local file system", path.string());
  }
  execute(db.get(), "PRAGMA synchronous=FULL");
  execute(db.get(), "PRAGMA foreign_keys=ON");
  return db;
}

Database open_read_only(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    fail("no database at {}; run kbisect run or bisect first, or pass --db FILE", path.string());
  }
  const std::filesystem::path absolute = std::filesystem::absolute(path);
  // Reading live makes the -shm and -wal files when they are missing, as the reader's own: made
  // by an account that cannot write the database, they would lock its owner out of it.
  const bool can_read_live = (::access(absolute.parent_path().c_str(), W_OK) == 0 &&
                              ::access(absolute.c_str(), W_OK) == 0) ||
                             std::filesystem::exists(absolute.string() + "-shm", error);
  Database db = can_read_live
                    ? open_with(absolute, SQLITE_OPEN_READONLY)
                    : open_with(immutable_uri(absolute), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  if (can_read_live && has_hot_journal(db.get())) {
    db.reset();
    roll_back_hot_journal(absolute);
    db = open_with(absolute, SQLITE_OPEN_READONLY);
  }
  execute(db.get(), "PRAGMA query_only=1");
  return db;
}

Database copy_in_memory(sqlite3* db) {
  Database copy = open_with(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  Unique<sqlite3_backup, sqlite3_backup_finish> backup(
      sqlite3_backup_init(copy.get(), "main", db, "main"));
  if (!backup) fail_sqlite(copy.get(), "copying the database into memory");
  const int rc = sqlite3_backup_step(backup.get(), -1);
  backup.reset();
  if (rc != SQLITE_DONE) fail_sqlite(copy.get(), "copying the database into memory");
  return copy;
}

void execute(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail_sqlite(db, sql);
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, nullptr) !=
      SQLITE_OK) {
    fail_sqlite(db, fmt::format("preparing '{}'", sql));
  }
  statement_.reset(raw);
}

bool Statement::step() {
  int rc = sqlite3_step(statement_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail_sqlite(db_, fmt::format("running '{}'", sqlite3_sql(statement_.get())));
}

void Statement::run() {
  while (step()) {
  }
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(statement_.get(), column) == SQLITE_NULL;
}

int64_t Statement::int64(int column) const {
  return sqlite3_column_int64(statement_.get(), column);
}

double Statement::real(int column) const {
  return sqlite3_column_double(statement_.get(), column);
}

std::string Statement::text(int column) const {
  const unsigned char* data = sqlite3_column_text(statement_.get(), column);
  int size = sqlite3_column_bytes(statement_.get(), column);
  return data != nullptr ? std::string(reinterpret_cast<const char*>(data), size) : std::string();
}

std::optional<int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> Statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::optional<std::string> Statement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return text(column);
}

void Statement::bind_one(int index, std::nullptr_t) {
  check_bind(sqlite3_bind_null(statement_.get(), index));
}

void Statement::bind_one(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(statement_.get(), index, value));
}

void Statement::bind_one(int index, double value) {
  check_bind(sqlite3_bind_double(statement_.get(), index, value));
}

void Statement::bind_one(int index, std::string_view value) {
  // A null data pointer would bind NULL, not the empty string.
  const char* data = value.data() != nullptr ? value.data() : "";
  check_bind(sqlite3_bind_text64(statement_.get(), index, data, value.size(), SQLITE_TRANSIENT,
                                 SQLITE_UTF8));
}

void Statement::check_bind(int rc) {
  if (rc != SQLITE_OK)
    fail_sqlite(db_, fmt::format("binding a value of '{}'", sqlite3_sql(statement_.get())));
}

Transaction::Transaction(sqlite3* db) : db_(db), nested_(sqlite3_get_autocommit(db) == 0) {
  if (!nested_) execute(db, "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  // Rolling back can only fail when there is nothing to roll back (SQLite already did);
  // either way the transaction is over. A nested one's failure reaches the outer one as the
  // exception that skipped its commit().
  if (!done_ && !nested_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  if (!nested_) execute(db_, "COMMIT");
  done_ = true;
}

}  // namespace kbisect
