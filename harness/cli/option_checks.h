// The checks of options, with messages that say what the value is. CLI11's own would say
// "Value 0 not in range 0.000000 to 1797693134862315708..." for a session id (its bounds are
// doubles), and "Value abc not in range 1 to 1000" for a count that is no number.
#pragma once

#include <CLI/CLI.hpp>

namespace kbisect {

// A session id (bisect --resume).
CLI::Validator session_id_check();

// A number of samples, 1 to 1000 (run, compare and revert-check --samples).
CLI::Validator sample_count_check();

// A value that is not empty (--db, nightly --baseline): `--db "$DB"` with DB unset would
// otherwise pass for an option not given, and take the default.
CLI::Validator not_empty_check(std::string what);

}  // namespace kbisect
