#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common/xml_escape.h"

namespace kbisect {
namespace {

const char* anchor_name(SvgWriter::Anchor anchor) {
  switch (anchor) {
    case SvgWriter::Anchor::kStart:
      return "start";
    case SvgWriter::Anchor::kMiddle:
      return "middle";
    case SvgWriter::Anchor::kEnd:
      return "end";
  }
  return "start";
}

}  // namespace

SvgWriter::SvgWriter(double width, double height, std::string_view label) {
  const std::string escaped = xml_escape_shown(label);
  body_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-label=\"{2}\"><title>{2}</title>\n",
      width, height, escaped);
}

void SvgWriter::close(std::string_view tooltip, std::string_view tag) {
  if (tooltip.empty()) {
    body_ += "/>\n";
  } else {
    body_ += fmt::format("><title>{}</title></{}>\n", xml_escape_shown(tooltip), tag);
  }
}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  body_ +=
      fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"{}\"/>\n",
                  x1, y1, x2, y2, xml_escape_shown(css_class));
}

void SvgWriter::rect(double x, double y, double width, double height, std::string_view css_class,
                     std::string_view tooltip) {
  body_ += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "class=\"{}\"",
      x, y, std::max(width, 0.0), std::max(height, 0.0), xml_escape_shown(css_class));
  close(tooltip, "rect");
}

void SvgWriter::circle(double cx, double cy, double r, std::string_view css_class,
                       std::string_view tooltip) {
  body_ += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" class=\"{}\"", cx, cy, r,
                       xml_escape_shown(css_class));
  close(tooltip, "circle");
}

void SvgWriter::polyline(const std::vector<std::pair<double, double>>& points,
                         std::string_view css_class) {
  std::string coordinates;
  for (const auto& [x, y] : points) {
    coordinates += fmt::format("{}{:.1f},{:.1f}", coordinates.empty() ? "" : " ", x, y);
  }
  body_ += fmt::format("<polyline points=\"{}\" class=\"{}\"/>\n", coordinates,
                       xml_escape_shown(css_class));
}

void SvgWriter::text(double x, double y, std::string_view content, std::string_view css_class,
                     Anchor anchor, double degrees, std::string_view tooltip) {
  std::string transform =
      degrees == 0 ? "" : fmt::format(" transform=\"rotate({:.0f} {:.1f} {:.1f})\"", degrees, x, y);
  body_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" class=\"{}\"{}>", x, y,
                       anchor_name(anchor), xml_escape_shown(css_class), transform);
  body_ += xml_escape_shown(content);
  if (!tooltip.empty()) body_ += fmt::format("<title>{}</title>", xml_escape_shown(tooltip));
  body_ += "</text>\n";
}

double LinearScale::operator()(double value) const {
  if (domain_high == domain_low) return (range_low + range_high) / 2;
  // In halves, so that a domain wider than the largest double still maps.
  return range_low + (value / 2 - domain_low / 2) / (domain_high / 2 - domain_low / 2) *
                         (range_high - range_low);
}

std::pair<double, double> padded_range(const std::vector<double>& values) {
  std::vector<double> finite;
  std::copy_if(values.begin(), values.end(), std::back_inserter(finite),
               [](double value) { return std::isfinite(value); });
  if (finite.empty()) return {0, 1};
  auto [low, high] = std::minmax_element(finite.begin(), finite.end());
  // Values within rounding of each other are drawn as equal: the axis needs ticks that differ.
  const double size = std::max(std::abs(*low), std::abs(*high));
  double span = *high - *low;
  if (span <= size * 1e-9) span = size > 0 ? size * 0.1 : 1;
  const double padded_low = *low - span * 0.08, padded_high = *high + span * 0.08;
  if (!std::isfinite(padded_low) || !std::isfinite(padded_high)) return {*low, *high};
  return {padded_low, padded_high};
}

std::vector<double> nice_ticks(double low, double high, int count) {
  constexpr double kMaxTicks = 100;
  const double rough = (high / 2 - low / 2) / count * 2;  // in halves, as LinearScale
  if (!(high > low) || count < 1 || !std::isfinite(rough)) return {low};
  const double power = std::pow(10, std::floor(std::log10(rough)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (step >= rough) break;
  }
  // A step within rounding of the values would give ticks that are not distinct.
  if (step < std::max(std::abs(low), std::abs(high)) * 1e-12) return {low};
  const double first = std::ceil(low / step), last = std::floor(high / step + 1e-9);
  if (!(last - first < kMaxTicks)) return {low};
  std::vector<double> ticks;
  for (double i = first; i <= last; ++i) {
    ticks.push_back(i == 0 ? 0.0 : i * step);  // i * step, not a running sum: no drift
  }
  return ticks;
}

}  // namespace kbisect
