// A make whose kbisect was killed outright (kill -9, the OOM killer) builds on without it, in
// a directory the next kbisect uses. While make runs, its process group is noted in
// DIR/.kbisect-make; the next build there first stops what is left of it (holding the
// directory's lock, it knows the group is nobody's). The QEMU runners sweep their VMs alike.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kbisect {

// Notes the process group of the make running in `dir` (note()), until destroyed.
class MakeGroupNote {
 public:
  explicit MakeGroupNote(std::filesystem::path dir) : dir_(std::move(dir)) {}
  ~MakeGroupNote();
  MakeGroupNote(const MakeGroupNote&) = delete;
  MakeGroupNote& operator=(const MakeGroupNote&) = delete;

  void note(int process_group);

 private:
  std::filesystem::path dir_;
};

// Stops the make noted in `dir` when the kbisect that ran it is gone and its group still runs
// there (a group id can be reused: its leader must name `dir`); returns what to tell the user
// when it stopped one.
std::optional<std::string> stop_leftover_make(const std::filesystem::path& dir);

}  // namespace kbisect
