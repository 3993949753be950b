// How reports write numbers and commit ids: the same text in the text and the HTML report.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace kbisect {

// A measured value with the digits that matter for numbers that vary by percents: 123457,
// 7123, 712, 71.2, 7.12, 0.0712.
std::string format_value(double value);

// A plot's tick label, short enough for the axis's margin: from 100000 on with a prefix (250k,
// 25M, 1.1G: nanosecond latencies run to ten digits) and as many decimals as `step`, the distance
// between ticks, needs to tell them apart; below that as format_value.
std::string format_tick(double tick, double step, double largest);

// The median of a side's values with format_value; "-" when there are none.
std::string format_median(std::span<const double> values);

// A relative change as a percentage with its sign: "-45.2%", "+3.0%", "0.0%"; "n/a" when it
// cannot be computed (a median of zero).
std::string format_change(double relative);

// The relative standard deviation as 0-day prints it: "±5%"; "" with fewer than two values.
std::string format_stddev(std::span<const double> values);

// The same as the command lines print it, to a tenth: "5.3%"; "-" with fewer than two values
// (one sample has no spread to speak of, which "0.0%" would claim).
std::string format_percent_stddev(std::span<const double> values);

// A p-value: "0.032", "1.2e-05"; "-" when absent.
std::string format_p(double p);

// Every full commit id in `commit` cut to its first 12 digits: a commit id, or a sim runner's
// "revert:<id>@<id>".
std::string short_id(std::string_view commit);

// The commit ids of a JSON array, each with short_id, separated by spaces.
std::string short_ids(const nlohmann::json& commits);

}  // namespace kbisect
