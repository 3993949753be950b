// The identity of a scenario's measurements: two scenarios with the same hash produce
// samples that may be pooled. Stored as config_hash with every sample.
#pragma once

#include <string>

#include "config/scenario.h"

namespace kbisect {

// 64 hex digits: sha256 over everything that can change a measured value (kernel config
// inputs and the contents of their files, command line, VM shape, device, filesystem, job
// file contents, vars and variants, the sim model), and nothing else (name, paths of the
// database and work directories, timeouts, bisection settings, metrics: metrics are
// extracted from the stored JSON, so choosing others does not invalidate samples).
std::string scenario_hash(const Scenario& scenario);

}  // namespace kbisect
