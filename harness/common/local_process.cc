#include "common/local_process.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace kbisect {

std::string this_host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

bool process_exists(pid_t pid) {
  if (pid <= 0) return false;  // 0 and negative pids name process groups, not a process
  return ::kill(pid, 0) == 0 || errno != ESRCH;
}

std::string process_name(pid_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace kbisect
