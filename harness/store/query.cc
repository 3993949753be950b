#include "store/query.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/interrupt.h"
#include "common/json_text.h"
#include "common/printable.h"
#include "kdio/spelling.h"
#include "store/records.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace kbisect {
namespace {

struct Cell {
  int type = SQLITE_NULL;
  std::string text;  // SQLITE_FLOAT: the shortest text that reads back as `real`
  double real = 0;   // SQLITE_FLOAT: the value (SQLite's own text keeps only 15 digits)
};

struct ResultSet {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

// Takes a statement's result as it is stepped: the columns' names once, then each row.
struct RowSink {
  std::function<void(const std::vector<std::string>&)> columns;
  std::function<void(std::vector<Cell>)> row;
};

// Why the authorizer refused the statement being prepared, for the message.
struct Guard {
  std::string refusal;
};

int authorize(void* data, int action, const char* arg1, const char* arg2, const char*,
              const char*) {
  auto* guard = static_cast<Guard*>(data);
  auto arg = [](const char* text) { return std::string(text != nullptr ? text : ""); };
  std::string table = arg(arg1);
  const bool schema_table =
      table == "sqlite_master" || table == "sqlite_temp_master" || table == "sqlite_schema";
  // SQLite asks this when a query first uses a table-valued pragma (pragma_user_version); an
  // UPDATE statement of the schema is refused by SQLite itself, and the connection is read-only.
  if (action == SQLITE_UPDATE && schema_table) return SQLITE_OK;
  // CREATE and DROP ask these before their own action, ALTER its UPDATE after its own.
  if ((action == SQLITE_INSERT || action == SQLITE_DELETE) && schema_table) {
    guard->refusal = "schema changes (CREATE, DROP, ALTER) are not allowed";
    return SQLITE_DENY;
  }
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      // SQLite refuses it too (extension loading is off), but says only "not authorized".
      if (arg(arg2) == "load_extension") {
        guard->refusal = "load_extension() would load code into kbisect, not read results";
        return SQLITE_DENY;
      }
      // Debian's SQLite has it: it reads and registers pointers into kbisect's memory.
      if (arg(arg2) == "fts3_tokenizer") {
        guard->refusal = "fts3_tokenizer() reads and sets pointers in kbisect, not results";
        return SQLITE_DENY;
      }
      return SQLITE_OK;
    case SQLITE_PRAGMA: {
      // Pragmas that only report, with or without an argument naming a table or index.
      static const std::set<std::string> with_argument = {
          "table_info",  "table_xinfo",      "table_list",        "index_list",      "index_info",
          "index_xinfo", "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check"};
      static const std::set<std::string> settings = {
          "user_version",    "schema_version", "page_count",    "page_size",    "freelist_count",
          "database_list",   "collation_list", "function_list", "module_list",  "pragma_list",
          "compile_options", "application_id", "encoding",      "foreign_keys", "query_only"};
      std::string name = arg(arg1);
      if (with_argument.contains(name) || (settings.contains(name) && arg2 == nullptr))
        return SQLITE_OK;
      guard->refusal = arg2 != nullptr
                           ? fmt::format("PRAGMA {} = {} changes the database", name, arg(arg2))
                           : fmt::format("PRAGMA {} is not allowed", name);
      return SQLITE_DENY;
    }
    case SQLITE_INSERT:
      guard->refusal = fmt::format("INSERT into {} is not allowed", arg(arg1));
      return SQLITE_DENY;
    case SQLITE_UPDATE:
      guard->refusal = fmt::format("UPDATE of {} is not allowed", arg(arg1));
      return SQLITE_DENY;
    case SQLITE_DELETE:
      guard->refusal = fmt::format("DELETE from {} is not allowed", arg(arg1));
      return SQLITE_DENY;
    case SQLITE_ALTER_TABLE:
      guard->refusal = "schema changes (CREATE, DROP, ALTER) are not allowed";
      return SQLITE_DENY;
    case SQLITE_ATTACH:
      guard->refusal = "ATTACH is not allowed";
      return SQLITE_DENY;
    case SQLITE_DETACH:
      guard->refusal = "DETACH is not allowed";
      return SQLITE_DENY;
    default:
      guard->refusal = "only SELECT statements (and reporting pragmas) are allowed";
      return SQLITE_DENY;
  }
}

struct NamedQuery {
  std::string_view name;
  std::string_view argument;  // "" when it takes none
  std::string_view sql;
  // An argument that matches nothing is an error that says what there is: an empty table would
  // read as "nothing measured" when the argument has a typo or is a ref name. `matches` selects
  // a row when the argument names something; `holds` gives one text for `unmatched`'s {1}.
  std::string_view matches = {};
  std::string_view holds = {};
  std::string_view unmatched = {};
  // A column SQLite gives as JSON text: the json formats nest it as a value, not a string.
  std::string_view json_column = {};
};

constexpr NamedQuery kNamedQueries[] = {
    {"sessions", "",
     "SELECT id, kind, scenario, status, strategy, bad_ref, "
     "json_extract(result, '$.verdict') AS verdict, json_extract(result, '$.culprit') AS culprit, "
     "started_at, finished_at FROM sessions ORDER BY id DESC"},
    {"steps", "SESSION",
     "SELECT st.step, st.commit_id, st.role, st.candidates_left, v.verdict, v.p_mwu, v.p_ks, "
     "v.effect, v.samples, v.good_samples, v.bad_samples, v.phase, v.detail FROM steps st "
     "LEFT JOIN verdicts v ON v.session_id = st.session_id AND v.commit_id = st.commit_id "
     // A nightly's steps are its bisection's, as `log` and `report` follow it there.
     "WHERE st.session_id = coalesce((SELECT json_extract(result, '$.bisect_session') FROM "
     "sessions WHERE id = CAST(?1 AS INTEGER) AND kind = 'nightly'), CAST(?1 AS INTEGER)) "
     "ORDER BY st.step, v.id",
     "SELECT 1 FROM sessions WHERE id = CAST(?1 AS INTEGER)",
     "SELECT coalesce(group_concat(id, ', '), 'none') FROM "
     "(SELECT id FROM sessions ORDER BY id DESC LIMIT 10)",
     "no session {0} in this database (the latest: {1}; kbisect query sessions lists them)"},
    {"samples", "COMMIT",
     "SELECT s.id, s.commit_id, s.variant, s.host, s.accel, s.session_id, s.run_id, "
     "s.boot_seconds, (SELECT json_group_object(m.metric, m.value) FROM sample_metrics m "
     "WHERE m.sample_id = s.id) AS metrics, s.created_at FROM samples s "
     "WHERE substr(s.commit_id, 1, length(?1)) = lower(?1) ORDER BY s.id",
     "SELECT 1 FROM samples WHERE substr(commit_id, 1, length(?1)) = lower(?1) LIMIT 1",
     "SELECT count(DISTINCT commit_id) FROM samples",
     "no sample of a commit whose id starts with '{0}': give a commit id or its prefix (a tag or "
     "branch is not resolved here); the database holds samples of {1} commits, which kbisect "
     "query 'history METRIC' lists",
     "metrics"},
    // Samples of two hosts or accelerators do not compare: each is a row of its own.
    {"history", "METRIC",
     "SELECT s.commit_id, s.variant, substr(s.config_hash, 1, 12) AS config, s.host, s.accel, "
     "COUNT(*) AS n, AVG(m.value) AS mean, MIN(m.value) AS min, MAX(m.value) AS max, "
     "MIN(s.created_at) AS first_sample FROM samples s JOIN sample_metrics m "
     "ON m.sample_id = s.id WHERE m.metric = ?1 "
     "GROUP BY s.commit_id, s.variant, s.config_hash, s.host, s.accel ORDER BY MIN(s.id)",
     "SELECT 1 FROM sample_metrics WHERE metric = ?1 LIMIT 1",
     "SELECT coalesce(group_concat(metric, ', '), 'none') FROM "
     "(SELECT DISTINCT metric FROM sample_metrics ORDER BY metric)",
     "no sample has the metric '{0}'; the metrics measured: {1}"},
};

// "sessions, steps SESSION, samples COMMIT, history METRIC".
std::string named_query_list() {
  std::string list;
  for (const NamedQuery& query : kNamedQueries) {
    list += fmt::format("{}{}{}{}", list.empty() ? "" : ", ", query.name,
                        query.argument.empty() ? "" : " ", query.argument);
  }
  return list;
}

// SQLite could not read `sql` as a statement: a single word is then a misspelt named query,
// and saying so beats SQLite's 'near "sessionz": syntax error'.
[[noreturn]] void fail_unknown_name(const std::string& word) {
  std::vector<std::string> names;
  for (const NamedQuery& query : kNamedQueries) names.emplace_back(query.name);
  std::optional<std::string> near = kdio::closest_match(word, names);
  fail("'{}' is not a named query{}; the named queries are {} (anything else is read as SQL)", word,
       near ? fmt::format(" (did you mean '{}'?)", *near) : "", named_query_list());
}

constexpr std::string_view kBlanks = " \t\r\n";

// `text` without the blanks around it.
std::string_view trimmed(std::string_view text) {
  const size_t start = text.find_first_not_of(kBlanks);
  if (start == std::string_view::npos) return {};
  return text.substr(start, text.find_last_not_of(kBlanks) + 1 - start);
}

// `text` without the blanks around it, if that is one word.
std::optional<std::string> single_word(std::string_view text) {
  const std::string_view word = trimmed(text);
  if (word.empty() || word.find_first_of(kBlanks) != std::string_view::npos) return std::nullopt;
  return std::string(word);
}

[[noreturn]] void refuse(const std::string& why) {
  fail("kbisect query is read-only: {}; use a SELECT statement or a named query ({})", why,
       named_query_list());
}

// Whether `text`, what follows a statement, holds another one: comments and semicolons do not.
bool holds_a_statement(sqlite3* db, std::string_view text) {
  if (text.find_first_not_of(" \t\r\n;") == std::string_view::npos) return false;
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db, text.data(), static_cast<int>(text.size()), &raw, &tail);
  Unique<sqlite3_stmt, sqlite3_finalize> statement(raw);
  return rc != SQLITE_OK || statement != nullptr || tail != text.data() + text.size();
}

