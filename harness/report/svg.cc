#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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
  const std::string escaped = xml_escape(label);
  body_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-label=\"{2}\"><title>{2}</title>\n",
      width, height, escaped);
}

void SvgWriter::close(std::string_view tooltip, std::string_view tag) {
  if (tooltip.empty()) {
    body_ += "/>\n";
  } else {
    body_ += fmt::format("><title>{}</title></{}>\n", xml_escape(tooltip), tag);
  }
}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  body_ +=
      fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"{}\"/>\n",
                  x1, y1, x2, y2, xml_escape(css_class));
}

void SvgWriter::rect(double x, double y, double width, double height, std::string_view css_class,
                     std::string_view tooltip) {
  body_ += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "class=\"{}\"",
      x, y, std::max(width, 0.0), std::max(height, 0.0), xml_escape(css_class));
  close(tooltip, "rect");
}

void SvgWriter::circle(double cx, double cy, double r, std::string_view css_class,
                       std::string_view tooltip) {
  body_ += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" class=\"{}\"", cx, cy, r,
                       xml_escape(css_class));
  close(tooltip, "circle");
}

void SvgWriter::polyline(const std::vector<std::pair<double, double>>& points,
                         std::string_view css_class) {
  std::string coordinates;
  for (const auto& [x, y] : points) {
    coordinates += fmt::format("{}{:.1f},{:.1f}", coordinates.empty() ? "" : " ", x, y);
  }
  body_ +=
      fmt::format("<polyline points=\"{}\" class=\"{}\"/>\n", coordinates, xml_escape(css_class));
}

void SvgWriter::text(double x, double y, std::string_view content, std::string_view css_class,
                     Anchor anchor, double degrees, std::string_view tooltip) {
  std::string transform =
      degrees == 0 ? "" : fmt::format(" transform=\"rotate({:.0f} {:.1f} {:.1f})\"", degrees, x, y);
  body_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" class=\"{}\"{}>", x, y,
                       anchor_name(anchor), xml_escape(css_class), transform);
  body_ += xml_escape(content);
  if (!tooltip.empty()) body_ += fmt::format("<title>{}</title>", xml_escape(tooltip));
  body_ += "</text>\n";
}

double LinearScale::operator()(double value) const {
  if (domain_high == domain_low) return (range_low + range_high) / 2;
  return range_low + (value - domain_low) / (domain_high - domain_low) * (range_high - range_low);
}

std::pair<double, double> padded_range(const std::vector<double>& values) {
  if (values.empty()) return {0, 1};
  auto [low, high] = std::minmax_element(values.begin(), values.end());
  double span = *high - *low;
  if (span == 0) span = std::abs(*low) > 0 ? std::abs(*low) * 0.1 : 1;
  return {*low - span * 0.08, *high + span * 0.08};
}

std::vector<double> nice_ticks(double low, double high, int count) {
  if (!(high > low) || count < 1) return {low};
  const double rough = (high - low) / count;
  const double power = std::pow(10, std::floor(std::log10(rough)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (step >= rough) break;
  }
  std::vector<double> ticks;
  const double first = std::ceil(low / step);
  for (double i = first; i * step <= high + step * 1e-9; ++i) {
    ticks.push_back(i == 0 ? 0.0 : i * step);  // i * step, not a running sum: no drift
  }
  return ticks;
}

}  // namespace kbisect
