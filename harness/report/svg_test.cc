#include "report/svg.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace kbisect {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Svg, EscapesEveryTextTitleAndClass) {
  SvgWriter svg(100, 50, "<script>alert('x')</script>");
  svg.text(1, 2, "a < b & \"c\"", "tick-label", SvgWriter::Anchor::kMiddle, -45,
           "<img src=x onerror=alert(1)>");
  svg.circle(3, 4, 2, "sample\" onload=\"alert(1)", "</title><script>");
  const std::string out = svg.str();
  EXPECT_THAT(out, Not(HasSubstr("<script")));
  EXPECT_THAT(out, Not(HasSubstr("<img")));
  EXPECT_THAT(out, Not(HasSubstr("\" onload=")));
  EXPECT_THAT(out, HasSubstr("aria-label=\"&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;\""));
  EXPECT_THAT(out, HasSubstr(">a &lt; b &amp; &quot;c&quot;<title>"));
  EXPECT_THAT(out, HasSubstr("transform=\"rotate(-45 1.0 2.0)\""));
  EXPECT_THAT(out, HasSubstr("<title>&lt;/title&gt;&lt;script&gt;</title></circle>"));
  EXPECT_THAT(out, testing::EndsWith("</svg>\n"));
}

TEST(Svg, ShapesWithoutTooltipsAreSelfClosing) {
  SvgWriter svg(10, 10, "t");
  svg.rect(1, 2, -3, 4, "box");
  svg.polyline({{1, 2}, {3.25, 4}}, "path");
  svg.line(0, 0, 1, 1, "axis");
  const std::string out = svg.str();
  EXPECT_THAT(out, HasSubstr("<rect x=\"1.0\" y=\"2.0\" width=\"0.0\" height=\"4.0\" "
                             "class=\"box\"/>"));
  EXPECT_THAT(out, HasSubstr("<polyline points=\"1.0,2.0 3.2,4.0\" class=\"path\"/>"));
  EXPECT_THAT(out, HasSubstr("<line x1=\"0.0\" y1=\"0.0\" x2=\"1.0\" y2=\"1.0\" class=\"axis\"/>"));
}

TEST(Svg, LinearScaleMapsAndInverts) {
  LinearScale y{0, 100, 300, 20};  // values up, pixels down
  EXPECT_DOUBLE_EQ(y(0), 300);
  EXPECT_DOUBLE_EQ(y(100), 20);
  EXPECT_DOUBLE_EQ(y(50), 160);
  LinearScale flat{5, 5, 0, 10};
  EXPECT_DOUBLE_EQ(flat(5), 5);
}

TEST(Svg, PaddedRangeIsNeverEmpty) {
  EXPECT_EQ(padded_range({}), (std::pair<double, double>{0, 1}));
  auto [low, high] = padded_range({10, 20});
  EXPECT_LT(low, 10);
  EXPECT_GT(high, 20);
  auto [one_low, one_high] = padded_range({7});
  EXPECT_LT(one_low, 7);
  EXPECT_GT(one_high, 7);
  auto [zero_low, zero_high] = padded_range({0, 0});
  EXPECT_LT(zero_low, zero_high);
}

// Samples a few ulps apart (0.3 and 0.1 + 0.2) once made the tick loop run forever: each tick
// was within rounding of the last.
TEST(Svg, ValuesWithinRoundingGiveAFewDistinctTicks) {
  auto [low, high] = padded_range({0.3, 0.3, 0.1 + 0.2});
  EXPECT_LT(low, 0.299);
  EXPECT_GT(high, 0.301);
  const std::vector<double> ticks = nice_ticks(low, high, 5);
  EXPECT_GE(ticks.size(), 2u);
  EXPECT_LE(ticks.size(), 12u);
  EXPECT_THAT(nice_ticks(0.3, 0.3 + 1e-16, 5), ElementsAre(0.3));
}

// Values no kdio report gives, but a database can hold: the plot keeps finite coordinates.
TEST(Svg, ExtremeValuesMapToFiniteCoordinates) {
  auto [low, high] = padded_range({-1e308, 1e308, std::numeric_limits<double>::infinity()});
  EXPECT_EQ(low, -1e308);
  EXPECT_EQ(high, 1e308);
  const LinearScale y{low, high, 300, 20};
  EXPECT_DOUBLE_EQ(y(1e308), 20);
  EXPECT_DOUBLE_EQ(y(0), 160);
  for (double tick : nice_ticks(low, high, 5)) EXPECT_TRUE(std::isfinite(y(tick))) << tick;
  EXPECT_EQ(padded_range({std::numeric_limits<double>::infinity()}),
            (std::pair<double, double>{0, 1}));
}

TEST(Svg, TicksAreRoundAndInside) {
  EXPECT_THAT(nice_ticks(0, 10, 5), ElementsAre(0, 2, 4, 6, 8, 10));
  EXPECT_THAT(nice_ticks(733, 1088, 5), ElementsAre(800, 900, 1000));
  EXPECT_THAT(nice_ticks(-0.3, 0.3, 3), ElementsAre(-0.2, 0, 0.2));
  EXPECT_THAT(nice_ticks(5, 5, 5), ElementsAre(5));
}

}  // namespace
}  // namespace kbisect
