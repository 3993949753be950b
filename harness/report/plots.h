// The HTML report's plots, each an inline <svg> styled by the page's CSS classes:
//   commit_plot: one metric per tested commit of a bisection in topological order (oldest
//     left), every sample a point (class "sample") and the median a bar, coloured by verdict;
//   path_plot: the commit each step of the bisection measured (its place in that order) and
//     its verdict, joined in step order;
//   ab_plot: the two sides of a comparison as strips of points over a box (quartiles, median,
//     range).
// A plot with nothing to show is a <p class="empty"> that says so, never an empty <svg>.
#pragma once

#include <string>

#include "report/comparison.h"
#include "report/report_data.h"

namespace kbisect {

std::string commit_plot(const ReportData& data, const std::string& metric);
std::string path_plot(const ReportData& data);
std::string ab_plot(const Comparison& comparison, const MetricComparison& row);

}  // namespace kbisect
