#include "report/format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "bisect/statistics.h"

namespace kbisect {
namespace {

// fmt prints -0.0 as "-0": a change or value that rounds to zero has no sign.
double without_negative_zero(double value, double unit) {
  return std::abs(value) < unit / 2 ? 0.0 : value;
}

}  // namespace

std::string format_value(double value) {
  if (!std::isfinite(value)) return "n/a";
  const double magnitude = std::abs(value);
  if (magnitude >= 100) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  if (magnitude >= 1) return fmt::format("{:.2f}", value);
  if (magnitude == 0) return "0";
  return fmt::format("{:.3g}", value);
}

std::string format_tick(double tick, double step, double largest) {
  constexpr std::pair<double, const char*> kPrefixes[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  const double magnitude = std::abs(largest);
  if (!std::isfinite(tick) || magnitude < 1e5 || tick == 0) return format_value(tick);
  for (const auto& [scale, prefix] : kPrefixes) {
    if (magnitude < scale) continue;
    const double scaled_step = step / scale;
    const int decimals =
        scaled_step > 0 && std::isfinite(scaled_step)
            ? std::clamp(static_cast<int>(std::ceil(-std::log10(scaled_step) - 1e-9)), 0, 9)
            : 0;
    return fmt::format("{:.{}f}{}", tick / scale, decimals, prefix);
  }
  return format_value(tick);
}

std::string format_median(std::span<const double> values) {
  return values.empty() ? "-" : format_value(median(values));
}

std::string format_change(double relative) {
  if (!std::isfinite(relative)) return "n/a";
  const double percent = without_negative_zero(100 * relative, 0.1);
  if (percent == 0) return "0.0%";
  return fmt::format("{:+.1f}%", percent);
}

std::string format_stddev(std::span<const double> values) {
  if (values.size() < 2) return "";
  const double center = mean(values);
  if (center == 0) return "";
  return fmt::format("±{:.0f}%", std::abs(100 * stddev(values) / center));
}

std::string format_percent_stddev(std::span<const double> values) {
  if (values.size() < 2) return "-";
  const double center = mean(values);
  if (center == 0) return "-";
  return fmt::format("{:.1f}%", std::abs(100 * stddev(values) / center));
}

std::string format_p(double p) {
  if (!std::isfinite(p)) return "-";
  if (p >= 0.001) return fmt::format("{:.3g}", p);
  return fmt::format("{:.1e}", p);
}

std::string short_id(std::string_view commit) {
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string shortened;
  for (size_t start; (start = commit.find_first_of(kHex)) != std::string_view::npos;) {
    const size_t end = std::min(commit.find_first_not_of(kHex, start), commit.size());
    shortened += commit.substr(0, start);
    // A full commit id shortens to 12 digits; other hex (a word like "bad") stays.
    shortened += commit.substr(start, end - start == 40 ? 12 : end - start);
    commit.remove_prefix(end);
  }
  return shortened + std::string(commit);
}

std::string short_ids(const nlohmann::json& commits) {
  std::string text;
  for (const auto& commit : commits) {
    if (!commit.is_string()) continue;
    if (!text.empty()) text += ' ';
    text += short_id(commit.get<std::string>());
  }
  return text;
}

}  // namespace kbisect