// SQLite's virtual machine instructions between two looks for a signal (a look is one load).
constexpr int kProgressInstructions = 1000;

// The progress handler: non-zero stops the statement. The signal handlers only record Ctrl-C or
// SIGTERM, and a query that runs long (a recursive CTE without an end) would not stop otherwise,
// not even between rows, since one step of count(*) reads them all.
int stop_when_interrupted(void*) {
  return pending_interrupt() != 0 ? 1 : 0;
}

Cell cell_of(sqlite3_stmt* statement, int column) {
  Cell cell;
  cell.type = sqlite3_column_type(statement, column);
  if (cell.type == SQLITE_BLOB) {
    cell.text = fmt::format("<blob {} bytes>", sqlite3_column_bytes(statement, column));
  } else if (cell.type == SQLITE_FLOAT) {
    cell.real = sqlite3_column_double(statement, column);
    cell.text = fmt::format("{}", cell.real);
  } else if (cell.type != SQLITE_NULL) {
    // By its length: text may hold a NUL, where a C string would end.
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
    cell.text.assign(text, static_cast<size_t>(sqlite3_column_bytes(statement, column)));
  }
  return cell;
}

void run_guarded(sqlite3* db, std::string_view sql, const std::vector<std::string>& parameters,
                 const RowSink& sink) {
  Guard guard;
  sqlite3_set_authorizer(db, authorize, &guard);
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, &tail);
  Unique<sqlite3_stmt, sqlite3_finalize> statement(raw);
  if (rc != SQLITE_OK) {
    throw_if_interrupted();
    if (!guard.refusal.empty()) refuse(guard.refusal);
    if (auto word = single_word(sql)) fail_unknown_name(*word);
    fail("kbisect query: {}", sqlite3_errmsg(db));
  }
  if (statement == nullptr) fail("kbisect query: no SQL statement given");
  if (holds_a_statement(db, std::string_view(tail, sql.data() + sql.size() - tail))) {
    fail("kbisect query runs one statement at a time; split '{}' into separate calls", sql);
  }
  // Catches what has no authorizer action, such as VACUUM INTO.
  if (!sqlite3_stmt_readonly(statement.get())) refuse(fmt::format("'{}' would write", sql));
  for (size_t i = 0; i < parameters.size(); ++i) {
    sqlite3_bind_text(statement.get(), static_cast<int>(i + 1), parameters[i].c_str(), -1,
                      SQLITE_TRANSIENT);
  }

  const int columns = sqlite3_column_count(statement.get());
  std::vector<std::string> names;
  for (int c = 0; c < columns; ++c) names.push_back(sqlite3_column_name(statement.get(), c));
  sink.columns(names);
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    std::vector<Cell> row;
    for (int c = 0; c < columns; ++c) row.push_back(cell_of(statement.get(), c));
    sink.row(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    throw_if_interrupted();
    // A table-valued pragma prepares its own statement as it runs: refused then.
    if (!guard.refusal.empty()) refuse(guard.refusal);
    fail("kbisect query: {}", sqlite3_errmsg(db));
  }
}

