// A named lock in the results database, held for the life of a StoreLock: released on every
// way out of its scope, an Error or a Ctrl-C (Interrupted unwinds the stack) included. A
// process killed outright (kill -9, power loss) cannot release it; the next taker on the same
// host finds that process gone and takes the lock over. `kbisect nightly` holds
// "nightly:<scenario>" so one nightly per scenario and database runs at a time, and a
// bisection "bisect:<session>".
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/error.h"
#include "store/store.h"

namespace kbisect {

// "process 4242 (kbisect) on host since 2026-11-30T09:15:02.123Z"; the program name only when
// the holder is of this host and still there.
std::string describe_holder(const LockHolder& holder);

// {"pid", "host", "acquired_at"}: the holder in a command's --json result.
nlohmann::json holder_json(const LockHolder& holder);

// The lock a bisection holds while it runs: one process per session.
std::string bisect_lock_name(int64_t session_id);

class LockHeld : public Error {
 public:
  LockHeld(const std::string& name, const std::string& database, LockHolder holder);
  const LockHolder& holder() const { return holder_; }

 private:
  LockHolder holder_;
};

class StoreLock {
 public:
  // Takes `name` in `store` (which must outlive the lock); throws LockHeld when a live
  // process holds it.
  StoreLock(Store& store, std::string name);
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

  const std::string& name() const { return name_; }
  // The holder the lock was taken over from, whose process was gone.
  const std::optional<LockHolder>& taken_over_from() const { return taken_over_from_; }

 private:
  Store& store_;
  std::string name_;
  std::optional<LockHolder> taken_over_from_;
};

}  // namespace kbisect
