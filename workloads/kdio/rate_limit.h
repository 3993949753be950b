// fio's rate control (rate= and rate_iops=, per direction): an I/O may start once the bytes and
// the I/Os issued before it fit the rate, counted from the start of the measurement. The ramp's
// I/O does not count once the ramp is over (fio's reset_all_stats()), so a ramp that fell behind
// the rate is not made up for.
#pragma once

#include <cstdint>

#include "job.h"

namespace kdio {

class RateLimit {
 public:
  explicit RateLimit(const Job& job) : job_(job) {}

  // Counting starts (again) at `start_ns`: the run's start, then the ramp's end.
  void restart(uint64_t start_ns);
  // An I/O of `bytes` in `dir` was issued.
  void count(Direction dir, uint64_t bytes);

  bool limits(Direction dir) const;
  // When the next I/O in `dir` may start; the measurement's start when it may at once.
  uint64_t start_ns(Direction dir) const;
  // Mixed I/O with a rate per direction: a direction that must wait after `now_ns` gives its
  // turn to the other when that one may start sooner, as fio does; else reads queue behind the
  // write limit.
  Direction sooner(Direction dir, uint64_t now_ns) const;

 private:
  const Job& job_;
  uint64_t start_ns_ = 0;
  uint64_t bytes_[2] = {0, 0};  // per Direction, since start_ns_
  uint64_t ios_[2] = {0, 0};
};

}  // namespace kdio
