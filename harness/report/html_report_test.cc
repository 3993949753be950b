#include "report/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "report/test_reports.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using C = TestCommits;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, IsOneSelfContainedPage) {
  const std::string html = html_report(finished_bisect_report());
  EXPECT_THAT(html, testing::StartsWith("<!DOCTYPE html>\n<html lang=\"en\">"));
  EXPECT_THAT(html, testing::EndsWith("</body>\n</html>\n"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  // Nothing is fetched: the SVG namespace is the only URL.
  const std::string without_namespaces =
      std::regex_replace(html, std::regex(" xmlns=\"http://www.w3.org/2000/svg\""), "");
  EXPECT_THAT(without_namespaces, Not(HasSubstr("http:")));
  EXPECT_THAT(without_namespaces, Not(HasSubstr("https:")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_EQ(count(html, "<svg "), count(html, "</svg>"));
}

TEST(HtmlReport, TheConfirmationSaysWhichSamplesItJudges) {
  const std::string html = html_report(finished_bisect_report());
  EXPECT_THAT(html, HasSubstr("<h2>Confirmation</h2>\n<p>The confirmation is on samples taken "
                              "after the search"));
}

TEST(HtmlReport, PlotsEverySampleOfEveryTestedCommit) {
  const std::string html = html_report(finished_bisect_report());
  // Per metric: 4 tested commits of the range with 3 samples each (C3 failed, R is no commit
  // of the range), plus the A/B plots: parent vs culprit and revert vs bad, 3 + 3 each.
  const size_t per_metric = 4 * 3 + 2 * (3 + 3);
  EXPECT_EQ(count(html, "<circle cx=\"") - count(html, "class=\"step "), 2 * per_metric);
  EXPECT_EQ(count(html, "class=\"sample v-good\""), 2u * 2 * 3);  // G, C1 in both metrics
  EXPECT_EQ(count(html, "class=\"sample v-bad\""), 2u * 2 * 3);   // C2, B
  EXPECT_EQ(count(html, "class=\"culprit-band\""), 2u);
  // The path: the five steps of commits in the range, joined.
  EXPECT_EQ(count(html, "class=\"step v-"), 5u);
  EXPECT_THAT(html, HasSubstr("class=\"step v-skip\""));
  EXPECT_EQ(count(html, "<polyline "), 1u);
  EXPECT_THAT(html, HasSubstr("culprit 222222222222"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"empty\"")));
}

TEST(HtmlReport, SamplePointsSitInsideThePlot) {
  const std::string html = html_report(finished_bisect_report());
  std::regex circle("<circle cx=\"([-0-9.]+)\" cy=\"([-0-9.]+)\"");
  size_t points = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), circle), end; it != end; ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    EXPECT_GT(x, 60) << it->str();
    EXPECT_LT(x, 1400) << it->str();
    EXPECT_GT(y, 10) << it->str();
    EXPECT_LT(y, 300) << it->str();
    ++points;
  }
  EXPECT_GT(points, 0u);
}

TEST(HtmlReport, EscapesEveryValueFromTheDatabase) {
  ReportData data = finished_bisect_report();
  data.session.scenario = "<script>alert('scenario')</script>";
  data.session.config_path = "/tmp/\"><img src=x onerror=alert(1)>.yaml";
  data.subjects[C::C2] = "ext4: </title><script>alert(\"subject\")</script> & more";
  data.metrics = {"read.iops<svg onload=alert(1)>"};
  for (auto& sample : data.samples) {
    sample.metrics = {{"read.iops<svg onload=alert(1)>", sample.metrics.at("read.iops")}};
  }
  data.result["parent_check"] = "<b>worse</b>";
  data.failed_runs[0].detail = "<iframe src=//evil>";
  const std::string html = html_report(data);
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<iframe")));
  EXPECT_THAT(html, Not(HasSubstr("<svg onload")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(&apos;scenario&apos;)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("ext4: &lt;/title&gt;&lt;script&gt;alert(&quot;subject&quot;)"
                              "&lt;/script&gt; &amp; more"));
  EXPECT_THAT(html, HasSubstr("&lt;iframe src=//evil&gt;"));
}

TEST(HtmlReport, ACompareSessionShowsTheTwoDistributions) {
  const std::string html = html_report(compare_report());
  EXPECT_THAT(html, HasSubstr("<h2>A/B distributions</h2>"));
  EXPECT_THAT(html, Not(HasSubstr("Bisection path")));
  EXPECT_EQ(count(html, "class=\"sample side-before\""), 2u * 3);
  EXPECT_EQ(count(html, "class=\"sample side-after\""), 2u * 3);  // only the nolock samples
  EXPECT_EQ(count(html, "class=\"box side-"), 2u * 2);
  EXPECT_THAT(html, HasSubstr("read.iops: B -9.5%, p = 0.1 (too few samples)"));
  EXPECT_THAT(html, HasSubstr("<th>metric</th><th>finding</th>"));
  EXPECT_THAT(html, HasSubstr("<td><code>read.iops</code></td><td>too few samples</td>"));
}

TEST(HtmlReport, AnEmptySessionSaysThereIsNothingToPlot) {
  const std::string html = html_report(empty_bisect_report());
  EXPECT_THAT(html, Not(HasSubstr("<circle")));
  EXPECT_THAT(html, HasSubstr("<p class=\"empty\">No samples yet.</p>"));
  EXPECT_THAT(html, HasSubstr("<p class=\"empty\">No commit of the range measured yet.</p>"));
  EXPECT_THAT(html, HasSubstr("<h2>To reproduce</h2>"));
}

TEST(HtmlReport, APartialSessionPlotsWhatItHas) {
  ReportData data = empty_bisect_report();
  data.metrics = {"read.iops", "write.iops"};
  for (double value : {10.0, 11.0}) {
    data.samples.push_back({.commit = C::G, .metrics = {{"read.iops", value}}});
  }
  data.steps.push_back({.step = 1, .commit = C::G, .phase = "search"});
  const std::string html = html_report(data);
  EXPECT_EQ(count(html, "class=\"sample v-good\""), 2u);       // the commit plot
  EXPECT_EQ(count(html, "class=\"sample side-before\""), 2u);  // good's side of bad vs good
  EXPECT_EQ(count(html, "class=\"sample side-after\""), 0u);   // bad not measured yet
  EXPECT_EQ(count(html, "class=\"step v-good\""), 1u);
  EXPECT_THAT(html, HasSubstr("<p class=\"empty\">No samples of write.iops yet.</p>"));
  EXPECT_THAT(html, HasSubstr("<p class=\"empty\">No samples of write.iops on either side.</p>"));
}

}  // namespace
}  // namespace kbisect
