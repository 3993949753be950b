#include "worker.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "block_order.h"
#include "clock.h"
#include "engine.h"
#include "file_layout.h"
#include "io_planner.h"
#include "rate_limit.h"
#include "rate_sampler.h"
#include "run_error.h"

namespace kdio {
namespace {

// The time `after` ns past `time`, or the last there is: a run time or start delay of centuries
// means "until stopped", not a deadline that wrapped into the past (runtime=18446744073s did
// one I/O).
uint64_t later_by(uint64_t time, uint64_t after) {
  return after > UINT64_MAX - time ? UINT64_MAX : time + after;
}

struct Usage {
  uint64_t usr_ns = 0;
  uint64_t sys_ns = 0;
  uint64_t ctx = 0;
  uint64_t minflt = 0;
  uint64_t majflt = 0;
};

Usage thread_usage() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ull +
           static_cast<uint64_t>(tv.tv_usec) * 1000ull;
  };
  return {ns(ru.ru_utime), ns(ru.ru_stime),
          static_cast<uint64_t>(ru.ru_nvcsw) + static_cast<uint64_t>(ru.ru_nivcsw),
          static_cast<uint64_t>(ru.ru_minflt), static_cast<uint64_t>(ru.ru_majflt)};
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class Worker {
 public:
  Worker(const Job& job, int job_number, JobResult& result, const std::atomic<bool>& stop)
      : job_(job), result_(result), stop_(stop), rng_(seed(job, job_number)) {}

  void setup();
  void run();

 private:
  static uint64_t seed(const Job& job, int job_number) {
    uint64_t base = job.rand_repeat ? job.rand_seed : now_ns();
    return base * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(job_number) + 1;
  }
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  void check_block_sizes() const;
  bool plan(IoUnit& unit);
  Direction next_direction();
  bool wait_for_rate(Direction dir);
  void complete(IoUnit& unit, uint64_t done_ns, bool async);
  void complete_sync(const IoUnit& unit, uint64_t done_ns);
  void check_result(const IoUnit& unit, bool async) const;
  bool reissue_rest(IoUnit& unit);
  void count_write(int file);
  bool flushes_at_pass_end() const { return job_.end_fsync && writes(job_.pattern); }
  // Passes ended since the syncs last ran.
  int64_t pass_ends() const { return planner_->passes_ended() - synced_passes_; }
  bool syncs_pending() const { return sync_due_file_ >= 0 || pass_ends() > 0; }
  // Whether fio runs the sync due when its request for an I/O finds the files done: with psync
  // and sync, not with libaio and io_uring, where only the next pass's first request does.
  bool syncs_when_files_done() const { return engine_->synchronous(); }
  void run_pending_syncs();
  Sync due_sync() const { return datasync_due_ ? Sync::kFdatasync : Sync::kFsync; }
  uint64_t sync_now(int file, Sync kind, const char* what);
  int sync_through_engine(int file, Sync kind);
  void record_sync(uint64_t lat, Sync kind, uint64_t end_ns);
  void sync_file(int file);
  void flush_files();
  void queue_due_sync();
  void run_final_syncs();
  void run_sync();
  void run_async();
  void stage(IoUnit& unit);
  bool submit_staged();
  void count_issue(const IoUnit& unit);
  bool polling() const {
    return job_.iodepth_batch_complete_min == 0 && job_.iodepth_batch_complete_max == 0;
  }
  int engine_reap(int min, int max, IoUnit** done);
  void reap_some(int min, int max);
  void reap_when_full();
  void drain();
  void finish(uint64_t end_ns);

  const Job& job_;
  JobResult& result_;
  const std::atomic<bool>& stop_;
  Rng rng_;

  std::vector<OpenFile> files_;
  std::vector<int> fds_;
  std::unique_ptr<void, FreeDeleter> buffers_;
  std::vector<IoUnit> units_;
  std::vector<IoUnit*> free_units_;
  std::vector<IoUnit*> done_;
  std::vector<IoUnit*> staged_;  // queued in the engine, not yet committed
  IoUnit lone_sync_;             // a sync through the engine with nothing else in flight
  std::unique_ptr<IoEngine> engine_;

  std::optional<IoPlanner> planner_;
  bool more_ = true;  // false once the job has issued everything it will issue

  uint64_t run_start_ns_ = 0;
  uint64_t stat_start_ns_ = 0;
  uint64_t deadline_ns_ = UINT64_MAX;
  bool ramping_ = false;
  RateSampler rates_;
  RateLimit rate_limit_{job_};
  Usage usage_start_;
  uint64_t writes_ = 0;
  int sync_due_file_ = -1;     // the file to sync before the next I/O, -1 = none
  bool datasync_due_ = false;  // that sync is an fdatasync
  int64_t synced_passes_ = 0;  // the passes that had ended when the syncs last ran
  int inflight_ = 0;
};

// The block sizes of the directions the job does I/O in; as fio, any other is never used (the
// parser reports these with their FILE:LINE; this is for jobs made otherwise).
void Worker::check_block_sizes() const {
  for (int d = 0; d < 2; ++d) {
    if (!(d == 0 ? reads(job_.pattern) : writes(job_.pattern))) continue;
    const BlockSizeRange& bs = job_.block_size[d];
    if (bs.min == 0 || bs.max < bs.min || bs.max > kMaxBlockSize) {
      run_fail("job {}: invalid block size {}-{}", job_.name, bs.min, bs.max);
    }
    if (job_.direct && (bs.min % 512 != 0 || bs.max % 512 != 0)) {
      run_fail(
          "job {}: direct=1 needs block sizes that are multiples of the device's logical "
          "block size (512 or 4096); bs={} is not",
          job_.name, bs.min % 512 != 0 ? bs.min : bs.max);
    }
  }
}

void Worker::setup() {
  check_block_sizes();
  files_ = open_job_files(job_);
  std::vector<uint64_t> file_sizes;
  for (const OpenFile& file : files_) {
    fds_.push_back(file.fd.get());
    file_sizes.push_back(file.size);
  }
  // The buffers need only hold the I/Os the job does: an unused bs=2g is no 2 GiB to fill.
  const uint64_t buffer_bs = std::max(reads(job_.pattern) ? job_.block_size[0].max : 0,
                                      writes(job_.pattern) ? job_.block_size[1].max : 0);

  int depth =
      job_.engine == Engine::kPsync || job_.engine == Engine::kSync ? 1 : std::max(1, job_.iodepth);
  uint64_t stride = (buffer_bs + 4095) / 4096 * 4096;
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, stride * static_cast<uint64_t>(depth)) != 0) {
    run_fail_errno(ENOMEM, "job {}: cannot allocate {} I/O buffers of {} bytes", job_.name, depth,
                   buffer_bs);
  }
  buffers_.reset(mem);
  // Random contents, written once: what fio writes by default, and never all zeroes.
  Rng fill(rng_.next());
  for (uint64_t off = 0; off + 8 <= stride * static_cast<uint64_t>(depth); off += 8) {
    uint64_t v = fill.next();
    std::memcpy(static_cast<char*>(mem) + off, &v, 8);
  }
  // The planner lays out its first pass (the random map) here, before the clocks and the CPU
  // counters start, as fio's init_random_map() runs before the job's.
  planner_.emplace(job_, file_sizes, rng_);
  units_.resize(static_cast<size_t>(depth));
  for (int i = 0; i < depth; ++i) {
    IoUnit& unit = units_[static_cast<size_t>(i)];
    unit.buf = static_cast<char*>(mem) + stride * static_cast<uint64_t>(i);
    unit.len = static_cast<uint32_t>(buffer_bs);
    unit.index = static_cast<uint32_t>(i);
    free_units_.push_back(&unit);
  }
  done_.resize(static_cast<size_t>(depth));
  staged_.reserve(static_cast<size_t>(depth));
  engine_ = make_engine(job_, fds_, units_);
}