// The whole result, for what needs every row before it prints one (a table's widths).
ResultSet collect(sqlite3* db, std::string_view sql, const std::vector<std::string>& parameters) {
  ResultSet result;
  run_guarded(db, sql, parameters,
              {[&](const std::vector<std::string>& columns) { result.columns = columns; },
               [&](std::vector<Cell> row) { result.rows.push_back(std::move(row)); }});
  return result;
}

// A table is read by a person on a terminal: six significant digits of a p-value or a mean are
// plenty (csv and json keep every digit), and a cell is one line without control characters
// (what the database holds came from commit subjects and guests too).
std::string table_text(const Cell& cell) {
  return cell.type == SQLITE_FLOAT ? fmt::format("{:.6g}", cell.real) : printable_line(cell.text);
}

// Columns on a terminal, counted in characters: UTF-8 continuation bytes take no column.
size_t columns_of(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_utf8_continuation(c); }));
}

void print_table(const ResultSet& result, std::ostream& out) {
  std::vector<std::string> headers;
  std::vector<size_t> widths;
  for (const std::string& column : result.columns) {
    headers.push_back(printable_line(column));
    widths.push_back(columns_of(headers.back()));
  }
  for (const auto& row : result.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], columns_of(table_text(row[c])));
    }
  }
  auto print_row = [&](auto cell_text, auto right_aligned) {
    std::string line;
    for (size_t c = 0; c < widths.size(); ++c) {
      std::string text = cell_text(c);
      std::string pad(widths[c] - columns_of(text), ' ');
      bool last = c + 1 == widths.size();
      line += right_aligned(c) ? pad + text : text + (last ? "" : pad);
      if (!last) line += "  ";
    }
    out << line << "\n";
  };
  print_row([&](size_t c) { return headers[c]; }, [](size_t) { return false; });
  print_row([&](size_t c) { return std::string(widths[c], '-'); }, [](size_t) { return false; });
  for (const auto& row : result.rows) {
    print_row(
        [&](size_t c) { return table_text(row[c]); },
        [&](size_t c) { return row[c].type == SQLITE_INTEGER || row[c].type == SQLITE_FLOAT; });
  }
  out << fmt::format("({} row{})\n", result.rows.size(), result.rows.size() == 1 ? "" : "s");
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Each row as it comes: a long result shows at once, and needs no memory for all of it.
RowSink csv_rows(std::ostream& out) {
  auto print_line = [&out](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) out << (i > 0 ? "," : "") << csv_field(fields[i]);
    out << "\r\n";  // RFC 4180
  };
  return {print_line, [print_line](std::vector<Cell> row) {
            std::vector<std::string> fields;
            for (const Cell& cell : row) fields.push_back(cell.text);
            print_line(fields);
          }};
}

