// The strategies that weigh every sample: each candidate carries its probability of being the
// culprit (posterior.h), and the search stops once one holds `confidence`. adaptive is the
// default, bayes its plain form (strategy.h).
#pragma once

#include <memory>

#include "bisect/strategy.h"

namespace kbisect {

std::unique_ptr<Strategy> make_adaptive_strategy(const BisectSpec& spec, const MetricSpec& metric,
                                                 double confidence);
std::unique_ptr<Strategy> make_bayes_strategy(const BisectSpec& spec, const MetricSpec& metric,
                                              double confidence);

}  // namespace kbisect
