// io_uring through liburing: registered files, fixed buffers, SQPOLL and polled completions
// (hipri), the options fio's io_uring engine has.
#include <liburing.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "engine.h"
#include "run_error.h"

namespace kdio {
namespace {

// The ring, set up by init() and released when the engine's constructor throws after that (a
// registration that fails) as when the engine goes: with `thread`, every such job left its fd
// and mappings behind.
class Ring {
 public:
  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() {
    if (live_) io_uring_queue_exit(&ring_);
  }

  // 0 or -errno, as io_uring_queue_init_params.
  int init(unsigned entries, io_uring_params& params) {
    const int ret = io_uring_queue_init_params(entries, &ring_, &params);
    live_ = ret == 0;
    return ret;
  }
  io_uring* get() { return &ring_; }

 private:
  io_uring ring_{};
  bool live_ = false;
};

class IoUringEngine final : public IoEngine {
 public:
  IoUringEngine(const Job& job, std::span<const int> fds, std::span<IoUnit> units)
      : fds_(fds.begin(), fds.end()),
        sq_thread_(job.sqthread_poll),
        fixed_files_(job.registerfiles),
        fixed_bufs_(job.fixedbufs),
        cqes_(static_cast<size_t>(job.iodepth)) {
    unsigned flags = 0;
    if (job.sqthread_poll) flags |= IORING_SETUP_SQPOLL;
    if (job.hipri) flags |= IORING_SETUP_IOPOLL;
    int ret = -EINVAL;
    // As fio sets its rings up: this thread alone submits and reaps, so completion work can
    // wait until it asks for events instead of interrupting it. Kernels before 6.1 (5.19 for
    // COOP_TASKRUN) refuse the flags they do not know with EINVAL; try fewer then.
    for (unsigned taskrun :
         {IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
          unsigned{IORING_SETUP_COOP_TASKRUN}, 0u}) {
      if (job.sqthread_poll && taskrun != 0) continue;  // the SQ thread submits, not this one
      io_uring_params params{};
      params.flags = flags | taskrun;
      ret = ring_.init(static_cast<unsigned>(job.iodepth), params);
      if (ret != -EINVAL) break;
    }
    if (ret < 0) {
      run_fail_errno(
          -ret, "io_uring setup failed: {}{}", std::strerror(-ret),
          job.sqthread_poll ? " (sqthread_poll needs CAP_SYS_NICE on older kernels)" : "");
    }
    if (fixed_files_) {
      ret = io_uring_register_files(ring_.get(), fds_.data(), static_cast<unsigned>(fds_.size()));
      if (ret < 0) run_fail_errno(-ret, "io_uring registerfiles failed: {}", std::strerror(-ret));
    }
    if (fixed_bufs_) {
      std::vector<iovec> iovs;
      for (IoUnit& unit : units) iovs.push_back({unit.buf, unit.len});
      ret = io_uring_register_buffers(ring_.get(), iovs.data(), static_cast<unsigned>(iovs.size()));
      if (ret < 0) {
        // The kernel takes at most 16384 buffers (EINVAL); their pages count against the
        // memlock limit (ENOMEM).
        run_fail_errno(-ret, "io_uring fixedbufs failed: {}; {}", std::strerror(-ret),
                       ret == -EINVAL ? "fixedbufs takes an iodepth of at most 16384"
                                      : "raise the memlock limit (ulimit -l)");
      }
    }
  }
  // Closing a ring does not wait for its I/O: the kernel would go on reading into buffers the
  // worker frees next, when a job fails with I/O in flight. Waits for it, as libaio's
  // io_destroy() does.
  ~IoUringEngine() override {
    if (staged_ > 0) io_uring_submit(ring_.get());
    while (in_flight_ > 0) {
      io_uring_cqe* cqe = nullptr;
      const int ret = io_uring_wait_cqe(ring_.get(), &cqe);
      if (ret == -EINTR || ret == -EAGAIN) continue;
      if (ret < 0) break;
      io_uring_cqe_seen(ring_.get(), cqe);
      --in_flight_;
    }
  }

