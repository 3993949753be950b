#include "rate_sampler.h"

namespace kdio {

void RateSampler::start(uint64_t now_ns) {
  open_ = {};
  open_end_ns_ = now_ns + kWindowNs;
  has_ended_ = false;
}

void RateSampler::add(Direction dir, uint64_t bytes, uint64_t now_ns, JobResult& result) {
  advance(now_ns, result);
  int d = static_cast<int>(dir);
  open_.bytes[d] += bytes;
  open_.ios[d] += 1;
}

void RateSampler::finish(uint64_t now_ns, JobResult& result) {
  advance(now_ns, result);
  has_ended_ = false;
}

void RateSampler::advance(uint64_t now_ns, JobResult& result) {
  while (now_ns >= open_end_ns_) {
    // A later window ended too, so the job outlived this one by a whole window.
    if (has_ended_) sample(result);
    ended_ = open_;
    ended_at_ns_ = open_end_ns_;
    has_ended_ = true;
    open_ = {};
    open_end_ns_ += kWindowNs;
  }
  if (has_ended_ && now_ns >= ended_at_ns_ + kLateNs) sample(result);
}

void RateSampler::sample(JobResult& result) {
  constexpr uint64_t kWindowMs = kWindowNs / 1'000'000;
  for (int d = 0; d < 3; ++d) {
    if (ended_.bytes[d] == 0) continue;
    result.dir[d].bw_samples.add(ended_.bytes[d] * 1000 / kWindowMs / 1024);
    result.dir[d].iops_samples.add(ended_.ios[d] * 1000 / kWindowMs);
  }
  has_ended_ = false;
}

}  // namespace kdio