// Chooses the next unit's direction, size, file and offset, and waits for the rate; false when
// the job is done.
bool Worker::plan(IoUnit& unit) {
  if (stopped()) {
    result_.interrupted = true;
    return false;
  }
  const Direction dir = next_direction();
  const std::optional<PlannedIo> io = planner_->next(dir);
  if (!io) return false;
  if (rate_limit_.limits(dir) && !wait_for_rate(dir)) return false;
  unit.dir = dir;
  unit.len = io->len;
  unit.file = io->file;
  unit.offset = io->offset;
  rate_limit_.count(dir, io->len);
  return !stopped();
}

Direction Worker::next_direction() {
  switch (job_.pattern) {
    case Pattern::kRead:
    case Pattern::kRandRead:
      return Direction::kRead;
    case Pattern::kWrite:
    case Pattern::kRandWrite:
      return Direction::kWrite;
    default:
      break;
  }
  const Direction drawn = rng_.below(100) < static_cast<uint64_t>(job_.rwmix_read_percent)
                              ? Direction::kRead
                              : Direction::kWrite;
  // As fio's rate_ddir(): never to a direction whose share is 0% (rwmixread=100 must not
  // write, whatever a rate makes wait).
  const bool both_shares = job_.rwmix_read_percent > 0 && job_.rwmix_read_percent < 100;
  return both_shares ? rate_limit_.sooner(drawn, now_ns()) : drawn;
}

