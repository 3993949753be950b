// The Runner a scenario asks for (vm.runner): qemu or libvirt. runner: sim has no kernels to
// boot; only the bisection's simulated measurer (bisect/sim_measurer.h) serves it.
#pragma once

#include <filesystem>
#include <memory>

#include "common/events.h"
#include "config/scenario.h"
#include "vm/runner.h"

namespace kbisect {

std::unique_ptr<Runner> make_runner(const Scenario& scenario, const std::filesystem::path& workdir,
                                    Events* events);

}  // namespace kbisect
