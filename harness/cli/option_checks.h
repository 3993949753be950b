// The check of an option that takes a session id (bisect --resume, log SESSION). CLI11's
// PositiveNumber would say "Value 0 not in range 0.000000 to 1797693134862315708..." (its
// bounds are doubles); this says what a session id is and where to find one.
#pragma once

#include <CLI/CLI.hpp>

namespace kbisect {

CLI::Validator session_id_check();

}  // namespace kbisect
