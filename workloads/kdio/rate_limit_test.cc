#include "rate_limit.h"

#include <gtest/gtest.h>

namespace kdio {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(RateLimit, AnIoMayStartOnceTheIosBeforeItFitTheRate) {
  Job job;
  job.rate_iops[0] = 50;  // one read every 20 ms
  RateLimit limit(job);
  limit.restart(1000 * kMs);
  EXPECT_TRUE(limit.limits(Direction::kRead));
  EXPECT_FALSE(limit.limits(Direction::kWrite));
  EXPECT_EQ(limit.start_ns(Direction::kRead), 1000 * kMs);
  limit.count(Direction::kRead, 4096);
  limit.count(Direction::kRead, 4096);
  EXPECT_EQ(limit.start_ns(Direction::kRead), 1040 * kMs);
  // A direction without a rate may always start.
  EXPECT_EQ(limit.start_ns(Direction::kWrite), 1000 * kMs);
}

TEST(RateLimit, TheStricterOfBytesAndIosDecides) {
  Job job;
  job.rate_bytes_per_sec[1] = 1 << 20;  // 1 MiB/s: 1 ms per KiB
  job.rate_iops[1] = 100;               // 10 ms per I/O
  RateLimit limit(job);
  limit.restart(0);
  limit.count(Direction::kWrite, 4096);
  EXPECT_EQ(limit.start_ns(Direction::kWrite), 10 * kMs);  // the I/Os: 4 ms for the bytes
  limit.count(Direction::kWrite, 64 * 1024);
  EXPECT_EQ(limit.start_ns(Direction::kWrite), 1'000'000'000ull * (68 * 1024) / (1 << 20));
}

TEST(RateLimit, TheRampsIoDoesNotCountAfterTheRamp) {
  Job job;
  job.rate_iops[0] = 1000;
  RateLimit limit(job);
  limit.restart(0);
  for (int i = 0; i < 500; ++i) limit.count(Direction::kRead, 4096);
  limit.restart(100 * kMs);  // the ramp ends behind the rate: it is not made up for
  EXPECT_EQ(limit.start_ns(Direction::kRead), 100 * kMs);
}

TEST(RateLimit, AWaitingDirectionGivesItsTurnToOneThatMayStartSooner) {
  Job job;
  job.rate_iops[0] = 1000;  // reads every 1 ms
  job.rate_iops[1] = 100;   // writes every 10 ms
  RateLimit limit(job);
  limit.restart(0);
  limit.count(Direction::kWrite, 4096);
  // At 2 ms the write must wait until 10 ms and a read may go: the read goes.
  EXPECT_EQ(limit.sooner(Direction::kWrite, 2 * kMs), Direction::kRead);
  // At 10 ms the write is due: it keeps its turn.
  EXPECT_EQ(limit.sooner(Direction::kWrite, 10 * kMs), Direction::kWrite);
  // A read that may go keeps its turn however the writes stand.
  EXPECT_EQ(limit.sooner(Direction::kRead, 2 * kMs), Direction::kRead);
}

}  // namespace
}  // namespace kdio
