#include "build/leftover_make.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "common/file.h"
#include "common/local_process.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

constexpr const char* kNoteName = ".kbisect-make";

// Whether a process of `group` still runs (zombies, which no longer build, do not count).
bool group_runs(int group) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::optional<std::string> stat = read_file_if_present(entry.path() / "stat");
    size_t comm_end = stat ? stat->rfind(')') : std::string::npos;
    if (comm_end == std::string::npos) continue;  // gone meanwhile
    char state = 0;
    int parent = 0, process_group = 0;
    bool parsed = std::sscanf(stat->c_str() + comm_end + 1, " %c %d %d", &state, &parent,
                              &process_group) == 3;
    if (parsed && process_group == group && state != 'Z') return true;
  }
  return false;
}

}  // namespace

MakeGroupNote::~MakeGroupNote() {
  std::error_code ignored;
  fs::remove(dir_ / kNoteName, ignored);
}

void MakeGroupNote::note(int process_group) {
  write_file_atomically(dir_ / kNoteName, fmt::format("{} {}\n", ::getpid(), process_group));
}

std::optional<std::string> stop_leftover_make(const fs::path& dir) {
  std::optional<std::string> note = read_file_if_present(dir / kNoteName);
  if (!note) return std::nullopt;
  std::error_code ignored;
  fs::remove(dir / kNoteName, ignored);
  int owner = 0, group = 0;
  if (std::sscanf(note->c_str(), "%d %d", &owner, &group) != 2 || group <= 1 ||
      process_exists(owner)) {
    return std::nullopt;
  }
  std::string leader = read_file_if_present(fmt::format("/proc/{}/cmdline", group)).value_or("");
  if (leader.find(dir.string()) == std::string::npos || !group_runs(group)) return std::nullopt;
  ::kill(-group, SIGKILL);
  for (int i = 0; i < 100 && group_runs(group); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return fmt::format(
      "stopped a make left running in {} by kbisect process {}, which was killed (process "
      "group {})",
      dir.string(), owner, group);
}

}  // namespace kbisect