  bool synchronous() const override { return false; }
  bool queues_syncs() const override { return true; }
  void transfer(IoUnit&) override { run_fail("internal: transfer() on io_uring"); }

  void queue(IoUnit& unit) override {
    io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
    if (sqe == nullptr) run_fail("internal: io_uring submission queue full");
    int fd = fixed_files_ ? unit.file : fds_[static_cast<size_t>(unit.file)];
    bool read = unit.dir == Direction::kRead;
    if (unit.sync != Sync::kNone) {
      io_uring_prep_fsync(sqe, fd, unit.sync == Sync::kFdatasync ? IORING_FSYNC_DATASYNC : 0);
    } else if (fixed_bufs_) {
      int buf_index = static_cast<int>(unit.index);
      if (read) {
        io_uring_prep_read_fixed(sqe, fd, unit.buf, unit.len, unit.offset, buf_index);
      } else {
        io_uring_prep_write_fixed(sqe, fd, unit.buf, unit.len, unit.offset, buf_index);
      }
    } else if (read) {
      io_uring_prep_read(sqe, fd, unit.buf, unit.len, unit.offset);
    } else {
      io_uring_prep_write(sqe, fd, unit.buf, unit.len, unit.offset);
    }
    if (fixed_files_) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, &unit);
    ++staged_;
    ++in_flight_;
  }

  int commit() override {
    int n = staged_;
    while (staged_ > 0) {
      int ret = io_uring_submit(ring_.get());
      if (ret == -EAGAIN || ret == -EINTR) continue;
      if (ret < 0) run_fail_errno(-ret, "io_uring submit failed: {}", std::strerror(-ret));
      // With SQPOLL the return counts every entry the SQ thread has not taken yet, earlier
      // calls' too; one call hands it all that is staged.
      staged_ = sq_thread_ ? 0 : staged_ - ret;
    }
    return n;
  }

  int reap(int min, int max, IoUnit** done) override {
    if (min > 0) {
      io_uring_cqe* cqe;
      int ret;
      do {
        ret = io_uring_wait_cqe_nr(ring_.get(), &cqe, static_cast<unsigned>(min));
      } while (ret == -EINTR || ret == -EAGAIN);
      if (ret < 0) run_fail_errno(-ret, "io_uring wait failed: {}", std::strerror(-ret));
    }
    int n = take_completions(max, done);
    if (n == 0 && min == 0) {
      // Without waiting, but completions of a DEFER_TASKRUN ring are only posted when this task
      // enters the kernel: io_uring_enter(fd, 0, 0, GETEVENTS), as fio's polling does.
      int ret = io_uring_get_events(ring_.get());
      if (ret < 0 && ret != -EINTR && ret != -EAGAIN) {
        run_fail_errno(-ret, "io_uring_enter failed: {}", std::strerror(-ret));
      }
      n = take_completions(max, done);
    }
    return n;
  }

 private:
  int take_completions(int max, IoUnit** done) {
    unsigned n = io_uring_peek_batch_cqe(ring_.get(), cqes_.data(), static_cast<unsigned>(max));
    for (unsigned i = 0; i < n; ++i) {
      auto* unit = static_cast<IoUnit*>(io_uring_cqe_get_data(cqes_[i]));
      unit->result = cqes_[i]->res;
      done[i] = unit;
    }
    io_uring_cq_advance(ring_.get(), n);
    in_flight_ -= static_cast<int>(n);
    return static_cast<int>(n);
  }

  Ring ring_;  // first, so that it goes last
  std::vector<int> fds_;
  bool sq_thread_;
  bool fixed_files_;
  bool fixed_bufs_;
  std::vector<io_uring_cqe*> cqes_;
  int staged_ = 0;
  int in_flight_ = 0;  // queued and not yet reaped
};

}  // namespace

std::unique_ptr<IoEngine> make_io_uring_engine(const Job& job, std::span<const int> fds,
                                               std::span<IoUnit> units) {
  return std::make_unique<IoUringEngine>(job, fds, units);
}

}  // namespace kdio