// fio's rate_ddir(): an I/O that is due goes; one that must wait does not wait past the run
// time, and when the wait reaches it the job ends without that I/O (kdio did it: rate_iops=50
// runtime=1 did 51 I/Os; fio 50, and 51 only when its wait ends on the very microsecond).
bool Worker::wait_for_rate(Direction dir) {
  const uint64_t when = rate_limit_.start_ns(dir);
  if (when <= now_ns()) return true;
  // As fio's io_u_quiesce() before its sleep: the I/Os in flight are reaped first, or their
  // completion times would take in the wait (iodepth=8 rate_iops=200: 35 ms, fio 0.25 ms).
  if (!engine_->synchronous()) {
    submit_staged();
    drain();
  }
  sleep_until_ns(std::min(when, deadline_ns_), [this] { return stopped(); });
  return now_ns() < deadline_ns_;
}

// The result of a unit's last part: all of it moved, nothing, or an error (a part that moved
// some of it was a short I/O, whose rest reissue_rest() issued again).
void Worker::check_result(const IoUnit& unit, bool async) const {
  if (unit.result == static_cast<int64_t>(unit.len)) return;
  // fio's libaio and io_uring take an I/O that moved nothing (a read at the end of a file that
  // shrank) as done, with no bytes; its synchronous engines fail the job ("full resid", below).
  if (unit.result == 0 && async) return;
  const char* what = unit.dir == Direction::kRead ? "read" : "write";
  const std::string& path = job_.files[static_cast<size_t>(unit.file)];
  if (unit.result == -EINVAL && job_.direct) {
    run_fail_errno(
        EINVAL,
        "job {}: {} of {} bytes at offset {} of {} failed with EINVAL: with direct=1 "
        "(O_DIRECT) offsets, sizes and buffers must be aligned to the device's logical "
        "block size; use a bs that is a multiple of 4096 (or of the device's sector size)",
        job_.name, what, unit.len, unit.offset, path);
  }
  if (unit.result == -EOPNOTSUPP && job_.hipri) {
    run_fail_errno(EOPNOTSUPP,
                   "job {}: polled I/O (hipri=1) is not supported for {}: the device needs poll "
                   "queues (e.g. nvme.poll_queues=2 on the kernel command line) and direct=1; or "
                   "drop hipri",
                   job_.name, path);
  }
  if (unit.result < 0) {
    int err = static_cast<int>(-unit.result);
    run_fail_errno(err, "job {}: {} of {} bytes at offset {} of {} failed: {}", job_.name, what,
                   unit.len, unit.offset, path, std::strerror(err));
  }
  // fio's "full resid" error: an I/O that moved nothing would be issued again and again.
  run_fail_errno(
      EIO,
      "job {}: {} of {} bytes at offset {} of {} moved nothing; is the file smaller than "
      "size?",
      job_.name, what, unit.len, unit.offset, path);
}

