// The Runner a scenario asks for (vm.runner): qemu or libvirt. runner: sim has no kernels to
// boot; only the bisection's simulated measurer (bisect/sim_measurer.h) serves it.
#pragma once

#include <filesystem>
#include <memory>

#include "common/events.h"
#include "config/scenario.h"
#include "vm/runner.h"

namespace kbisect {

// Throws Error for runner: sim, which measures no kernel: before anything is made for one.
void check_runner_boots_kernels(const Scenario& scenario);

std::unique_ptr<Runner> make_runner(const Scenario& scenario, const std::filesystem::path& workdir,
                                    Events* events);

}  // namespace kbisect
