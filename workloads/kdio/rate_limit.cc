#include "rate_limit.h"

#include <algorithm>

namespace kdio {
namespace {

// The time `done` units take at `per_second`, in ns, without overflowing on the way.
uint64_t ns_for(uint64_t done, uint64_t per_second) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(done) * 1'000'000'000u / per_second);
}

}  // namespace

void RateLimit::restart(uint64_t start_ns) {
  start_ns_ = start_ns;
  for (int d = 0; d < 2; ++d) bytes_[d] = ios_[d] = 0;
}

void RateLimit::count(Direction dir, uint64_t bytes) {
  const int d = static_cast<int>(dir);
  bytes_[d] += bytes;
  ios_[d] += 1;
}

bool RateLimit::limits(Direction dir) const {
  const int d = static_cast<int>(dir);
  return job_.rate_bytes_per_sec[d] != 0 || job_.rate_iops[d] != 0;
}

uint64_t RateLimit::start_ns(Direction dir) const {
  const int d = static_cast<int>(dir);
  uint64_t after = 0;
  if (job_.rate_bytes_per_sec[d]) after = ns_for(bytes_[d], job_.rate_bytes_per_sec[d]);
  if (job_.rate_iops[d]) after = std::max(after, ns_for(ios_[d], job_.rate_iops[d]));
  return start_ns_ + after;
}

Direction RateLimit::sooner(Direction dir, uint64_t now_ns) const {
  const Direction other = dir == Direction::kRead ? Direction::kWrite : Direction::kRead;
  const uint64_t start = start_ns(dir);
  return start > now_ns && start_ns(other) < start ? other : dir;
}

}  // namespace kdio