// fio's short I/O (backend.c io_queue_event(), io_u.c io_completed()): an I/O that moved some
// bytes but fewer than asked counts in short_ios, and its rest is issued again as the same unit,
// offset and buffer past the bytes done (a write that ran into ENOSPC then fails with it). True
// when the unit goes on; it completes, and is measured, once.
bool Worker::reissue_rest(IoUnit& unit) {
  if (unit.sync != Sync::kNone || unit.result <= 0 ||
      unit.result >= static_cast<int64_t>(unit.len)) {
    return false;
  }
  const auto moved = static_cast<uint32_t>(unit.result);
  unit.done += moved;
  unit.buf = static_cast<char*>(unit.buf) + moved;
  unit.offset += moved;
  unit.len -= moved;
  result_.dir[static_cast<int>(unit.dir)].short_ios += 1;
  return true;
}

void Worker::complete(IoUnit& unit, uint64_t done_ns, bool async) {
  // The bytes of the whole unit, its earlier parts' too (fio counts the last part's alone).
  const uint64_t bytes = unit.done + static_cast<uint64_t>(std::max<int64_t>(unit.result, 0));
  unit.buf = static_cast<char*>(unit.buf) - unit.done;
  unit.done = 0;
  check_result(unit, async);
  if (ramping_ && done_ns >= run_start_ns_ + job_.ramp_time_ns) {
    // Ramp over: everything measured so far is discarded and the clocks restart, the rate's too
    // (fio's reset_all_stats()), so a ramp that fell behind the rate is not made up for.
    ramping_ = false;
    JobResult fresh;
    result_ = fresh;
    stat_start_ns_ = done_ns;
    rate_limit_.restart(done_ns);
    rates_.start(done_ns);
    usage_start_ = thread_usage();
    if (job_.runtime_ns) deadline_ns_ = later_by(stat_start_ns_, job_.runtime_ns);
    return;
  }
  DirResult& d = result_.dir[static_cast<int>(unit.dir)];
  d.io_bytes += bytes;
  // As fio: a job that ends within its ramp reports the ramp's I/O, without latencies.
  if (ramping_) return;
  uint64_t clat = done_ns - unit.issue_ns;
  d.clat.add(clat);
  d.clat_hist.add(clat);
  result_.clat_ranges.add(clat);
  d.lat.add(done_ns - unit.start_ns);
  if (async) d.slat.add(unit.issue_ns - unit.start_ns);
  rates_.add(unit.dir, bytes, done_ns, result_);
  if (done_ns >= deadline_ns_) more_ = false;
}

// Syncs `file` with nothing in flight and returns the latency. `what` names the sync in an error.
uint64_t Worker::sync_now(int file, Sync kind, const char* what) {
  uint64_t start = now_ns();
  int err = 0;
  if (engine_->queues_syncs()) {
    err = sync_through_engine(file, kind);
  } else {
    int fd = fds_[static_cast<size_t>(file)];
    if ((kind == Sync::kFdatasync ? ::fdatasync(fd) : ::fsync(fd)) != 0) err = errno;
  }
  uint64_t end = now_ns();
  if (err != 0) {
    run_fail_errno(err, "job {}: {} of {} failed: {}", job_.name, what,
                   job_.files[static_cast<size_t>(file)], std::strerror(err));
  }
  return end - start;
}

// fio's io_uring engine sends every sync through the ring, end_fsync too. Returns 0 or the errno.
int Worker::sync_through_engine(int file, Sync kind) {
  lone_sync_.sync = kind;
  lone_sync_.file = file;
  engine_->queue(lone_sync_);
  engine_->commit();
  IoUnit* done = nullptr;
  engine_reap(1, 1, &done);
  lone_sync_.sync = Sync::kNone;
  return done->result < 0 ? static_cast<int>(-done->result) : 0;
}

