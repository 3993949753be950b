// Processes of this host: which host this is, and whether a process that left its pid somewhere
// (a lock row in the results database) is still there. Pids mean something only on their host.
#pragma once

#include <sys/types.h>

#include <string>

namespace kbisect {

// gethostname(), or "unknown" when it fails: what the database records as a process's host.
std::string this_host_name();

// False when no process has this pid (kill(pid, 0) fails with ESRCH) or it is a zombie, which
// has ended and holds nothing until its parent reaps it: a process this user may not signal
// still exists.
bool process_exists(pid_t pid);

// The program name of a process of this host (/proc/PID/comm), or "" when it cannot be read.
// For messages: it tells a person whether a pid still belongs to the program that stored it.
std::string process_name(pid_t pid);

}  // namespace kbisect
