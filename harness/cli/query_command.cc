// kbisect query [--format table|csv|json] SQL_OR_NAMED_QUERY
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "store/query.h"

namespace kbisect {

void add_query_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand(
      "query",
      "read-only SQL against the results database, or a named query: sessions, steps SESSION, "
      "samples COMMIT, history METRIC");
  auto format = std::make_shared<std::string>();
  auto words = std::make_shared<std::vector<std::string>>();
  command->add_option("--format", *format,
                      "table, csv or json (default: table; --json prints a JSON object a row, a "
                      "line each)");
  command->add_option("query", *words, "SQL statement or named query")->required();
  command->callback([&globals, &action, format, words] {
    action = [&globals, format, words] {
      std::string text;
      for (const auto& word : *words) text += (text.empty() ? "" : " ") + word;
      if (globals.json && !format->empty()) {
        fail("--json prints a JSON object a row, a line each; give it or --format {}, not both",
             *format);
      }
      const QueryFormat chosen = globals.json      ? QueryFormat::kJsonLines
                                 : format->empty() ? QueryFormat::kTable
                                                   : parse_query_format(*format);
      run_query(existing_database_path(globals), text, chosen, std::cout);
      return 0;
    };
  });
}

}  // namespace kbisect