void Worker::record_sync(uint64_t lat, Sync kind, uint64_t end_ns) {
  if (ramping_) return;
  result_.sync.total_ios += 1;
  if (kind == Sync::kFsync) result_.sync.fsyncs += 1;
  result_.sync.lat.add(lat);
  result_.sync.lat_hist.add(lat);
  if (job_.sync_lat_log) result_.sync.log.add((end_ns - stat_start_ns_) / 1'000'000, lat);
}

void Worker::sync_file(int file) {
  // Two statements: the time it ended is taken after the sync, whatever the order in which a
  // call's arguments are evaluated.
  const uint64_t lat = sync_now(file, due_sync(), "fsync");
  record_sync(lat, due_sync(), now_ns());
}

// end_fsync: fio runs it outside its measurement, so it is no sync sample.
void Worker::flush_files() {
  for (size_t i = 0; i < fds_.size(); ++i) sync_now(static_cast<int>(i), Sync::kFsync, "end_fsync");
}

// A sync the engine took in the middle of a pass.
void Worker::complete_sync(const IoUnit& unit, uint64_t done_ns) {
  if (unit.result < 0) {
    int err = static_cast<int>(-unit.result);
    run_fail_errno(err, "job {}: fsync of {} failed: {}", job_.name,
                   job_.files[static_cast<size_t>(unit.file)], std::strerror(err));
  }
  record_sync(done_ns - unit.issue_ns, unit.sync, done_ns);
}

// As fio's io_uring engine: the sync due goes into the ring behind the writes still in flight,
// in a slot of its own; when every slot is taken, completions free one first. With iodepth=1
// the next I/O holds the one slot, and the sync runs alone, as in fio.
void Worker::queue_due_sync() {
  if (free_units_.empty()) {
    submit_staged();
    // Again while the reaped units were short I/Os, whose rests keep their slots.
    while (free_units_.empty() && inflight_ > 0) reap_when_full();
  }
  if (free_units_.empty()) {
    sync_file(sync_due_file_);
    sync_due_file_ = -1;
    return;
  }
  IoUnit* unit = free_units_.back();
  free_units_.pop_back();
  unit->sync = due_sync();
  unit->file = sync_due_file_;
  unit->start_ns = now_ns();
  engine_->queue(*unit);
  staged_.push_back(unit);
  sync_due_file_ = -1;
  if (polling()) {
    // fio reaps after each io_u it submits, the sync too.
    submit_staged();
    reap_when_full();
  }
}

// As fio's get_io_u(): with both fsync= and fdatasync=, a write that is due for both is followed
// by the fsync alone. The rest of a short write is no other write here (fio counts it as one).
void Worker::count_write(int file) {
  ++writes_;
  auto due = [this](int every) {
    return every != 0 && writes_ % static_cast<uint64_t>(every) == 0;
  };
  if (due(job_.fsync_every) || due(job_.fdatasync_every)) {
    sync_due_file_ = file;
    datasync_due_ = !due(job_.fsync_every);
  }
}

// Called with nothing in flight, before the next I/O is issued. fio syncs when it asks for the
// next I/O, not after the write, so no sync follows the last write. With psync and sync a pass's
// end (fio: the files are done) comes after that sync; end_fsync then flushes the files unless
// fio just synced, and the next pass, having forgotten the sync, starts with another one. With
// libaio and io_uring the sync runs once, at the next pass's start, after end_fsync (loops=3 of
// 3 writes with fsync=3: psync 4 syncs, libaio and io_uring 2).
void Worker::run_pending_syncs() {
  const bool synced = sync_due_file_ >= 0 && (pass_ends() == 0 || syncs_when_files_done());
  if (synced) sync_file(sync_due_file_);
  if (pass_ends() > 0) {
    if (flushes_at_pass_end() && !synced) flush_files();
    if (sync_due_file_ >= 0) sync_file(sync_due_file_);
  }
  synced_passes_ = planner_->passes_ended();
  sync_due_file_ = -1;
}

