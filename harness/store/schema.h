// The database schema as a list of migrations, applied in order by PRAGMA user_version
// (documented table by table in results/SCHEMA.md).
#pragma once

#include <sqlite3.h>

namespace kbisect {

// The schema version this build of kbisect writes.
int schema_version();

// Brings the database up to schema_version(). Each migration runs in its own BEGIN IMMEDIATE
// transaction that re-reads user_version first, so concurrent openers migrate exactly once.
// A database from a newer kbisect is refused.
void migrate(sqlite3* db);

// The database's current user_version.
int database_version(sqlite3* db);

}  // namespace kbisect
