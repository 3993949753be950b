#include "store/store_lock.h"

#include <fmt/format.h>

#include <iostream>

#include "common/local_process.h"

namespace kbisect {
std::string describe_holder(const LockHolder& holder) {
  std::string program;
  if (holder.host == this_host_name()) {
    std::string name = process_name(static_cast<pid_t>(holder.pid));
    if (!name.empty()) program = fmt::format(" ({})", name);
  }
  return fmt::format("process {}{} on {} since {}", holder.pid, program, holder.host,
                     holder.acquired_at);
}

nlohmann::json holder_json(const LockHolder& holder) {
  return {{"pid", holder.pid}, {"host", holder.host}, {"acquired_at", holder.acquired_at}};
}

LockHeld::LockHeld(const std::string& name, const std::string& database, LockHolder holder)
    : Error(fmt::format(
          "lock '{}' in {} is held by {}; wait for it to finish. If that process is not the "
          "holder any more (its pid was reused, or it ran on another host that is gone), "
          "remove the lock: sqlite3 {} \"DELETE FROM locks WHERE name = '{}'\"",
          name, database, describe_holder(holder), database, name)),
      holder_(std::move(holder)) {}

StoreLock::StoreLock(Store& store, std::string name) : store_(store), name_(std::move(name)) {
  LockAttempt attempt = store_.try_lock(name_);
  if (!attempt.acquired) throw LockHeld(name_, store_.path().string(), *attempt.holder);
  taken_over_from_ = std::move(attempt.holder);
}

StoreLock::~StoreLock() {
  // A destructor must not throw; a lock left behind is taken over by the next run anyway,
  // since this process is gone by then.
  try {
    store_.unlock(name_);
  } catch (const std::exception& error) {
    std::cerr << fmt::format("kbisect: warning: cannot release lock '{}': {}\n", name_,
                             error.what());
  }
}

}  // namespace kbisect
