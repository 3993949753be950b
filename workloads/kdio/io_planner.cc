#include "io_planner.h"

#include <algorithm>
#include <cstdint>

#include "run_error.h"

namespace kdio {

IoPlanner::IoPlanner(const Job& job, std::span<const uint64_t> file_sizes, Rng& rng)
    : job_(job), rng_(rng) {
  const bool reading = reads(job_.pattern);
  const bool writing = writes(job_.pattern);
  random_unit_ = std::min(reading ? job_.block_size[0].min : UINT64_MAX,
                          writing ? job_.block_size[1].min : UINT64_MAX);
  // Every file takes the first I/O of either direction, so a new pass always finds room.
  const uint64_t largest_min_bs =
      std::max(reading ? job_.block_size[0].min : 0, writing ? job_.block_size[1].min : 0);
  uint64_t total = 0;
  for (uint64_t size : file_sizes) {
    if (size < largest_min_bs) {
      run_fail("job {}: file size {} is smaller than the block size {}", job_.name, size,
               largest_min_bs);
    }
    FileCursor cursor;
    cursor.size = size;
    cursor.blocks = size / random_unit_;
    cursors_.push_back(cursor);
    total += size;
  }
  // As in fio, an io_size below the block size is no error: the limit is checked before each
  // I/O, so the job does one.
  io_limit_ = job_.io_size != 0 ? job_.io_size : total;
  loops_ = std::max(1, job_.loops);
  // A time-based job has no loops: as in fio, its files start over one by one as each is done.
  issue_limit_ = job_.time_based || io_limit_ > UINT64_MAX / static_cast<uint64_t>(loops_)
                     ? UINT64_MAX
                     : io_limit_ * static_cast<uint64_t>(loops_);
  // fio's td_max_bs(): over both directions, used or not.
  max_bs_ = std::max(job_.block_size[0].max, job_.block_size[1].max);
  start_pass();
}

// As in fio, the job's limit is checked before each I/O, so the last one may go past it; a pass
// ends when that limit is reached or every file is done.
std::optional<PlannedIo> IoPlanner::next(Direction dir) {
  uint64_t len = draw_length(dir);
  uint64_t offset = 0;
  int file = -1;
  while (issued_ >= issue_limit_ || (file = place(dir, len, offset)) < 0) {
    ++passes_ended_;
    if (!start_next_pass()) {
      ended_with_files_done_ = issued_ < issue_limit_;
      return std::nullopt;
    }
  }
  issued_ += len;
  pass_issued_ += len;
  return PlannedIo{static_cast<uint32_t>(len), file, offset};
}

void IoPlanner::start_pass() {
  ++passes_;
  pass_issued_ = 0;
  for (FileCursor& c : cursors_) start_file_pass(c);
}

// fio's keep_running(): a pass for each loop, then more while io_size is not done by at least
// the largest block size; a pass that issued nothing (the limit was reached before it) ends
// the job.
bool IoPlanner::start_next_pass() {
  if (pass_issued_ == 0) return false;
  if (passes_ >= static_cast<uint64_t>(loops_) &&
      (issued_ >= io_limit_ || io_limit_ - issued_ < max_bs_)) {
    return false;
  }
  start_pass();
  return true;
}

void IoPlanner::start_file_pass(FileCursor& c) {
  c.finished = false;
  c.next_seq[0] = c.next_seq[1] = 0;
  c.order.reset(c.blocks, rng_.next());
  if (is_random(job_.pattern) && !job_.norandommap) c.done.reset(c.blocks);
}

// fio's get_next_buflen: min plus a uniform share of max, down to a multiple of min, at most
// max. Where max is not a multiple of min, max itself takes what rounds down past it
// (bsrange=4k-10k: 4k, 8k and 10k at 40, 40 and 20%).
uint64_t IoPlanner::draw_length(Direction dir) {
  const BlockSizeRange& bs = job_.block_size[static_cast<int>(dir)];
  if (bs.max == bs.min) return bs.min;
  const uint64_t len = bs.min + rng_.below(bs.max);
  return std::min(len - len % bs.min, bs.max);
}

// fio's per-file accounting: round robin over the files, passing over those that had their
// share of the pass (a file done in one direction is done in both, as in fio); -1 once all
// have, which ends the pass. In a time-based run each file starts over on its own as soon as it
// is done. Cuts `len` to the room at the offset.
int IoPlanner::place(Direction dir, uint64_t& len, uint64_t& offset) {
  for (size_t tried = 0; tried < cursors_.size(); ++tried) {
    int file = next_file_;
    next_file_ = (next_file_ + 1) % static_cast<int>(cursors_.size());
    FileCursor& c = cursors_[static_cast<size_t>(file)];
    if (job_.time_based && file_pass_over(c, dir)) start_over(c, dir);
    if (!c.finished && !file_pass_over(c, dir)) {
      offset = next_offset(c, dir, len);
      return file;
    }
    c.finished = true;
  }
  return -1;
}

// Whether the file has no room left in this pass for an I/O of `dir`.
bool IoPlanner::file_pass_over(const FileCursor& c, Direction dir) const {
  if (!is_random(job_.pattern)) {
    const int d = static_cast<int>(dir);
    return c.next_seq[d] + job_.block_size[d].min > c.size;
  }
  return !job_.norandommap && c.done.full();
}

// In a time-based run: a random file starts a new pass, a sequential one starts over in the
// direction that reached its end only (fio's get_next_seq_offset).
void IoPlanner::start_over(FileCursor& c, Direction dir) {
  if (is_random(job_.pattern)) {
    start_file_pass(c);
  } else {
    c.next_seq[static_cast<int>(dir)] = 0;
  }
}

// The file's offset for the next I/O of `dir`, with `len` cut to the room there: the rest of the
// file, as fio's get_next_buflen fits the size to the file.
uint64_t IoPlanner::next_offset(FileCursor& c, Direction dir, uint64_t& len) {
  if (!is_random(job_.pattern)) {
    const int d = static_cast<int>(dir);
    const uint64_t min_bs = job_.block_size[d].min;
    len = std::min(len, (c.size - c.next_seq[d]) / min_bs * min_bs);
    c.next_seq[d] += len;
    return c.next_seq[d] - len;
  }
  if (!job_.norandommap) return free_offset(c, len);
  uint64_t offset = rng_.below(c.blocks) * random_unit_;
  len = std::min(len, (c.size - offset) / random_unit_ * random_unit_);
  return offset;
}

// fio's random map (io_u.c: get_next_rand_offset, mark_random_map): the I/O starts on a random
// block, or the next one this pass has not done, and is cut short before the next done one.
uint64_t IoPlanner::free_offset(FileCursor& c, uint64_t& len) {
  uint64_t block = c.done.next_free(c.order.next());
  uint64_t claimed = c.done.claim(block, (len + random_unit_ - 1) / random_unit_);
  len = std::min(len, claimed * random_unit_);
  return block * random_unit_;
}

}  // namespace kdio
