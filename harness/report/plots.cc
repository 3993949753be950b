#include "report/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bisect/statistics.h"
#include "common/xml_escape.h"
#include "report/format.h"
#include "report/svg.h"

namespace kbisect {
namespace {

// The plotting area inside an SVG of width x height.
struct Frame {
  double width = 0, height = 0;
  double left = 72, right = 16, top = 16, bottom = 0;
  double plot_left() const { return left; }
  double plot_right() const { return width - right; }
  double plot_top() const { return top; }
  double plot_bottom() const { return height - bottom; }
};

std::string empty_plot(const std::string& why) {
  return fmt::format("<p class=\"empty\">{}</p>\n", xml_escape_shown(why));
}

// Points of one column spread sideways so that equal values stay visible: a fixed low
// discrepancy sequence, the same picture every time.
double jitter(size_t k, double spread) {
  const double fraction = std::fmod(static_cast<double>(k) * 0.6180339887498949, 1.0);
  return (fraction - 0.5) * spread;
}

// A label that fits under its column: cut with an ellipsis (the tooltip has it whole).
std::string at_most(const std::string& text, size_t length) {
  if (text.size() <= length) return text;
  return text.substr(0, length - 1) + "\u2026";
}

std::string verdict_class(const std::string& verdict) {
  return "v-" + (verdict.empty() ? std::string("none") : verdict);
}

// Grid lines and labels of the value axis, and the metric's name along it.
void draw_value_axis(SvgWriter& svg, const Frame& frame, const LinearScale& y,
                     const std::string& metric) {
  const std::vector<double> ticks = nice_ticks(y.domain_low, y.domain_high, 5);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 0;
  const double largest =
      ticks.empty() ? 0 : std::max(std::abs(ticks.front()), std::abs(ticks.back()));
  for (double tick : ticks) {
    svg.line(frame.plot_left(), y(tick), frame.plot_right(), y(tick), "grid");
    svg.text(frame.plot_left() - 6, y(tick) + 4, format_tick(tick, step, largest), "tick-label",
             SvgWriter::Anchor::kEnd);
  }
  svg.line(frame.plot_left(), frame.plot_top(), frame.plot_left(), frame.plot_bottom(), "axis");
  svg.line(frame.plot_left(), frame.plot_bottom(), frame.plot_right(), frame.plot_bottom(), "axis");
  const double middle = (frame.plot_top() + frame.plot_bottom()) / 2;
  svg.text(14, middle, metric, "axis-label", SvgWriter::Anchor::kMiddle, -90);
}

LinearScale value_scale(const std::vector<double>& values, const Frame& frame) {
  auto [low, high] = padded_range(values);
  return {low, high, frame.plot_bottom(), frame.plot_top()};
}

double column_width(size_t columns, double preferred, double min_width, double max_width,
                    Frame& frame) {
  frame.width = std::clamp(frame.left + frame.right + preferred * static_cast<double>(columns),
                           min_width, max_width);
  return (frame.plot_right() - frame.plot_left()) / static_cast<double>(columns);
}

struct Column {
  std::string commit;
  std::vector<double> values;
};

}  // namespace

std::string commit_plot(const ReportData& data, const std::string& metric) {
  std::vector<Column> columns;
  std::vector<double> all;
  for (const auto& commit : data.topological_order) {
    auto values = values_of(data, commit, metric);
    if (values.empty()) continue;
    all.insert(all.end(), values.begin(), values.end());
    columns.push_back({commit, std::move(values)});
  }
  if (columns.empty()) return empty_plot(fmt::format("No samples of {} yet.", metric));

  Frame frame;
  frame.height = 330;
  frame.bottom = 84;
  const double band = column_width(columns.size(), 44, 420, 1400, frame);
  SvgWriter svg(frame.width, frame.height,
                fmt::format("{} per tested commit, oldest first", metric));
  const LinearScale y = value_scale(all, frame);
  const auto culprit = culprit_of(data);
  for (size_t i = 0; i < columns.size(); ++i) {
    if (culprit && columns[i].commit == *culprit) {
      svg.rect(frame.plot_left() + band * static_cast<double>(i), frame.plot_top(), band,
               frame.plot_bottom() - frame.plot_top(), "culprit-band", "culprit");
    }
  }
  draw_value_axis(svg, frame, y, metric);
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto& column = columns[i];
    const double center = frame.plot_left() + band * (static_cast<double>(i) + 0.5);
    const std::string id = short_id(column.commit);
    const std::string css = "sample " + verdict_class(verdict_of(data, column.commit));
    for (size_t k = 0; k < column.values.size(); ++k) {
      svg.circle(center + jitter(k, band * 0.45), y(column.values[k]), 3.2, css,
                 fmt::format("{} {}: {}", id, metric, format_value(column.values[k])));
    }
    const double middle = y(median(column.values));
    svg.line(center - band * 0.34, middle, center + band * 0.34, middle, "median");
    svg.text(center + 4, frame.plot_bottom() + 14, id, "tick-label commit-label",
             SvgWriter::Anchor::kEnd, -45, subject_of(data, column.commit));
  }
  return svg.str();
}

