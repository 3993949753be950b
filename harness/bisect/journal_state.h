// What a session's journal says so far (session.h: JournalEntry), entry by entry: each
// commit's samples in the search and in the confirmation and when each was taken, the failures
// that count, which commits share an image, the verdicts and the refuted culprits. A resumed
// session replays its journal into one; a running one applies each entry as it journals it, so
// both see the same.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bisect/session.h"

namespace kbisect {

class JournalState {
 public:
  JournalState(std::string good, std::string bad);

  void apply(const JournalEntry& entry);

  // The commit whose samples `id` shares (an identical image), or `id`.
  std::string resolve(const std::string& id) const;

  // These three follow resolve(): they answer for the commit whose image `id` has.
  const std::vector<double>& samples(Phase phase, const std::string& id) const;
  const std::vector<int>& sequences(Phase phase, const std::string& id) const;  // when taken
  // The failure of `id` in `phase` that counts (one retried is not), if any.
  const JournalEntry* failure(Phase phase, const std::string& id) const;
  // How many times `id` itself was measured (no resolve(): the measurer counts the attempts of
  // the commit it measures).
  int attempts(const std::string& id) const;

  // Whether `failure` is taken for its run's, and the commit measured again: the commit built,
  // measured fine before (the search or the confirmation) and has not failed since. Its next
  // failure in a row counts.
  bool retries(const JournalEntry& failure) const;

  // Measurements so far, failures included: the next one's MeasureRequest::sequence.
  int sequence() const { return sequence_; }
  // Every sample, the confirmation's included.
  size_t sample_count() const;
  // The search's failures that count, by commit.
  const std::map<std::string, JournalEntry>& search_failures() const { return failures_; }
  // Every verdict, in the order they were made.
  const std::vector<std::pair<std::string, CommitVerdict>>& verdicts() const { return verdicts_; }
  // The latest verdict about `commit` itself (no resolve(): a verdict is about the commit named).
  std::optional<VerdictKind> verdict_of(const std::string& commit) const;
  // Once the endpoints differ as configured: the samples each had then (the fewer of the two).
  std::optional<size_t> endpoint_check_samples() const { return endpoint_check_samples_; }
  const std::vector<RefutedCulprit>& refuted() const { return refuted_; }

 private:
  using Samples = std::map<std::string, std::vector<double>>;
  using Sequences = std::map<std::string, std::vector<int>>;
  using Failures = std::map<std::string, JournalEntry>;

  std::string good_;
  std::string bad_;
  Samples search_samples_;
  Sequences search_sequences_;
  Samples confirm_samples_;
  Sequences confirm_sequences_;
  std::map<std::string, int> attempts_;
  std::map<std::string, std::string> aliases_;
  Failures failures_;  // the search's: these are skipped, or counted as bad
  Failures confirm_failures_;
  std::set<std::string> failed_since_a_sample_;  // a failure is its last measurement
  std::vector<std::pair<std::string, CommitVerdict>> verdicts_;
  std::optional<size_t> endpoint_check_samples_;
  std::vector<RefutedCulprit> refuted_;
  int sequence_ = 0;
};

}  // namespace kbisect
