// psync (pread/pwrite) and sync (lseek + read/write): fio's synchronous engines.
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "engine.h"
#include "run_error.h"

namespace kdio {
namespace {

class SyncEngine final : public IoEngine {
 public:
  SyncEngine(std::span<const int> fds, bool positional)
      : fds_(fds.begin(), fds.end()), positional_(positional) {}

  bool synchronous() const override { return true; }

  void transfer(IoUnit& unit) override {
    int fd = fds_[static_cast<size_t>(unit.file)];
    ssize_t done;
    if (positional_) {
      done = unit.dir == Direction::kRead ? ::pread(fd, unit.buf, unit.len, off(unit))
                                          : ::pwrite(fd, unit.buf, unit.len, off(unit));
    } else {
      if (::lseek(fd, off(unit), SEEK_SET) < 0) {
        unit.result = -errno;
        return;
      }
      done = unit.dir == Direction::kRead ? ::read(fd, unit.buf, unit.len)
                                          : ::write(fd, unit.buf, unit.len);
    }
    unit.result = done < 0 ? -errno : done;
  }

  void queue(IoUnit&) override { run_fail("internal: queue() on a synchronous engine"); }
  int commit() override { run_fail("internal: commit() on a synchronous engine"); }
  int reap(int, int, IoUnit**) override { run_fail("internal: reap() on a synchronous engine"); }

 private:
  static off_t off(const IoUnit& unit) { return static_cast<off_t>(unit.offset); }

  std::vector<int> fds_;
  bool positional_;
};

}  // namespace

std::unique_ptr<IoEngine> make_psync_engine(std::span<const int> fds, bool positional) {
  return std::make_unique<SyncEngine>(fds, positional);
}

}  // namespace kdio
