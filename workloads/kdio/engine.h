// The I/O engine interface, shaped like fio's ioengine_ops: a synchronous engine transfers one
// unit at a time; an asynchronous one queues units, commits them in batches and reaps
// completions. Each engine lives in its own file.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "job.h"

namespace kdio {

// What a unit does besides moving data: fio's DDIR_SYNC and DDIR_DATASYNC.
enum class Sync { kNone, kFsync, kFdatasync };

struct IoUnit {
  void* buf = nullptr;
  uint64_t offset = 0;
  uint32_t len = 0;
  Direction dir = Direction::kRead;
  int file = 0;             // index into the job's files
  uint64_t start_ns = 0;    // when the unit was prepared (fio's start_time)
  uint64_t issue_ns = 0;    // when the engine took it (fio's issue_time)
  int64_t result = 0;       // bytes transferred or -errno
  uint32_t done = 0;        // bytes the unit's earlier parts moved (fio's short I/O, re-issued)
  uint32_t index = 0;       // slot in the worker's unit array
  Sync sync = Sync::kNone;  // not kNone: the unit syncs `file` instead (result 0 or -errno)
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  virtual bool synchronous() const = 0;
  // Whether queue() takes sync units, as fio's io_uring engine sends IORING_OP_FSYNC through the
  // ring with writes in flight. Otherwise the worker drains the queue and calls fsync(2), as fio
  // does for libaio, which has no working aio fsync.
  virtual bool queues_syncs() const { return false; }

  // Synchronous engines: transfer the unit now; the result goes to unit.result.
  virtual void transfer(IoUnit& unit) = 0;

  // Asynchronous engines: stage a unit, submit every staged unit (returns how many the kernel
  // took; the others complete with the error at the next reap), and reap
  // between min and max completions into done (returns how many); with min 0 reap returns at
  // once with what has completed, maybe nothing.
  virtual void queue(IoUnit& unit) = 0;
  virtual int commit() = 0;
  virtual int reap(int min, int max, IoUnit** done) = 0;
};

// fds are the job's open files in order; units and their buffers live as long as the engine.
std::unique_ptr<IoEngine> make_psync_engine(std::span<const int> fds, bool positional);
std::unique_ptr<IoEngine> make_libaio_engine(const Job& job, std::span<const int> fds);
std::unique_ptr<IoEngine> make_io_uring_engine(const Job& job, std::span<const int> fds,
                                               std::span<IoUnit> units);
std::unique_ptr<IoEngine> make_engine(const Job& job, std::span<const int> fds,
                                      std::span<IoUnit> units);

}  // namespace kdio
