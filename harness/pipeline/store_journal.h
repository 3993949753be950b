// The bisection journal (bisect/session.h) in the results database. Each entry is committed
// the moment it is appended; verdicts also become rows of the verdicts table and a commit's
// first measurement a step, for `kbisect log` and `kbisect query steps`. The samples
// themselves are stored by the measurer as they are taken (session_measurer.h), which also
// hands a run that a killed process stored but did not journal to the resumed session.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "bisect/session.h"
#include "common/events.h"
#include "pipeline/session_measurer.h"
#include "store/store.h"

namespace kbisect {

class StoreJournal : public SessionJournal {
 public:
  // `measurer` tells which run a sample or failure entry comes from.
  StoreJournal(Store& store, Events& events, const StoringMeasurer& measurer, int64_t session_id);

  void append(const JournalEntry& entry) override;
  std::vector<JournalEntry> replay() const override;

 private:
  void add_step_once(const JournalEntry& entry, const std::string& phase);
  // The step that first measured `commit`; none for a commit measured through an alias.
  std::optional<int> step_of(const std::string& commit) const;
  // Stores `verdict` for `commit`, under the commit's step.
  void add_verdict(VerdictRecord verdict, const std::string& commit, const std::string& phase);
  // A failed measurement's skip verdict, or why it is none, and the note that says so.
  void store_failure(const JournalEntry& entry, const std::string& status);
  void store_verdict_of(const JournalEntry& entry);

  Store& store_;
  Events& events_;
  const StoringMeasurer& measurer_;
  int64_t session_id_;
  std::map<std::string, int> step_of_commit_;
  int steps_ = 0;
};

// The commit whose samples are `commit`'s in the session: the one measured first with the
// same kernel image (a documentation-only change is never booted itself), else `commit`.
std::string measured_as(Store& store, int64_t session_id, const std::string& commit);

}  // namespace kbisect
