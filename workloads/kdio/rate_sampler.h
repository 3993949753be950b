// fio's bandwidth and IOPS samples (stat.c __add_samples, fio 3.33): every bw_avg_time and
// iops_avg_time (500 ms, which kdio does not let change) fio's helper thread takes, per
// direction, the bytes and I/Os completed since its last sample and adds their rate, KiB/s
// (bytes * 1000 / ms / 1024, in whole numbers) and I/Os per second, to the job's bw and iops
// statistics. A window without I/O in a direction gives that direction no sample.
//
// kdio takes the samples at completions rather than on a timer, on a grid of exact 500 ms
// windows from the start of the measurement. fio's helper thread samples a few ms after a
// window ends, and only while the job runs: a job shorter than one window has no samples, and
// a job that stops within a few ms after a window's end mostly gets none for that window (fio
// 3.33, one time_based job with runtime=1000ms..1003ms: one sample, 1004ms: two; seven jobs at
// once with runtime=1: one or two, mostly one). kdio keeps a window that the job outlived by
// less than kLateNs out for that reason; the partial window at the end never counts.
#pragma once

#include <cstdint>

#include "job.h"
#include "result.h"

namespace kdio {

class RateSampler {
 public:
  static constexpr uint64_t kWindowNs = 500'000'000;
  static constexpr uint64_t kLateNs = 4'000'000;

  // The measurement (re)starts: after set-up, and again when ramp_time is over.
  void start(uint64_t now_ns);
  // An I/O of `bytes` completed at `now_ns` (not before the last call's time).
  void add(Direction dir, uint64_t bytes, uint64_t now_ns, JobResult& result);
  // The measurement ended at `now_ns`.
  void finish(uint64_t now_ns, JobResult& result);

 private:
  struct Window {
    uint64_t bytes[3] = {0, 0, 0};
    uint64_t ios[3] = {0, 0, 0};
  };

  void advance(uint64_t now_ns, JobResult& result);
  void sample(JobResult& result);

  Window open_;  // the window now_ns is in
  uint64_t open_end_ns_ = kWindowNs;
  Window ended_;  // the window before it, while it waits to be outlived by kLateNs
  uint64_t ended_at_ns_ = 0;
  bool has_ended_ = false;
};

}  // namespace kdio
