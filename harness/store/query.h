// `kbisect query`: SQL or a named query against the results database, read-only by
// construction (a read-only connection with query_only, an authorizer that refuses every
// write, ATTACH and setting pragmas, and a check that the statement writes nothing).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

namespace kbisect {

// kJsonLines: one JSON object a row, a line each (the global --json); kJson: one array.
enum class QueryFormat { kTable, kCsv, kJson, kJsonLines };

// "table", "csv" or "json"; anything else is an Error.
QueryFormat parse_query_format(std::string_view text);

// Named queries:
//   sessions          every session, newest first, with its culprit and verdict
//   steps SESSION     a session's steps with their verdicts
//   samples COMMIT    the samples of a commit (a sha prefix) with their metrics (JSON text; an
//                     object in the json formats)
//   history METRIC    a metric (as stored, e.g. read.iops) per commit, oldest first
// Anything else is one SQL statement. Writes fail with "kbisect query is read-only: ...".
// csv and json rows are written as they come (a table needs them all for its widths); Ctrl-C or
// SIGTERM stops the statement, also within one long step, with Interrupted.
void run_query(const std::filesystem::path& db_path, const std::string& sql_or_name,
               QueryFormat format, std::ostream& out);

}  // namespace kbisect
