// The strategies that walk the candidates as git bisect does and judge each commit once, by a
// rule of their own: classic, lkp and pinpoint, for comparison (strategy.h), and the search of
// a boot regression (strategy.h: make_boot_strategy).
#pragma once

#include <memory>

#include "bisect/strategy.h"

namespace kbisect {

std::unique_ptr<Strategy> make_classic_strategy(const BisectSpec& spec, const MetricSpec& metric);
std::unique_ptr<Strategy> make_lkp_strategy(const BisectSpec& spec, const MetricSpec& metric);
std::unique_ptr<Strategy> make_pinpoint_strategy(const BisectSpec& spec, const MetricSpec& metric,
                                                 int attempts);

}  // namespace kbisect
