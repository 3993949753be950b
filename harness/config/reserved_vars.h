// Workload variable names the guest keeps for itself: its /init (vmimages/guest/init) sets
// them, and run.env, sourced after that, would silently replace them.
#pragma once

#include <string>
#include <string_view>

namespace kbisect {

bool is_reserved_var(std::string_view name);

// The reserved names for a message: "KBISECT_*, PATH, ...".
std::string reserved_var_names();

}  // namespace kbisect
