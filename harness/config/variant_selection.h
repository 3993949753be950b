// Choosing variants of a scenario by name, as the commands' --variant and REF@VARIANT do.
#pragma once

#include <string>
#include <vector>

#include "config/scenario.h"

namespace kbisect {

// The variant called `name`; "" is the default variant (nullptr). Throws Error naming the
// variants that exist.
const Variant* find_variant(const Scenario& scenario, const std::string& name);

// The variants `names` select, in the order given: a name selects the variant of that name,
// or, when there is none, every variant a matrix made from it ("short" selects "short,BS=4k",
// "short,BS=64k", ... in the matrix's order). No names: the default variant alone (nullptr).
// Throws Error as find_variant does for a name that selects nothing.
std::vector<const Variant*> select_variants(const Scenario& scenario,
                                            const std::vector<std::string>& names);

}  // namespace kbisect
