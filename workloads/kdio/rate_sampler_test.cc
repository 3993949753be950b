#include "rate_sampler.h"

#include <gtest/gtest.h>

namespace kdio {
namespace {

constexpr uint64_t kMs = 1'000'000;

// One 4 KiB read per ms from `from_ms` (inclusive) to `to_ms` (exclusive), as a rate-limited
// psync job does: fio reports 1000 IOPS and 4000 KiB/s for each full window.
void reads_every_ms(RateSampler& sampler, JobResult& result, uint64_t from_ms, uint64_t to_ms,
                    Direction dir = Direction::kRead) {
  for (uint64_t ms = from_ms; ms < to_ms; ++ms) sampler.add(dir, 4096, ms * kMs, result);
}

TEST(RateSampler, AJobShorterThanOneWindowHasNoSamples) {
  // fio 3.33, time_based runtime=300ms and 499ms: bw_samples 0.
  RateSampler sampler;
  JobResult result;
  sampler.start(0);
  reads_every_ms(sampler, result, 0, 499);
  sampler.finish(499 * kMs, result);
  EXPECT_EQ(result.dir[0].bw_samples.samples, 0u);
  EXPECT_EQ(result.dir[0].iops_samples.samples, 0u);
}

TEST(RateSampler, EachFullWindowIsOneSampleInKibPerSecondAndIops) {
  RateSampler sampler;
  JobResult result;
  sampler.start(0);
  reads_every_ms(sampler, result, 0, 1200);
  sampler.finish(1200 * kMs, result);
  const DirResult& read = result.dir[0];
  EXPECT_EQ(read.bw_samples.samples, 2u);
  EXPECT_EQ(read.bw_samples.min, 4000u);
  EXPECT_EQ(read.bw_samples.max, 4000u);
  EXPECT_EQ(read.iops_samples.samples, 2u);
  EXPECT_EQ(read.iops_samples.mean, 1000.0);
  EXPECT_EQ(result.dir[1].bw_samples.samples, 0u);
}

TEST(RateSampler, RatesAreWholeNumbersCutDown) {
  // 3 I/Os of 1000 bytes in 500 ms: 6000 B/s is 5.86 KiB/s, fio's integer division gives 5.
  RateSampler sampler;
  JobResult result;
  sampler.start(0);
  for (uint64_t ms : {10, 20, 30}) sampler.add(Direction::kWrite, 1000, ms * kMs, result);
  sampler.finish(600 * kMs, result);
  EXPECT_EQ(result.dir[1].bw_samples.min, 5u);
  EXPECT_EQ(result.dir[1].iops_samples.min, 6u);
}

TEST(RateSampler, AWindowTheJobOutlivedByLessThanAFewMsIsNoSample) {
  // fio 3.33, time_based runtime=1000ms..1003ms: one sample; 1004ms and 1005ms: two.
  for (uint64_t end_ms : {1000, 1003}) {
    RateSampler sampler;
    JobResult result;
    sampler.start(0);
    reads_every_ms(sampler, result, 0, end_ms + 1);
    sampler.finish(end_ms * kMs + kMs / 2, result);
    EXPECT_EQ(result.dir[0].bw_samples.samples, 1u) << end_ms;
  }
  RateSampler sampler;
  JobResult result;
  sampler.start(0);
  reads_every_ms(sampler, result, 0, 1005);
  sampler.finish(1005 * kMs, result);
  EXPECT_EQ(result.dir[0].bw_samples.samples, 2u);
}

TEST(RateSampler, AWindowWithoutIoInADirectionIsNoSampleForIt) {
  // Reads in the first window, a stall, writes in the third: one sample each, as fio skips a
  // direction whose bytes did not change.
  RateSampler sampler;
  JobResult result;
  sampler.start(0);
  reads_every_ms(sampler, result, 0, 500);
  reads_every_ms(sampler, result, 1000, 1600, Direction::kWrite);
  sampler.finish(1600 * kMs, result);
  EXPECT_EQ(result.dir[0].bw_samples.samples, 1u);
  EXPECT_EQ(result.dir[1].bw_samples.samples, 1u);
  EXPECT_EQ(result.dir[1].bw_samples.min, 4000u);
}

TEST(RateSampler, StartBeginsTheWindowsAgain) {
  // ramp_time: fio restarts its sample clock when the ramp is over.
  RateSampler sampler;
  JobResult result;
  sampler.start(0);
  reads_every_ms(sampler, result, 0, 400);
  sampler.start(400 * kMs);
  reads_every_ms(sampler, result, 400, 905);
  sampler.finish(905 * kMs, result);
  EXPECT_EQ(result.dir[0].bw_samples.samples, 1u);
  EXPECT_EQ(result.dir[0].iops_samples.min, 1000u);
}

}  // namespace
}  // namespace kdio
