// A small SVG writer for the report's plots: shapes carry CSS classes (the page styles them),
// every text and tooltip is escaped, coordinates are written with one decimal. Also the
// linear scale and the round tick values that plots need.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kbisect {

class SvgWriter {
 public:
  enum class Anchor { kStart, kMiddle, kEnd };

  // `label` names the plot for screen readers (role="img" with aria-label) and as its title.
  SvgWriter(double width, double height, std::string_view label);

  // A tooltip, where given, is the element's <title> child.
  void line(double x1, double y1, double x2, double y2, std::string_view css_class);
  void rect(double x, double y, double width, double height, std::string_view css_class,
            std::string_view tooltip = {});
  void circle(double cx, double cy, double r, std::string_view css_class,
              std::string_view tooltip = {});
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view css_class);
  // Rotated by `degrees` around (x, y).
  void text(double x, double y, std::string_view content, std::string_view css_class,
            Anchor anchor = Anchor::kStart, double degrees = 0, std::string_view tooltip = {});

  std::string str() const { return body_ + "</svg>\n"; }

 private:
  void close(std::string_view tooltip, std::string_view tag);

  std::string body_;
};

// Maps [domain_low, domain_high] onto [range_low, range_high]; a degenerate domain maps to the
// middle of the range.
struct LinearScale {
  double domain_low = 0, domain_high = 1;
  double range_low = 0, range_high = 1;
  double operator()(double value) const;
};

// The range of `values` with some room above and below; never empty (a single value or none
// gets a band around it).
std::pair<double, double> padded_range(const std::vector<double>& values);

// About `count` round tick values (1, 2 or 5 times a power of ten) within [low, high].
std::vector<double> nice_ticks(double low, double high, int count);

}  // namespace kbisect
