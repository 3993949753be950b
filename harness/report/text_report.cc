#include "report/text_report.h"

#include <fmt/format.h>

#include <iterator>

#include "report/comparison.h"
#include "report/format.h"
#include "report/outline.h"
#include "report/reproduce.h"

namespace kbisect {
namespace {

using Out = std::back_insert_iterator<std::string>;

void write_facts(Out out, const std::vector<Fact>& facts, const std::string& indent) {
  size_t width = 0;
  for (const auto& fact : facts) width = std::max(width, fact.label.size() + 1);
  for (const auto& fact : facts) {
    fmt::format_to(out, "{}{:<{}} {}\n", indent, fact.label + ":", width, fact.value);
  }
}

// 0-day's table: before, its %stddev, %change, after, its %stddev, then the metric; the p-value
// of the difference sits before the metric, and an A/B session's finding after it. A side
// column is as wide as its commit's name.
void write_comparison(Out out, const Comparison& comparison) {
  const std::string before = short_id(comparison.before.commit);
  const std::string after = short_id(comparison.after.commit);
  const size_t before_width = std::max<size_t>(14, before.size() + 2);
  const size_t after_width = std::max<size_t>(14, after.size() + 2);
  auto row = [&](const std::string& a, const std::string& a_stddev, const std::string& change,
                 const std::string& b, const std::string& b_stddev, const std::string& p,
                 const std::string& metric) {
    fmt::format_to(out, "{:>{}} {:>8} {:>9} {:>{}} {:>8} {:>9}  {}\n", a, before_width, a_stddev,
                   change, b, after_width, b_stddev, p, metric);
  };
  row(comparison.before.role, "%stddev", "%change", comparison.after.role, "%stddev", "p",
      "metric");
  row(before, "", "", after, "", "", "");
  row(std::string(before.size(), '-'), "-------", "-------", std::string(after.size(), '-'),
      "-------", "-------", "------");
  for (const auto& metric : comparison.metrics) {
    const bool both = metric.both_measured();
    row(format_median(metric.before), format_stddev(metric.before),
        both ? format_change(metric.change) : "", format_median(metric.after),
        format_stddev(metric.after), both ? format_p(metric.p) : "",
        metric.finding.empty() ? metric.metric : metric.metric + "  (" + metric.finding + ")");
  }
}

void write_path(Out out, const std::vector<PathRow>& rows, const ReportData& data) {
  if (rows.empty()) return;
  size_t id_width = 12;
  for (const auto& row : rows) id_width = std::max(id_width, short_id(row.commit).size());
  fmt::format_to(out,
                 "\nbisection path ({}):\n"
                 "  (worse: the median against good's, > 0 is worse; p: the verdict's, against "
                 "good or bad)\n",
                 data.metrics.empty() ? "" : data.metrics.front());
  auto line = [&](const auto& step, const std::string& commit, const std::string& phase,
                  const std::string& verdict, const auto& samples, const std::string& median,
                  const std::string& worse, const std::string& p, const std::string& subject) {
    fmt::format_to(out, "{:>6}  {:<{}}  {:<7}  {:<9}  {:>7}  {:>10}  {:>8}  {:>8}  {}\n", step,
                   commit, id_width, phase, verdict, samples, median, worse, p, subject);
  };
  line("step", "commit", "phase", "verdict", "samples", "median", "worse", "p", "subject");
  for (const auto& row : rows) {
    line(row.step, short_id(row.commit), row.phase, row.verdict, row.samples,
         row.median ? format_value(*row.median) : "-",
         row.worse_than_good ? format_change(*row.worse_than_good) : "-",
         row.p ? format_p(*row.p) : "-",
         row.subject + (row.note.empty() ? "" : "  [" + row.note + "]"));
  }
}

void write_reproduction(Out out, const ReportData& data) {
  const auto reproduction = reproduction_of(data);
  fmt::format_to(out, "\nTo reproduce:\n\n");
  fmt::format_to(out, "        # the scenario: {}\n", reproduction.config);
  for (const auto& compiler : data.compilers) {
    fmt::format_to(out, "        # kernels built with: {}\n", compiler);
  }
  for (const auto& command : reproduction.commands) fmt::format_to(out, "        {}\n", command);
}

// Padded columns leave spaces at the ends of lines; a mail or a diff is better without them.
std::string without_trailing_spaces(const std::string& text) {
  std::string out;
  size_t spaces = 0;
  for (char c : text) {
    if (c == ' ') {
      ++spaces;
      continue;
    }
    if (c != '\n') out.append(spaces, ' ');
    spaces = 0;
    out += c;
  }
  return out;
}

}  // namespace

std::string text_report(const ReportData& data) {
  std::string text;
  Out out(text);
  write_facts(out, header_of(data), "");
  const auto comparisons = comparisons_of(data);
  for (size_t i = 0; i < comparisons.size(); ++i) {
    // A bisection's first comparison is the headline; an A/B session's are one per variant.
    const bool confirmation = data.session.kind == SessionKind::kBisect && i > 0;
    fmt::format_to(out, "\n{}{}\n", comparisons[i].title, confirmation ? " (confirmation)" : "");
    write_comparison(out, comparisons[i]);
  }
  if (auto confirmation = confirmation_of(data); !confirmation.empty()) {
    fmt::format_to(out, "\nconfirmation, {}:\n", kConfirmationSamples);
    write_facts(out, confirmation, "  ");
  }
  write_path(out, path_of(data), data);
  if (auto failures = failures_of(data); !failures.empty()) {
    fmt::format_to(out, "\nnot measured:\n");
    write_facts(out, failures, "  ");
  }
  if (data.samples.empty()) {
    fmt::format_to(out, "\nno samples stored for this session{}\n",
                   data.session.status == SessionStatus::kRunning ? " yet" : "");
  }
  write_reproduction(out, data);
  return without_trailing_spaces(text);
}

}  // namespace kbisect
