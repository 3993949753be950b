#include "engine.h"

namespace kdio {

std::unique_ptr<IoEngine> make_engine(const Job& job, std::span<const int> fds,
                                      std::span<IoUnit> units) {
  switch (job.engine) {
    case Engine::kPsync:
      return make_psync_engine(fds, true);
    case Engine::kSync:
      return make_psync_engine(fds, false);
    case Engine::kLibaio:
      return make_libaio_engine(job, fds);
    case Engine::kIoUring:
      return make_io_uring_engine(job, fds, units);
  }
  return nullptr;
}

}  // namespace kdio
