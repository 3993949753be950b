// Reverting commits without a work tree (revert-check, and confirming a culprit): each commit
// is reverted in memory on top of the previous result and written as a real commit object, on
// no branch, so the result has an id the builder and the database can use.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "git/repository.h"

namespace kbisect {

struct RevertResult {
  std::string commit_id;  // the last revert commit; its first-parent chain leads back to base
  std::string tree_id;
  // Reverted commits that are not in base's history: reverted all the same (a backport's
  // upstream original reverts cleanly), but more often a wrong base or id.
  std::vector<std::string> not_in_base;
};

// Reverts `commits` in the given order on top of `base`, one commit "Revert "<subject>"" per
// reverted commit, as `git revert` would. A merge is reverted against its first parent (like
// `git revert -m 1`). The commits carry kbisect's identity and base's commit time, so the same
// revert always gives the same id. Throws Error naming the conflicting files when a revert does
// not apply cleanly.
RevertResult revert_commits(const Repository& repo, std::string_view base,
                            const std::vector<std::string>& commits);

}  // namespace kbisect
