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

namespace {

// /proc/PID/stat is "PID (COMM) STATE ...", and COMM may hold spaces and parentheses.
bool is_zombie(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(stat_file, stat);
  const size_t comm_end = stat.rfind(')');
  return comm_end != std::string::npos && stat.compare(comm_end, 3, ") Z") == 0;
}

}  // namespace

bool process_exists(pid_t pid) {
  if (pid <= 0) return false;  // 0 and negative pids name process groups, not a process
  if (::kill(pid, 0) != 0) return errno != ESRCH;
  return !is_zombie(pid);
}

std::string process_name(pid_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace kbisect
