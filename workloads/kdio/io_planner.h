// Where a job's I/Os go, without doing them (fio's get_io_u() up to the engine): block sizes
// drawn from the job's ranges, files taken round robin, sequential offsets or random ones
// through the random map, and passes over the files for loops, io_size and time_based.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "block_order.h"
#include "job.h"

namespace kdio {

struct PlannedIo {
  uint32_t len = 0;
  int file = 0;  // index into the job's files
  uint64_t offset = 0;
};

class IoPlanner {
 public:
  // file_sizes are the bytes the job may address in each of its files; rng is the worker's, so
  // that sizes, directions and offsets come from one repeatable stream. Starts the first pass.
  IoPlanner(const Job& job, std::span<const uint64_t> file_sizes, Rng& rng);

  // The next I/O in `dir`, passing on to new passes as the files run out; nullopt once the job
  // has issued all it will (a pass's I/O is counted as issued here).
  std::optional<PlannedIo> next(Direction dir);

  // Passes that ended, in the whole job: the worker's syncs follow them.
  int64_t passes_ended() const { return passes_ended_; }
  // Whether the job ended because its last pass had done its files, rather than at its limit.
  bool ended_with_files_done() const { return ended_with_files_done_; }

 private:
  struct FileCursor {
    uint64_t size = 0;
    uint64_t next_seq[2] = {0, 0};  // per Direction: reads and writes walk apart, as in fio
    uint64_t blocks = 0;            // of random_unit_ bytes
    BlockOrder order;
    BlockMap done;          // random I/O with the random map only
    bool finished = false;  // the file has had its share of the current pass
  };

  void start_pass();
  bool start_next_pass();
  void start_file_pass(FileCursor& c);
  uint64_t draw_length(Direction dir);
  int place(Direction dir, uint64_t& len, uint64_t& offset);
  bool file_pass_over(const FileCursor& c, Direction dir) const;
  void start_over(FileCursor& c, Direction dir);
  uint64_t next_offset(FileCursor& c, Direction dir, uint64_t& len);
  uint64_t free_offset(FileCursor& c, uint64_t& len);

  const Job& job_;
  Rng& rng_;
  std::vector<FileCursor> cursors_;
  uint64_t random_unit_ = 4096;  // the smallest block size in use: the random map's block
  uint64_t io_limit_ = 0;        // io_size, else the files' size: what more passes make up for
  uint64_t issue_limit_ = 0;     // io_limit_ for each loop: the bytes the whole job issues
  uint64_t max_bs_ = 0;
  int loops_ = 1;
  uint64_t passes_ = 0;  // started
  int next_file_ = 0;
  uint64_t issued_ = 0;  // bytes, in the whole job
  uint64_t pass_issued_ = 0;
  int64_t passes_ended_ = 0;
  bool ended_with_files_done_ = false;
};

}  // namespace kdio
