// The workload's job files, parsed on the host as kdio will parse them in the guest, before
// anything is built: a misspelt option, an unset ${VAR} or a metric's job name that no job has
// would otherwise show only after a kernel build and a boot, in every sample.
#pragma once

#include <string>
#include <vector>

#include "config/scenario.h"

namespace kbisect {

// Parses the job files of each of `variants` (nullptr: the default workload) with the
// environment kdio gets in the guest; throws Error naming the job file and line (and the
// variant), or the metric that no job does I/O for in any of the variants. Returns kdio's
// warnings, each once as "FILE:LINE: MESSAGE", naming the variants that give it unless all do,
// and a warning for each variant in which a metric has no job doing I/O for it.
std::vector<std::string> check_job_files(const Scenario& scenario,
                                         const std::vector<const Variant*>& variants);

// The same for every variant the scenario declares, or for its default workload if it declares
// none.
std::vector<std::string> check_job_files(const Scenario& scenario);

}  // namespace kbisect
