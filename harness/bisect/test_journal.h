// Journal entries for the tests of what replays and stores the bisection journal.
#pragma once

#include <string>

#include "bisect/session.h"

namespace kbisect::testing {

inline JournalEntry sample(const std::string& commit, double value, Phase phase = Phase::kSearch) {
  JournalEntry entry;
  entry.kind = JournalEntry::Kind::kSample;
  entry.phase = phase;
  entry.commit = commit;
  entry.value = value;
  return entry;
}

inline JournalEntry failure(const std::string& commit, MeasureStatus status) {
  JournalEntry entry;
  entry.kind = JournalEntry::Kind::kFailure;
  entry.commit = commit;
  entry.status = status;
  return entry;
}

// An alias's detail is the commit whose kernel image it shares.
inline JournalEntry of_kind(JournalEntry::Kind kind, const std::string& commit,
                            const std::string& detail = "") {
  JournalEntry entry;
  entry.kind = kind;
  entry.commit = commit;
  entry.detail = detail;
  return entry;
}

}  // namespace kbisect::testing
