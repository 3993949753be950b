#include "bisect/journal_state.h"

#include <algorithm>

#include "bisect/aliases.h"

namespace kbisect {
namespace {

template <typename T>
const std::vector<T>& of(const std::map<std::string, std::vector<T>>& per_commit,
                         const std::string& id) {
  static const std::vector<T> none;
  auto found = per_commit.find(id);
  return found == per_commit.end() ? none : found->second;
}

template <typename T>
void append(std::vector<T>& to, const std::vector<T>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

}  // namespace

JournalState::JournalState(std::string good, std::string bad)
    : good_(std::move(good)), bad_(std::move(bad)) {}

void JournalState::apply(const JournalEntry& entry) {
  const bool search = entry.phase == Phase::kSearch;
  switch (entry.kind) {
    case JournalEntry::Kind::kSample:
      (search ? search_samples_ : confirm_samples_)[entry.commit].push_back(entry.value);
      (search ? search_sequences_ : confirm_sequences_)[entry.commit].push_back(sequence_);
      ++attempts_[entry.commit];
      ++sequence_;
      failed_since_a_sample_.erase(entry.commit);
      break;
    case JournalEntry::Kind::kFailure:
      ++attempts_[entry.commit];
      ++sequence_;
      if (!retries(entry)) (search ? failures_ : confirm_failures_)[entry.commit] = entry;
      failed_since_a_sample_.insert(entry.commit);
      break;
    case JournalEntry::Kind::kAlias:
      if (resolve(entry.detail) != entry.commit) aliases_[entry.commit] = entry.detail;
      break;
    case JournalEntry::Kind::kVerdict:
      verdicts_.emplace_back(entry.commit, entry.verdict);
      break;
    case JournalEntry::Kind::kEndpointsOk:
      endpoint_check_samples_ =
          std::min(samples(Phase::kSearch, good_).size(), samples(Phase::kSearch, bad_).size());
      break;
    case JournalEntry::Kind::kReopen:
      for (const auto& [commit, values] : confirm_samples_) {
        append(search_samples_[commit], values);
        append(search_sequences_[commit], confirm_sequences_[commit]);
      }
      confirm_samples_.clear();
      confirm_sequences_.clear();
      refuted_.push_back({entry.commit, entry.detail});
      break;
  }
}

std::string JournalState::resolve(const std::string& id) const {
  return follow_aliases(aliases_, id);
}

const std::vector<double>& JournalState::samples(Phase phase, const std::string& id) const {
  return of(phase == Phase::kSearch ? search_samples_ : confirm_samples_, resolve(id));
}

const std::vector<int>& JournalState::sequences(Phase phase, const std::string& id) const {
  return of(phase == Phase::kSearch ? search_sequences_ : confirm_sequences_, resolve(id));
}

const JournalEntry* JournalState::failure(Phase phase, const std::string& id) const {
  const Failures& failures = phase == Phase::kSearch ? failures_ : confirm_failures_;
  auto found = failures.find(resolve(id));
  return found == failures.end() ? nullptr : &found->second;
}

int JournalState::attempts(const std::string& id) const {
  auto found = attempts_.find(id);
  return found == attempts_.end() ? 0 : found->second;
}

bool JournalState::retries(const JournalEntry& failure) const {
  return failure.status != MeasureStatus::kBuildFailed &&
         !failed_since_a_sample_.contains(failure.commit) &&
         (!samples(Phase::kSearch, failure.commit).empty() ||
          !samples(Phase::kConfirm, failure.commit).empty());
}

size_t JournalState::sample_count() const {
  size_t total = 0;
  for (const Samples* phase : {&search_samples_, &confirm_samples_}) {
    for (const auto& [commit, values] : *phase) total += values.size();
  }
  return total;
}

std::optional<VerdictKind> JournalState::verdict_of(const std::string& commit) const {
  auto latest = std::find_if(verdicts_.rbegin(), verdicts_.rend(),
                             [&](const auto& verdict) { return verdict.first == commit; });
  if (latest == verdicts_.rend()) return std::nullopt;
  return latest->second.kind;
}

}  // namespace kbisect
