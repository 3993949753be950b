#include "store/store_lock.h"

#include <fmt/format.h>

#include <iostream>

#include "common/local_process.h"
#include "common/shell_quote.h"

namespace kbisect {

std::string bisect_lock_name(int64_t session_id) {
  return fmt::format("bisect:{}", session_id);
}

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

namespace {

// The command that removes the lock, to paste into a shell: the path and the name may hold
// blanks or quotes.
std::string unlock_command(const std::string& name, const std::string& database) {
  std::string literal;
  for (char c : name) literal += c == '\'' ? std::string("''") : std::string(1, c);
  return shell_command(
      {"sqlite3", database, fmt::format("DELETE FROM locks WHERE name = '{}'", literal)});
}

}  // namespace

LockHeld::LockHeld(const std::string& name, const std::string& database, LockHolder holder)
    : Error(fmt::format(
          "lock '{}' in {} is held by {}; wait for it to finish. If that process is not the "
          "holder any more (its pid was reused, or it ran on another host that is gone), "
          "remove the lock: {}",
          name, database, describe_holder(holder), unlock_command(name, database))),
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