// The syncs that end the job. Below the limit fio asks for another I/O when the files are done,
// which runs the sync due with psync and sync, not with libaio and io_uring (loops=2 of 4
// writes with io_size=448k fsync=2: psync 5 syncs, libaio 3). end_fsync flushes the files
// (unless fio just synced) for each pass that ended the job: the last (also a stopped one), and
// the empty one fio starts when the limit was reached before the loops were done.
void Worker::run_final_syncs() {
  const bool synced =
      syncs_when_files_done() && planner_->ended_with_files_done() && sync_due_file_ >= 0;
  if (synced) sync_file(sync_due_file_);
  if (!flushes_at_pass_end()) return;
  for (int64_t i = synced ? 1 : 0; i < std::max<int64_t>(1, pass_ends()); ++i) flush_files();
}

// As fio's td_io_queue(): an I/O counts in total_ios ("issued rwts") when the engine takes it,
// so one that fails counts too.
void Worker::count_issue(const IoUnit& unit) {
  result_.dir[static_cast<int>(unit.dir)].total_ios += 1;
}

void Worker::run_sync() {
  IoUnit& unit = units_[0];
  while (more_ && plan(unit)) {
    if (syncs_pending()) run_pending_syncs();
    do {
      // The rest of a short I/O is a new submission, timed from here, as fio's requeue.
      unit.start_ns = unit.issue_ns = now_ns();
      count_issue(unit);
      engine_->transfer(unit);
    } while (reissue_rest(unit));
    complete(unit, now_ns(), false);
    if (unit.dir == Direction::kWrite) count_write(unit.file);
  }
}

// Queues a read or write in the engine, to go with the next submit_staged().
void Worker::stage(IoUnit& unit) {
  unit.start_ns = now_ns();
  engine_->queue(unit);
  count_issue(unit);
  staged_.push_back(&unit);
}

// Whether the engine took every staged unit; those it refused complete with the error at the next
// reap.
bool Worker::submit_staged() {
  if (staged_.empty()) return true;
  const bool all = engine_->commit() == static_cast<int>(staged_.size());
  // One timestamp for the whole batch, as fio takes it after io_submit.
  uint64_t t = now_ns();
  for (IoUnit* unit : staged_) unit->issue_ns = t;
  inflight_ += static_cast<int>(staged_.size());
  staged_.clear();
  return all;
}

// iodepth_batch_complete_min=0: as fio's libaio and io_uring engines, ask for completions
// without waiting (io_getevents(ctx, 0, max), io_uring_enter(fd, 0, 0, GETEVENTS)), again and
// again, until `min` have come.
int Worker::engine_reap(int min, int max, IoUnit** done) {
  if (job_.iodepth_batch_complete_min != 0) return engine_->reap(min, max, done);
  int n = 0;
  while (n < min) n += engine_->reap(0, max - n, done + n);
  return n;
}

// Nothing is staged when completions are reaped, so the rests of short I/Os go out at once.
void Worker::reap_some(int min, int max) {
  int n = engine_reap(min, max, done_.data());
  uint64_t t = now_ns();
  inflight_ -= n;
  for (int i = 0; i < n; ++i) {
    IoUnit* unit = done_[static_cast<size_t>(i)];
    if (unit->sync != Sync::kNone) {
      complete_sync(*unit, t);
      unit->sync = Sync::kNone;
    } else if (reissue_rest(*unit)) {
      stage(*unit);
      continue;
    } else {
      complete(*unit, t, true);
    }
    free_units_.push_back(unit);
  }
  submit_staged();
}

// As fio's wait_for_completions() and td_io_getevents(): at least iodepth_batch_complete_min
// (1 when that is 0), at most iodepth_batch_complete_max, and never fewer than the least.
void Worker::reap_when_full() {
  const int least = std::clamp(job_.iodepth_batch_complete_min, 1, inflight_);
  reap_some(least, std::max(least, std::min(job_.iodepth_batch_complete_max, inflight_)));
}