std::string path_plot(const ReportData& data) {
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < data.topological_order.size(); ++i) {
    position[data.topological_order[i]] = i;
  }
  std::vector<const StepRecord*> steps;
  for (const auto& step : data.steps) {
    if (position.count(step.commit)) steps.push_back(&step);
  }
  if (steps.empty()) return empty_plot("No commit of the range measured yet.");

  Frame frame;
  frame.height = 300;
  frame.bottom = 40;
  const double band = column_width(steps.size(), 56, 420, 1200, frame);
  const double last = static_cast<double>(data.topological_order.size() - 1);
  const LinearScale y{0, last, frame.plot_bottom() - 8, frame.plot_top() + 8};
  SvgWriter svg(frame.width, frame.height, "the commit each bisection step measured");
  svg.line(frame.plot_left(), frame.plot_bottom(), frame.plot_right(), frame.plot_bottom(), "axis");
  svg.line(frame.plot_left(), frame.plot_top(), frame.plot_left(), frame.plot_bottom(), "axis");
  svg.text(frame.plot_left() - 6, y(0) + 4, "good", "tick-label", SvgWriter::Anchor::kEnd);
  svg.text(frame.plot_left() - 6, y(last) + 4, "bad", "tick-label", SvgWriter::Anchor::kEnd);
  svg.text(14, (frame.plot_top() + frame.plot_bottom()) / 2, "commit (oldest at the bottom)",
           "axis-label", SvgWriter::Anchor::kMiddle, -90);
  if (auto culprit = culprit_of(data); culprit && position.count(*culprit)) {
    const double at = y(static_cast<double>(position[*culprit]));
    svg.line(frame.plot_left(), at, frame.plot_right(), at, "culprit-line");
    svg.text(frame.plot_left() + 4, at - 5, "culprit " + short_id(*culprit), "culprit-label");
  }

  std::vector<std::pair<double, double>> points;
  for (size_t i = 0; i < steps.size(); ++i) {
    points.emplace_back(frame.plot_left() + band * (static_cast<double>(i) + 0.5),
                        y(static_cast<double>(position[steps[i]->commit])));
  }
  svg.polyline(points, "path");
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& step = *steps[i];
    const auto [x, at] = points[i];
    const std::string verdict = verdict_of(data, step.commit);
    svg.circle(x, at, 5.5, "step " + verdict_class(verdict),
               fmt::format("step {}: {} {} ({}, {})", step.step, short_id(step.commit),
                           subject_of(data, step.commit), step.phase,
                           verdict.empty() ? "no verdict" : verdict));
    svg.text(x, at - 9, short_id(step.commit).substr(0, 7), "point-label",
             SvgWriter::Anchor::kMiddle);
    svg.text(x, frame.plot_bottom() + 16, std::to_string(step.step), "tick-label",
             SvgWriter::Anchor::kMiddle);
  }
  svg.text((frame.plot_left() + frame.plot_right()) / 2, frame.height - 4, "step", "axis-label",
           SvgWriter::Anchor::kMiddle);
  return svg.str();
}

std::string ab_plot(const Comparison& comparison, const MetricComparison& row) {
  if (row.before.empty() && row.after.empty()) {
    return empty_plot(fmt::format("No samples of {} on either side.", row.metric));
  }
  Frame frame;
  frame.width = 380;
  frame.height = 300;
  frame.bottom = 52;
  std::vector<double> all = row.before;
  all.insert(all.end(), row.after.begin(), row.after.end());
  const LinearScale y = value_scale(all, frame);
  SvgWriter svg(
      frame.width, frame.height,
      fmt::format("{}: {} against {}", row.metric, comparison.after.role, comparison.before.role));
  draw_value_axis(svg, frame, y, row.metric);
  const double band = (frame.plot_right() - frame.plot_left()) / 2;
  const std::pair<const ReportSide*, const std::vector<double>*> sides[] = {
      {&comparison.before, &row.before}, {&comparison.after, &row.after}};
  for (size_t i = 0; i < 2; ++i) {
    const auto& [side, values] = sides[i];
    const double center = frame.plot_left() + band * (static_cast<double>(i) + 0.5);
    const std::string css = i == 0 ? "side-before" : "side-after";
    svg.text(center, frame.plot_bottom() + 18, fmt::format("{} (n={})", side->role, values->size()),
             "side-label", SvgWriter::Anchor::kMiddle, 0, side->label);
    svg.text(center, frame.plot_bottom() + 34, at_most(short_id(side->commit), 20), "tick-label",
             SvgWriter::Anchor::kMiddle, 0, side->commit);
    if (values->empty()) continue;
    auto [low, high] = std::minmax_element(values->begin(), values->end());
    svg.line(center, y(*low), center, y(*high), "whisker");
    const double q1 = quantile(*values, 0.25), q3 = quantile(*values, 0.75);
    svg.rect(center - band * 0.22, y(q3), band * 0.44, y(q1) - y(q3), "box " + css,
             fmt::format("quartiles {} to {}", format_value(q1), format_value(q3)));
    const double middle = y(median(*values));
    svg.line(center - band * 0.22, middle, center + band * 0.22, middle, "median");
    for (size_t k = 0; k < values->size(); ++k) {
      svg.circle(center + jitter(k, band * 0.36), y((*values)[k]), 3.2, "sample " + css,
                 fmt::format("{} {}: {}", side->role, row.metric, format_value((*values)[k])));
    }
  }
  return svg.str();
}

}  // namespace kbisect