// The columns' names as keys of one object: a name that repeats ("SELECT s.id, v.id") gets
// ":2", ":3", ... where one key would have kept only the last column.
std::vector<std::string> json_keys(const std::vector<std::string>& columns) {
  std::vector<std::string> keys;
  std::set<std::string> taken;
  for (const std::string& column : columns) {
    std::string key = column;
    for (int n = 2; taken.contains(key); ++n) key = fmt::format("{}:{}", column, n);
    taken.insert(key);
    keys.push_back(key);
  }
  return keys;
}

nlohmann::json json_value(const Cell& cell, bool holds_json) {
  if (holds_json && cell.type == SQLITE_TEXT) {
    nlohmann::json value = nlohmann::json::parse(cell.text, nullptr, false);
    if (!value.is_discarded()) return value;
  }
  if (cell.type == SQLITE_INTEGER) return std::stoll(cell.text);
  if (cell.type == SQLITE_FLOAT) return cell.real;
  if (cell.type == SQLITE_NULL) return nullptr;
  return cell.text;
}

// One object a row, its keys in the columns' order (a JSON object would sort them), each row
// written as it comes; finish() closes the array. The column named `json_column` holds JSON
// text, given as the value it is.
class JsonRows {
 public:
  JsonRows(std::ostream& out, bool lines, std::string_view json_column)
      : out_(out), lines_(lines), json_column_(json_column) {}

  RowSink sink() {
    return {[this](const std::vector<std::string>& columns) { keys_ = json_keys(columns); },
            [this](std::vector<Cell> row) { print(row); }};
  }

  void finish() {
    if (!lines_) out_ << (rows_ == 0 ? "[]\n" : "\n]\n");
  }

 private:
  void print(const std::vector<Cell>& row) {
    if (!lines_) out_ << (rows_ == 0 ? "[\n  " : ",\n  ");
    ++rows_;
    out_ << "{";
    for (size_t c = 0; c < keys_.size(); ++c) {
      out_ << (c == 0 ? "" : ", ") << json_text(keys_[c]) << ": "
           << json_text(json_value(row[c], holds_json(keys_[c])));
    }
    out_ << (lines_ ? "}\n" : "}");
  }

  // SQL's own columns are never JSON, even one named "" (a named query's json_column when it
  // has none).
  bool holds_json(const std::string& key) const {
    return !json_column_.empty() && key == json_column_;
  }

