// The planner alone, with no files and no I/O: which I/Os a job issues, in which order, and
// where its passes end. worker_test runs the same rules against real files.
#include "io_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "run_error.h"

namespace kdio {
namespace {

constexpr uint64_t kKiB = 1024;

Job job_of(Pattern pattern, uint64_t bs_min, uint64_t bs_max = 0) {
  Job job;
  job.name = "plan";
  job.pattern = pattern;
  for (BlockSizeRange& bs : job.block_size) {
    bs.min = bs_min;
    bs.max = bs_max != 0 ? bs_max : bs_min;
  }
  return job;
}

// Every I/O the planner gives for `dir` until it ends the job, at most `limit`.
std::vector<PlannedIo> plan_all(IoPlanner& planner, Direction dir, size_t limit = 100000) {
  std::vector<PlannedIo> ios;
  while (ios.size() < limit) {
    std::optional<PlannedIo> io = planner.next(dir);
    if (!io) break;
    ios.push_back(*io);
  }
  return ios;
}

uint64_t total_bytes(const std::vector<PlannedIo>& ios) {
  uint64_t bytes = 0;
  for (const PlannedIo& io : ios) bytes += io.len;
  return bytes;
}

TEST(IoPlannerTest, SequentialFilesAreTakenRoundRobin) {
  const Job job = job_of(Pattern::kRead, 4 * kKiB);
  const std::vector<uint64_t> sizes = {8 * kKiB, 8 * kKiB};
  Rng rng(1);
  IoPlanner planner(job, sizes, rng);
  const std::vector<PlannedIo> ios = plan_all(planner, Direction::kRead);
  const std::vector<std::pair<int, uint64_t>> want = {{0, 0}, {1, 0}, {0, 4 * kKiB}, {1, 4 * kKiB}};
  ASSERT_EQ(ios.size(), want.size());
  for (size_t i = 0; i < ios.size(); ++i) {
    EXPECT_EQ(ios[i].file, want[i].first) << "I/O " << i;
    EXPECT_EQ(ios[i].offset, want[i].second) << "I/O " << i;
    EXPECT_EQ(ios[i].len, 4 * kKiB) << "I/O " << i;
  }
  EXPECT_EQ(planner.passes_ended(), 1);
  // The limit, the files' size, is reached with the last block, before the files are found done.
  EXPECT_FALSE(planner.ended_with_files_done());
}

// fio leaves out a file's tail that is shorter than the smallest block size, and cuts a drawn
// size to the room left before it.
TEST(IoPlannerTest, ASequentialPassCutsSizesToTheFileAndLeavesOutAShortTail) {
  const Job job = job_of(Pattern::kWrite, 4 * kKiB, 16 * kKiB);
  const std::vector<uint64_t> sizes = {30 * kKiB};
  Rng rng(7);
  IoPlanner planner(job, sizes, rng);
  const std::vector<PlannedIo> ios = plan_all(planner, Direction::kWrite);
  uint64_t expected_offset = 0;
  for (const PlannedIo& io : ios) {
    EXPECT_EQ(io.offset, expected_offset);
    EXPECT_EQ(io.len % (4 * kKiB), 0u);
    EXPECT_LE(io.offset + io.len, 28 * kKiB);
    expected_offset += io.len;
  }
  EXPECT_EQ(expected_offset, 28 * kKiB);
  // Below the limit (30 KiB): the pass ended because the file was done.
  EXPECT_TRUE(planner.ended_with_files_done());
}

TEST(IoPlannerTest, TheRandomMapDoesEveryBlockOncePerLoop) {
  Job job = job_of(Pattern::kRandRead, 4 * kKiB);
  job.loops = 3;
  const std::vector<uint64_t> sizes = {64 * kKiB, 32 * kKiB};
  Rng rng(3);
  IoPlanner planner(job, sizes, rng);
  const std::vector<PlannedIo> ios = plan_all(planner, Direction::kRead);
  std::map<std::pair<int, uint64_t>, int> times;
  for (const PlannedIo& io : ios) {
    EXPECT_EQ(io.offset % (4 * kKiB), 0u);
    ++times[{io.file, io.offset}];
  }
  EXPECT_EQ(times.size(), 24u);
  for (const auto& [block, count] : times) {
    EXPECT_EQ(count, 3) << "file " << block.first << " offset " << block.second;
  }
  EXPECT_EQ(planner.passes_ended(), 3);
}

TEST(IoPlannerTest, MixedBlockSizesUnderTheRandomMapCoverTheFileWithoutOverlap) {
  const Job job = job_of(Pattern::kRandWrite, 4 * kKiB, 32 * kKiB);
  const std::vector<uint64_t> sizes = {256 * kKiB};
  Rng rng(11);
  IoPlanner planner(job, sizes, rng);
  std::vector<bool> written(64, false);
  for (const PlannedIo& io : plan_all(planner, Direction::kWrite)) {
    for (uint64_t block = io.offset / (4 * kKiB); block < (io.offset + io.len) / (4 * kKiB);
         ++block) {
      EXPECT_FALSE(written[block]) << "block " << block << " written twice";
      written[block] = true;
    }
  }
  EXPECT_EQ(std::count(written.begin(), written.end(), false), 0);
}

// As fio 3.33 draws sizes from a range: min + max * u, down to a multiple of min, at most max.
// With bsrange=4k-10k fio 3.33 issued a mean of 6932 bytes (4k, 8k and 10k at 40, 40 and 20%);
// drawing only multiples of min gave 6144.
TEST(IoPlannerTest, ARangeDrawsSizesAsFioDoes) {
  auto shares = [](uint64_t min, uint64_t max) {
    Job job = job_of(Pattern::kRandRead, min * kKiB, max * kKiB);
    job.norandommap = true;
    job.io_size = 20000 * max * kKiB;
    const std::vector<uint64_t> sizes = {1024 * max * kKiB};
    Rng rng(5);
    IoPlanner planner(job, sizes, rng);
    std::map<uint64_t, double> share;
    const std::vector<PlannedIo> ios = plan_all(planner, Direction::kRead, 20000);
    for (const PlannedIo& io : ios) share[io.len / kKiB] += 1.0 / static_cast<double>(ios.size());
    return share;
  };
  const std::map<uint64_t, double> uneven = shares(4, 10);
  ASSERT_EQ(uneven.size(), 3u);
  EXPECT_NEAR(uneven.at(4), 0.4, 0.02);
  EXPECT_NEAR(uneven.at(8), 0.4, 0.02);
  EXPECT_NEAR(uneven.at(10), 0.2, 0.02);
  const std::map<uint64_t, double> even = shares(4, 16);
  ASSERT_EQ(even.size(), 4u);
  for (const auto& [size, share] : even) EXPECT_NEAR(share, 0.25, 0.02) << size << "k";
}

// io_size above the files' size: fio starts more passes until it is done, and the job ends at
// the limit, not with its files done.
TEST(IoPlannerTest, IoSizeAboveTheFilesTakesMorePasses) {
  Job job = job_of(Pattern::kRead, 4 * kKiB);
  job.io_size = 40 * kKiB;
  const std::vector<uint64_t> sizes = {16 * kKiB};
  Rng rng(5);
  IoPlanner planner(job, sizes, rng);
  const std::vector<PlannedIo> ios = plan_all(planner, Direction::kRead);
  EXPECT_EQ(total_bytes(ios), 40 * kKiB);
  EXPECT_EQ(ios[4].offset, 0u);  // the second pass starts over
  EXPECT_EQ(planner.passes_ended(), 3);
  EXPECT_FALSE(planner.ended_with_files_done());
}

TEST(IoPlannerTest, IoSizeBelowTheBlockSizeStillIssuesOneIo) {
  Job job = job_of(Pattern::kRead, 64 * kKiB);
  job.io_size = 4 * kKiB;
  const std::vector<uint64_t> sizes = {1024 * kKiB};
  Rng rng(5);
  IoPlanner planner(job, sizes, rng);
  EXPECT_EQ(plan_all(planner, Direction::kRead).size(), 1u);
}

// A time-based job never runs out of I/O: a sequential file starts over in place.
TEST(IoPlannerTest, ATimeBasedJobStartsItsFileOver) {
  Job job = job_of(Pattern::kRead, 4 * kKiB);
  job.time_based = true;
  const std::vector<uint64_t> sizes = {8 * kKiB};
  Rng rng(5);
  IoPlanner planner(job, sizes, rng);
  const std::vector<PlannedIo> ios = plan_all(planner, Direction::kRead, 5);
  ASSERT_EQ(ios.size(), 5u);
  const std::vector<uint64_t> want = {0, 4 * kKiB, 0, 4 * kKiB, 0};
  for (size_t i = 0; i < ios.size(); ++i) EXPECT_EQ(ios[i].offset, want[i]) << "I/O " << i;
  EXPECT_EQ(planner.passes_ended(), 0);
}

// Without the random map blocks may repeat, but a pass still moves the file's size.
TEST(IoPlannerTest, NoRandomMapStaysInTheFileAndMovesItsSize) {
  Job job = job_of(Pattern::kRandRead, 4 * kKiB);
  job.norandommap = true;
  const std::vector<uint64_t> sizes = {64 * kKiB};
  Rng rng(9);
  IoPlanner planner(job, sizes, rng);
  const std::vector<PlannedIo> ios = plan_all(planner, Direction::kRead);
  EXPECT_EQ(total_bytes(ios), 64 * kKiB);
  for (const PlannedIo& io : ios) {
    EXPECT_EQ(io.offset % (4 * kKiB), 0u);
    EXPECT_LE(io.offset + io.len, 64 * kKiB);
  }
}

// The same seed gives the same I/Os: rand_repeat's promise.
TEST(IoPlannerTest, TheSameSeedPlansTheSameIos) {
  const Job job = job_of(Pattern::kRandRead, 4 * kKiB, 16 * kKiB);
  const std::vector<uint64_t> sizes = {128 * kKiB};
  auto offsets = [&](uint64_t seed) {
    Rng rng(seed);
    IoPlanner planner(job, sizes, rng);
    std::vector<std::pair<uint64_t, uint32_t>> planned;
    for (const PlannedIo& io : plan_all(planner, Direction::kRead)) {
      planned.emplace_back(io.offset, io.len);
    }
    return planned;
  };
  EXPECT_EQ(offsets(21), offsets(21));
  EXPECT_NE(offsets(21), offsets(22));
}

TEST(IoPlannerTest, AFileSmallerThanTheBlockSizeIsAnError) {
  const Job job = job_of(Pattern::kRead, 64 * kKiB);
  const std::vector<uint64_t> sizes = {1024 * kKiB, 16 * kKiB};
  Rng rng(1);
  try {
    IoPlanner planner(job, sizes, rng);
    FAIL() << "no error";
  } catch (const RunError& error) {
    EXPECT_STREQ(error.what(), "job plan: file size 16384 is smaller than the block size 65536");
    EXPECT_EQ(error.error_number(), EINVAL);
  }
}

}  // namespace
}  // namespace kdio
