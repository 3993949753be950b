#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "common/xml_escape.h"
#include "report/comparison.h"
#include "report/format.h"
#include "report/outline.h"
#include "report/plots.h"
#include "report/reproduce.h"

namespace kbisect {
namespace {

using Out = std::back_insert_iterator<std::string>;

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1200px;
       padding: 0 16px; color: #1d2327; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
h3 { font-size: 14px; margin: 12px 0 4px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { padding: 2px 10px; text-align: left; vertical-align: top; }
table.numbers td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.numbers tr:nth-child(even) { background: #f4f6f8; }
table.facts th { color: #50575e; font-weight: 600; white-space: nowrap; }
code, pre, .id { font-family: ui-monospace, monospace; font-size: 13px; }
pre { background: #f4f6f8; padding: 10px; overflow-x: auto; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; } figcaption { font-size: 13px; color: #50575e; }
.empty { color: #8a2424; font-style: italic; }
.legend span { margin-right: 14px; } .legend i { display: inline-block; width: 10px;
  height: 10px; border-radius: 5px; margin-right: 4px; }
svg { background: #fff; border: 1px solid #dcdcde; }
svg text { font: 11px system-ui, sans-serif; fill: #3c434a; }
svg .axis-label { font-size: 12px; fill: #1d2327; }
svg .grid { stroke: #eef0f2; } svg .axis { stroke: #8c8f94; }
svg .median { stroke: #1d2327; stroke-width: 2; }
svg .sample { fill-opacity: 0.75; stroke: #fff; stroke-width: 0.6; }
svg .step { stroke: #1d2327; stroke-width: 1; }
svg .path { fill: none; stroke: #8c8f94; stroke-width: 1.5; }
svg .culprit-band { fill: #fcf0f1; } svg .culprit-line { stroke: #b32d2e;
  stroke-dasharray: 5 4; } svg .culprit-label { fill: #b32d2e; }
svg .whisker { stroke: #8c8f94; }
svg .box { fill-opacity: 0.18; stroke: #50575e; }
.v-good, svg .v-good { fill: #1a7f37; background: #1a7f37; }
.v-bad, svg .v-bad { fill: #c62828; background: #c62828; }
.v-skip, svg .v-skip { fill: #dba617; background: #dba617; }
.v-undecided, svg .v-undecided { fill: #8c8f94; background: #8c8f94; }
.v-none, svg .v-none { fill: #2271b1; background: #2271b1; }
svg .side-before { fill: #2271b1; } svg .side-after { fill: #c62828; }
)css";

std::string e(std::string_view text) {
  return xml_escape_shown(text);
}

void write_facts(Out out, const std::vector<Fact>& facts) {
  fmt::format_to(out, "<table class=\"facts\">\n");
  for (const auto& fact : facts) {
    fmt::format_to(out, "<tr><th>{}</th><td>{}</td></tr>\n", e(fact.label), e(fact.value));
  }
  fmt::format_to(out, "</table>\n");
}

void write_comparison_table(Out out, const Comparison& comparison) {
  fmt::format_to(out, "<h3>{}: {} {} &rarr; {} {}</h3>\n", e(comparison.title),
                 e(comparison.before.role), e(short_id(comparison.before.commit)),
                 e(comparison.after.role), e(short_id(comparison.after.commit)));
  const bool findings =
      std::any_of(comparison.metrics.begin(), comparison.metrics.end(),
                  [](const MetricComparison& row) { return !row.finding.empty(); });
  fmt::format_to(out,
                 "<table class=\"numbers\"><tr><th>{}</th><th>%stddev</th><th>%change</th>"
                 "<th>{}</th><th>%stddev</th><th>p</th><th>metric</th>{}</tr>\n",
                 e(comparison.before.role), e(comparison.after.role),
                 findings ? "<th>finding</th>" : "");
  for (const auto& row : comparison.metrics) {
    const bool both = row.both_measured();
    fmt::format_to(out,
                   "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                   "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                   "<td><code>{}</code></td>{}</tr>\n",
                   e(format_median(row.before)), e(format_stddev(row.before)),
                   both ? e(format_change(row.change)) : "", e(format_median(row.after)),
                   e(format_stddev(row.after)), both ? e(format_p(row.p)) : "", e(row.metric),
                   findings ? "<td>" + e(row.finding) + "</td>" : "");
  }
  fmt::format_to(out, "</table>\n");
}

void write_legend(Out out) {
  fmt::format_to(out,
                 "<p class=\"legend\"><span><i class=\"v-good\"></i>good</span>"
                 "<span><i class=\"v-bad\"></i>bad</span><span><i class=\"v-skip\"></i>skip"
                 "</span><span><i class=\"v-undecided\"></i>undecided</span><span><i "
                 "class=\"v-none\"></i>confirmation only</span></p>\n");
}

void write_bisection(Out out, const ReportData& data) {
  fmt::format_to(out, "<h2>Samples per tested commit</h2>\n");
  fmt::format_to(out,
                 "<p>Every sample of the session is a point, the bar is the median; commits in "
                 "topological order, oldest left.</p>\n");
  write_legend(out);
  for (const auto& metric : data.metrics) {
    fmt::format_to(out, "<figure>\n{}<figcaption><code>{}</code></figcaption></figure>\n",
                   commit_plot(data, metric), e(metric));
  }
  if (data.metrics.empty()) fmt::format_to(out, "<p class=\"empty\">No samples yet.</p>\n");

  fmt::format_to(out, "<h2>Bisection path</h2>\n{}", path_plot(data));
  const auto rows = path_of(data);
  if (rows.empty()) return;
  fmt::format_to(out,
                 "<table class=\"numbers\"><tr><th>step</th><th>commit</th><th>phase</th>"
                 "<th>verdict</th><th>samples</th><th>median</th><th>worse than good</th><th>p</th>"
                 "<th>subject</th><th></th></tr>\n");
  for (const auto& row : rows) {
    fmt::format_to(out,
                   "<tr><td class=\"n\">{}</td><td class=\"id\">{}</td><td>{}</td><td>{}</td>"
                   "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                   "<td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>\n",
                   row.step, e(short_id(row.commit)), e(row.phase), e(row.verdict), row.samples,
                   e(row.median ? format_value(*row.median) : "-"),
                   e(row.worse_than_good ? format_change(*row.worse_than_good) : "-"),
                   e(row.p ? format_p(*row.p) : "-"), e(row.subject), e(row.note));
  }
  fmt::format_to(out, "</table>\n");
}

void write_distributions(Out out, const std::vector<Comparison>& comparisons) {
  if (comparisons.empty()) return;
  fmt::format_to(out, "<h2>A/B distributions</h2>\n");
  for (const auto& comparison : comparisons) {
    fmt::format_to(out, "<h3>{}</h3>\n<div class=\"plots\">\n", e(comparison.title));
    for (const auto& row : comparison.metrics) {
      std::string caption = e(row.metric);
      if (row.both_measured()) {
        caption += fmt::format(": {} {}, p = {}", e(comparison.after.role),
                               e(format_change(row.change)), e(format_p(row.p)));
        if (!row.finding.empty()) caption += " (" + e(row.finding) + ")";
      }
      fmt::format_to(out, "<figure>\n{}<figcaption>{}</figcaption></figure>\n",
                     ab_plot(comparison, row), caption);
    }
    fmt::format_to(out, "</div>\n");
  }
}

void write_reproduction(Out out, const ReportData& data) {
  const auto reproduction = reproduction_of(data);
  std::string lines = "# the scenario: " + reproduction.config + "\n";
  for (const auto& compiler : data.compilers) lines += "# kernels built with: " + compiler + "\n";
  for (const auto& command : reproduction.commands) lines += command + "\n";
  fmt::format_to(out, "<h2>To reproduce</h2>\n<pre>{}</pre>\n", e(lines));
}

std::string page_title(const ReportData& data) {
  const auto& session = data.session;
  std::string title = fmt::format("kbisect session {}: {} of {}", session.id,
                                  session_kind_text(session.kind), session.scenario);
  if (auto culprit = culprit_of(data)) title += " \u2014 culprit " + short_id(*culprit);
  return title;
}

}  // namespace

std::string html_report(const ReportData& data) {
  std::string page;
  Out out(page);
  const std::string title = e(page_title(data));
  // The empty data: icon keeps the browser from asking for /favicon.ico.
  fmt::format_to(out,
                 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<link rel=\"icon\" href=\"data:,\">\n<title>{}</title>\n<style>{}</style>\n"
                 "</head>\n<body>\n<h1>{}</h1>\n",
                 title, kStyle, title);
  write_facts(out, header_of(data));
  const auto comparisons = comparisons_of(data);
  if (!comparisons.empty()) {
    fmt::format_to(out, "<h2>Metrics</h2>\n");
    for (const auto& comparison : comparisons) write_comparison_table(out, comparison);
  }
  if (auto confirmation = confirmation_of(data); !confirmation.empty()) {
    fmt::format_to(out, "<h2>Confirmation</h2>\n<p>The confirmation is {}.</p>\n",
                   kConfirmationSamples);
    write_facts(out, confirmation);
  }
  if (data.session.kind == SessionKind::kBisect) write_bisection(out, data);
  write_distributions(out, comparisons);
  if (auto failures = failures_of(data); !failures.empty()) {
    fmt::format_to(out, "<h2>Not measured</h2>\n");
    write_facts(out, failures);
  }
  write_reproduction(out, data);
  fmt::format_to(out, "</body>\n</html>\n");
  return page;
}

}  // namespace kbisect
