// libaio: units are staged as iocbs, submitted with one io_submit per commit, and reaped with
// io_getevents(min, max), as fio's libaio engine does.
#include <libaio.h>

#include <cstring>
#include <vector>

#include "engine.h"
#include "run_error.h"

namespace kdio {
namespace {

class LibaioEngine final : public IoEngine {
 public:
  LibaioEngine(const Job& job, std::span<const int> fds)
      : fds_(fds.begin(), fds.end()),
        iocbs_(static_cast<size_t>(job.iodepth)),
        staged_(static_cast<size_t>(job.iodepth)),
        events_(static_cast<size_t>(job.iodepth)) {
    failed_.reserve(static_cast<size_t>(job.iodepth));
    int ret = io_setup(job.iodepth, &ctx_);
    if (ret < 0) {
      run_fail_errno(-ret,
                     "io_setup({}) failed: {}; raise /proc/sys/fs/aio-max-nr or lower iodepth",
                     job.iodepth, std::strerror(-ret));
    }
  }
  ~LibaioEngine() override { io_destroy(ctx_); }

  bool synchronous() const override { return false; }
  void transfer(IoUnit&) override { run_fail("internal: transfer() on libaio"); }

  void queue(IoUnit& unit) override {
    iocb* cb = &iocbs_[unit.index];
    int fd = fds_[static_cast<size_t>(unit.file)];
    if (unit.dir == Direction::kRead) {
      io_prep_pread(cb, fd, unit.buf, unit.len, static_cast<long long>(unit.offset));
    } else {
      io_prep_pwrite(cb, fd, unit.buf, unit.len, static_cast<long long>(unit.offset));
    }
    cb->data = &unit;
    staged_[nstaged_++] = cb;
  }

  int commit() override {
    int submitted = 0;
    while (submitted < nstaged_) {
      int ret = io_submit(ctx_, nstaged_ - submitted, staged_.data() + submitted);
      if (ret == -EAGAIN || ret == -EINTR) continue;
      if (ret < 0) {
        // Fail the rest as completed with the error, like a kernel completion would.
        for (int i = submitted; i < nstaged_; ++i) {
          auto* unit = static_cast<IoUnit*>(staged_[static_cast<size_t>(i)]->data);
          unit->result = ret;
          failed_.push_back(unit);
        }
        break;
      }
      submitted += ret;
    }
    nstaged_ = 0;
    return submitted;
  }

  int reap(int min, int max, IoUnit** done) override {
    int n = 0;
    while (!failed_.empty() && n < max) {
      done[n++] = failed_.back();
      failed_.pop_back();
    }
    if (n > 0) return n;
    int ret;
    do {
      ret = io_getevents(ctx_, min, max, events_.data(), nullptr);
    } while (ret == -EINTR);
    if (ret < 0) run_fail_errno(-ret, "io_getevents failed: {}", std::strerror(-ret));
    for (int i = 0; i < ret; ++i) {
      io_event& ev = events_[static_cast<size_t>(i)];
      auto* unit = static_cast<IoUnit*>(ev.data);
      // res is unsigned long in the ABI; negative errno values come back as huge numbers.
      unit->result = static_cast<long>(ev.res);
      done[i] = unit;
    }
    return ret;
  }

 private:
  io_context_t ctx_ = nullptr;
  std::vector<int> fds_;
  std::vector<iocb> iocbs_;
  std::vector<iocb*> staged_;
  std::vector<io_event> events_;
  std::vector<IoUnit*> failed_;
  int nstaged_ = 0;
};

}  // namespace

std::unique_ptr<IoEngine> make_libaio_engine(const Job& job, std::span<const int> fds) {
  return std::make_unique<LibaioEngine>(job, fds);
}

}  // namespace kdio
