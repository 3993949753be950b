// The one clock kdio measures with (CLOCK_MONOTONIC, through the vDSO).
#pragma once

#include <time.h>

#include <cstdint>

namespace kdio {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Sleeps until the absolute CLOCK_MONOTONIC time, in slices so that stop requests are seen.
template <typename StopFn>
void sleep_until_ns(uint64_t when, StopFn stopped) {
  constexpr uint64_t kSlice = 50'000'000;
  for (uint64_t now = now_ns(); now < when && !stopped(); now = now_ns()) {
    uint64_t until = when - now > kSlice ? now + kSlice : when;
    timespec ts{static_cast<time_t>(until / 1'000'000'000ull),
                static_cast<long>(until % 1'000'000'000ull)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
}

}  // namespace kdio
