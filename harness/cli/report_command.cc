// kbisect report SESSION [--html FILE]: a stored session as a 0-day style text report, and
// optionally as one self-contained HTML page with SVG plots.
#include <fmt/format.h>

#include "cli/bisect_session.h"
#include "cli/commands.h"
#include "common/error.h"
#include "common/file.h"
#include "report/html_report.h"
#include "report/report_data.h"
#include "report/scenario_facts.h"
#include "report/text_report.h"
#include "store/store.h"

namespace kbisect {
namespace {

struct ReportOptions {
  std::string session;  // a number, or last / latest
  std::filesystem::path html;
};

// A nightly that bisected keeps its samples in that bisection's session: the report is that
// session's, after a line of what the nightly decided. Returns the session to report.
int64_t reported_session(Store& store, int64_t id) {
  std::optional<SessionRecord> session = store.session(id);
  const std::optional<int64_t> bisection = session ? nightly_bisection(*session) : std::nullopt;
  if (!bisection) return id;
  const auto result = nlohmann::json::parse(session->result_json);
  fmt::print("nightly {}: {}: tip {} of {} against baseline {}; its bisection, session {}:\n\n", id,
             result.value("verdict", "?"), result.value("tip", "?"), result.value("branch", "?"),
             result.value("baseline", "?"), *bisection);
  return *bisection;
}

int report(const GlobalOptions& globals, const ReportOptions& options) {
  if (globals.json) {
    fail(
        "--json: report prints text (and --html FILE); for a session's data as JSON use "
        "`kbisect query --format json` (named queries: sessions, steps N, samples COMMIT)");
  }
  Store store = Store::for_reading(existing_database_path(globals));
  ReportData data =
      load_report_data(store, reported_session(store, session_named(store, options.session)));
  add_scenario_facts(data);
  // The page first: a path it cannot write to is an error before any of the text is printed.
  if (!options.html.empty()) write_file(options.html, html_report(data));
  fmt::print("{}", text_report(data));
  if (!options.html.empty() && !globals.quiet) {
    fmt::print("\nHTML report: {}\n", options.html.string());
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand("report", "a session as a text report (and an HTML page)");
  auto options = std::make_shared<ReportOptions>();
  command->add_option("session", options->session, "session id, or last")->required();
  auto* html =
      command->add_option("--html", options->html, "also write a self-contained HTML page here");
  command->callback([&globals, &action, options, html] {
    // An empty path would write nothing and say nothing: the page asked for would be missing.
    if (html->count() > 0 && options->html.empty()) {
      throw CLI::ValidationError("--html", "needs a file to write the page to, e.g. report.html");
    }
    action = [&globals, options] { return report(globals, *options); };
  });
}

}  // namespace kbisect