void Worker::drain() {
  while (inflight_ > 0) reap_some(1, inflight_);
}

void Worker::run_async() {
  int depth = static_cast<int>(units_.size());
  // fio polls with both iodepth_batch_complete_min and _max 0: it reaps after every I/O it
  // submits, so only one is ever in flight.
  size_t batch =
      polling() ? 1 : static_cast<size_t>(std::clamp(job_.iodepth_batch_submit, 1, depth));
  for (;;) {
    while (more_ && !free_units_.empty()) {
      IoUnit* unit = free_units_.back();
      if (!plan(*unit)) {
        more_ = false;
        break;
      }
      free_units_.pop_back();
      if (syncs_pending()) {
        if (pass_ends() == 0 && engine_->queues_syncs()) {
          queue_due_sync();
        } else {
          submit_staged();
          drain();
          run_pending_syncs();
        }
      }
      stage(*unit);
      if (unit->dir == Direction::kWrite) count_write(unit->file);
      if (staged_.size() >= batch) break;
    }
    // A submission that failed ends the job as in fio, which queues nothing more: its units are
    // reaped first.
    if (!staged_.empty() && submit_staged() && more_ && !free_units_.empty() && !polling()) {
      continue;
    }
    if (inflight_ == 0) break;
    reap_when_full();
  }
}

void Worker::finish(uint64_t end_ns) {
  Usage usage = thread_usage();
  rates_.finish(end_ns, result_);
  const uint64_t elapsed_us = (end_ns - stat_start_ns_) / 1000;
  // As fio: a direction's run time is rounded up to whole ms (update_runtime()), the job's
  // down (mtime_since()); 1.2 ms of I/O report "runtime" 2 and "job_runtime" 1.
  for (DirResult& d : result_.dir) {
    if (d.io_bytes > 0) d.runtime_ms = (elapsed_us + 999) / 1000;
  }
  result_.job_runtime_ms = elapsed_us / 1000;
  result_.usr_ns = usage.usr_ns - usage_start_.usr_ns;
  result_.sys_ns = usage.sys_ns - usage_start_.sys_ns;
  result_.ctx = usage.ctx - usage_start_.ctx;
  result_.minf = usage.minflt - usage_start_.minflt;
  result_.majf = usage.majflt - usage_start_.majflt;
}

void Worker::run() {
  run_start_ns_ = stat_start_ns_ = now_ns();
  rate_limit_.restart(stat_start_ns_);
  rates_.start(stat_start_ns_);
  usage_start_ = thread_usage();
  ramping_ = job_.ramp_time_ns > 0;
  if (job_.runtime_ns) {
    deadline_ns_ = later_by(later_by(run_start_ns_, job_.ramp_time_ns), job_.runtime_ns);
  }
  try {
    if (engine_->synchronous()) {
      run_sync();
    } else {
      run_async();
    }
    run_final_syncs();
  } catch (...) {
    finish(now_ns());
    throw;
  }
  finish(now_ns());
  if (stopped()) result_.interrupted = true;
}

}  // namespace

void run_job(const Job& job, int job_number, JobResult& result, const std::atomic<bool>& stop,
             const std::function<void()>& wait_for_start) {
  bool waited = false;
  try {
    Worker worker(job, job_number, result, stop);
    worker.setup();
    waited = true;
    wait_for_start();
    if (job.start_delay_ns) {
      sleep_until_ns(later_by(now_ns(), job.start_delay_ns),
                     [&] { return stop.load(std::memory_order_relaxed); });
    }
    worker.run();
    result.finished = true;
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (!what.starts_with("job ")) what = fmt::format("job {}: {}", job.name, what);
    const auto* run_error = dynamic_cast<const RunError*>(&e);
    result.set_error(run_error != nullptr ? run_error->error_number() : EIO, what.c_str());
    if (!waited) wait_for_start();
  }
}

}  // namespace kdio