  std::ostream& out_;
  const bool lines_;
  const std::string_view json_column_;
  std::vector<std::string> keys_;
  size_t rows_ = 0;
};

void check_argument_matches(sqlite3* db, const NamedQuery& query, const std::string& argument) {
  if (query.matches.empty() || !collect(db, query.matches, {argument}).rows.empty()) return;
  std::string holds = collect(db, query.holds, {}).rows.at(0).at(0).text;
  fail("kbisect query {}: {}", query.name,
       fmt::format(fmt::runtime(query.unmatched), argument, holds));
}

// A named query's SESSION: a session id as given, or for last / latest the newest session's.
std::string session_id_of(sqlite3* db, const std::string& argument) {
  const std::optional<SessionName> name = parse_session_name(argument);
  if (!name) {
    fail(
        "named query 'steps' needs a session id (a number, see kbisect query sessions, or "
        "last), got '{}'",
        argument);
  }
  if (!name->newest) return std::to_string(name->id);
  std::string newest =
      collect(db, "SELECT coalesce(max(id), '') FROM sessions", {}).rows.at(0).at(0).text;
  if (newest.empty()) fail("kbisect query steps {}: the database holds no session yet", argument);
  return newest;
}

// The named query the text asks for, with its argument, or nullopt for SQL.
std::optional<std::pair<const NamedQuery*, std::vector<std::string>>> named_query(
    const std::string& text) {
  std::istringstream words(text);
  std::vector<std::string> parts;
  for (std::string word; words >> word;) parts.push_back(word);
  if (parts.empty()) return std::nullopt;
  for (const NamedQuery& query : kNamedQueries) {
    if (parts[0] != query.name) continue;
    // A metric's job may have blanks in its name ([rand read] gives "rand read:read.iops").
    if (query.argument == "METRIC" && parts.size() > 2) {
      const size_t name_end = text.find(parts[0]) + parts[0].size();
      parts = {parts[0], std::string(trimmed(std::string_view(text).substr(name_end)))};
    }
    size_t wanted = query.argument.empty() ? 1 : 2;
    if (parts.size() != wanted) {
      if (query.argument.empty()) fail("named query '{}' takes no argument", query.name);
      fail("named query '{}' needs one {}: kbisect query '{} {}'", query.name, query.argument,
           query.name, query.argument);
    }
    parts.erase(parts.begin());
    return std::pair{&query, parts};
  }
  return std::nullopt;
}

}  // namespace

QueryFormat parse_query_format(std::string_view text) {
  if (text == "table") return QueryFormat::kTable;
  if (text == "csv") return QueryFormat::kCsv;
  if (text == "json") return QueryFormat::kJson;
  fail("unknown query format '{}'; use table, csv or json", text);
}

void run_query(const std::filesystem::path& db_path, const std::string& sql_or_name,
               QueryFormat format, std::ostream& out) {
  Database db = open_read_only(db_path);
  check_results_database(db.get(), db_path);
  sqlite3_progress_handler(db.get(), kProgressInstructions, stop_when_interrupted, nullptr);
  std::string_view sql = sql_or_name;
  std::vector<std::string> arguments;
  std::string_view json_column;
  if (auto named = named_query(sql_or_name)) {
    const NamedQuery* query = named->first;
    arguments = std::move(named->second);
    // Before the schema's version, as the other usage errors of a named query.
    if (query->argument == "SESSION") {
      arguments.front() = session_id_of(db.get(), arguments.front());
    }
    if (const int version = database_version(db.get()); version > schema_version()) {
      fail(
          "{} has schema version {} and the named queries read version {}: a newer kbisect "
          "wrote it, whose query reads it; or query its tables with SQL",
          db_path.string(), version, schema_version());
    }
    db = up_to_date_for_reading(std::move(db));
    sqlite3_progress_handler(db.get(), kProgressInstructions, stop_when_interrupted, nullptr);
    if (!arguments.empty()) check_argument_matches(db.get(), *query, arguments.front());
    sql = query->sql;
    json_column = query->json_column;
  }
  switch (format) {
    case QueryFormat::kTable:
      print_table(collect(db.get(), sql, arguments), out);
      break;
    case QueryFormat::kCsv:
      run_guarded(db.get(), sql, arguments, csv_rows(out));
      break;
    case QueryFormat::kJson:
    case QueryFormat::kJsonLines: {
      JsonRows rows(out, format == QueryFormat::kJsonLines, json_column);
      run_guarded(db.get(), sql, arguments, rows.sink());
      rows.finish();
      break;
    }
  }
}

}  // namespace kbisect
