// The database schema as a list of migrations, applied in order by PRAGMA user_version
// (documented table by table in results/SCHEMA.md).
#pragma once

#include <sqlite3.h>

#include <filesystem>

#include "store/sqlite.h"

namespace kbisect {

// The schema version this build of kbisect writes.
int schema_version();

// Brings the database up to schema_version(). Each migration runs in its own BEGIN IMMEDIATE
// transaction that re-reads user_version first, so concurrent openers migrate exactly once.
// A database from a newer kbisect is refused.
void migrate(sqlite3* db);

// For reading: `db` itself when it has this kbisect's schema; for an older one, a read-only copy
// in memory brought up to date, so that the file keeps the schema an older kbisect that may
// still be writing it expects. A database from a newer kbisect is refused.
Database up_to_date_for_reading(Database db);

// The database's current user_version.
int database_version(sqlite3* db);

// Fails, saying what to pass instead, unless `db` (opened from `path`) holds kbisect's tables:
// SQLite alone says "file is not a database" or "no such table: sessions", naming neither the
// file nor what was expected of it.
void check_results_database(sqlite3* db, const std::filesystem::path& path);

}  // namespace kbisect
