// Real I/O: each engine runs against a file on the build directory's disk with O_DIRECT, and
// the counts must be exactly what the job asked for.
#include "worker.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "file_layout.h"
#include "report.h"
#include "runner.h"

namespace kdio {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMiB = 1 << 20;

// A system call a job must not make: every call of `nr`, or with `arg` >= 0 those whose argument
// number `arg` is above `above`.
struct Forbidden {
  long nr;
  int arg = -1;
  uint32_t above = 0;
};

// Makes the forbidden calls fail with EPERM in this process from now on; false if the kernel
// refuses the filter. The syscall numbers are the native ones: the tests run natively.
bool forbid(const std::vector<Forbidden>& forbidden) {
  constexpr uint32_t kLowWord = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0 : 4;
  std::vector<sock_filter> prog;
  for (const Forbidden& call : forbidden) {
    const auto nr = static_cast<uint32_t>(call.nr);
    prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    if (call.arg < 0) {
      prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
    } else {
      const auto arg = static_cast<uint32_t>(offsetof(seccomp_data, args) +
                                             8 * static_cast<uint32_t>(call.arg) + kLowWord);
      prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 3));
      prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg));
      prog.push_back(BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, call.above, 0, 1));
    }
    prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  }
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog fprog{static_cast<unsigned short>(prog.size()), prog.data()};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == 0;
}

// Whether the kernel takes seccomp filters: tried in a child process, where it lasts.
bool can_forbid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(forbid({}) ? 0 : 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Appends "what is GOT, not WANT; " to `wrong` when they differ.
void expect_count(std::string& wrong, const char* what, uint64_t got, uint64_t want) {
  if (got != want) {
    wrong +=
        std::string(what) + " is " + std::to_string(got) + ", not " + std::to_string(want) + "; ";
  }
}

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::path(KDIO_TEST_DIR) / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // /tmp may be tmpfs; the build directory must be on a disk that takes O_DIRECT.
    std::string probe = (dir_ / "probe").string();
    int fd = ::open(probe.c_str(), O_CREAT | O_RDWR | O_DIRECT, 0644);
    ASSERT_GE(fd, 0) << dir_ << " does not support O_DIRECT; build on a disk filesystem";
    ::close(fd);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Job make_job(Engine engine, Pattern pattern, uint64_t size, uint64_t bs) {
    Job job;
    job.name = "t";
    job.engine = engine;
    job.pattern = pattern;
    job.direct = true;
    job.block_size[0] = {bs, bs};
    job.block_size[1] = {bs, bs};
    job.files = {(dir_ / "data").string()};
    job.file_size = size;
    return job;
  }

  // Runs the job in a child process in which the `forbidden` system calls fail with EPERM, and
  // returns what `check` found wrong with its result there ("" for nothing). A child process,
  // because a seccomp filter cannot be removed.
  std::string run_forbidding(const Job& job, const std::vector<Forbidden>& forbidden,
                             const std::function<std::string(const JobResult&)>& check) {
    lay_out_files({job});
    return in_child_forbidding(forbidden, [&] {
      JobResult result;
      std::atomic<bool> stop{false};
      run_job(job, 0, result, stop, [] {});
      return result.error != 0 ? std::string(result.error_message) : check(result);
    });
  }

  // Runs `body` in a child process in which the `forbidden` system calls fail with EPERM, and
  // returns what it found wrong ("" for nothing).
  static std::string in_child_forbidding(const std::vector<Forbidden>& forbidden,
                                         const std::function<std::string()>& body) {
    int out[2];
    if (::pipe(out) != 0) return "pipe failed";
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(out[0]);
      std::string wrong = forbid(forbidden) ? body() : "cannot install the seccomp filter";
      ssize_t written = ::write(out[1], wrong.data(), wrong.size());
      ::_exit(written == static_cast<ssize_t>(wrong.size()) ? 0 : 1);
    }
    ::close(out[1]);
    std::string wrong;
    char buf[512];
    ssize_t n;
    while ((n = ::read(out[0], buf, sizeof buf)) > 0) wrong.append(buf, static_cast<size_t>(n));
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) wrong += " (the child failed)";
    return wrong;
  }

  JobResult run(const Job& job) {
    lay_out_files({job});
    JobResult result;
    std::atomic<bool> stop{false};
    run_job(job, 0, result, stop, [] {});
    EXPECT_EQ(result.error, 0) << result.error_message;
    return result;
  }

  fs::path dir_;
};

// How many 4 KiB blocks of the file hold only zeroes: on a file that starts out zeroed, the
// blocks a job never wrote (when it only writes: reads would fill the buffers with zeroes).
uint64_t unwritten_blocks(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> block(4096);
  uint64_t unwritten = 0;
  while (in.read(block.data(), static_cast<std::streamsize>(block.size()))) {
    unwritten += std::all_of(block.begin(), block.end(), [](char c) { return c == 0; });
  }
  return unwritten;
}

// Bytes of [0, end) of a sparse file that hold data: on a file that starts out as one hole, the
// ones a job wrote, whatever it wrote.
uint64_t written_bytes(const fs::path& path, uint64_t end) {
  int fd = ::open(path.c_str(), O_RDONLY);
  ::fsync(fd);
  uint64_t written = 0;
  off_t data = ::lseek(fd, 0, SEEK_DATA);
  while (data >= 0 && static_cast<uint64_t>(data) < end) {
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    written += std::min(static_cast<uint64_t>(hole), end) - static_cast<uint64_t>(data);
    data = ::lseek(fd, hole, SEEK_DATA);
  }
  ::close(fd);
  return written;
}

// Pages of the first `bytes` of the file that are in the page cache.
uint64_t cached_pages(int fd, uint64_t bytes) {
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return 0;
  std::vector<unsigned char> in_cache(bytes / 4096);
  ::mincore(map, bytes, in_cache.data());
  ::munmap(map, bytes);
  return static_cast<uint64_t>(std::count_if(in_cache.begin(), in_cache.end(),
                                             [](unsigned char c) { return (c & 1) != 0; }));
}

// Whether a direction did `ios` I/Os of `bytes` in all, each with its latencies recorded.
::testing::AssertionResult counts_are(const DirResult& d, uint64_t bytes, uint64_t ios, bool slat) {
  std::ostringstream wrong;
  auto expect = [&](const char* what, uint64_t got, uint64_t want) {
    if (got != want) wrong << what << " is " << got << ", not " << want << "; ";
  };
  expect("io_bytes", d.io_bytes, bytes);
  expect("total_ios", d.total_ios, ios);
  expect("clat.samples", d.clat.samples, ios);
  expect("lat.samples", d.lat.samples, ios);
  expect("clat_hist.total()", d.clat_hist.total(), ios);
  expect("slat.samples", d.slat.samples, slat ? ios : 0);
  if (ios > 0 && d.clat.min == 0) wrong << "clat.min is 0; ";
  if (ios > 0 && d.clat.mean > d.lat.mean) {
    wrong << "clat.mean " << d.clat.mean << " exceeds lat.mean " << d.lat.mean << "; ";
  }
  if (wrong.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << wrong.str();
}

TEST_F(WorkerTest, PsyncRandReadDoesEachBlockOfTheFile) {
  JobResult r = run(make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096));
  EXPECT_TRUE(counts_are(r.dir[0], kMiB, 256, false));
  EXPECT_TRUE(counts_are(r.dir[1], 0, 0, false));
  EXPECT_TRUE(r.finished);
  EXPECT_FALSE(r.interrupted);
}

// fio syncs when it asks for the next I/O, so the 16th write, the last, is not followed by one.
TEST_F(WorkerTest, SyncSequentialWriteWithFsyncEveryFour) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, kMiB, 64 * 1024);
  job.fsync_every = 4;
  JobResult r = run(job);
  EXPECT_TRUE(counts_are(r.dir[1], kMiB, 16, false));
  EXPECT_EQ(r.sync.total_ios, 3u);
  EXPECT_EQ(r.sync.fsyncs, 3u);
  EXPECT_EQ(r.sync.lat.samples, 3u);
}

// fdatasync=4 syncs as fsync=4 does, but they are no fsyncs (fio's JSON total_ios leaves them
// out). With both, as in fio, a write due for both is followed by the fsync alone: 64 writes with
// fsync=8 fdatasync=4 give 15 syncs (fio's lat_ns N), 7 of them fsyncs (fio's total_ios).
TEST_F(WorkerTest, FdatasyncsAreNoFsyncs) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, kMiB, 64 * 1024);
  job.fdatasync_every = 4;
  JobResult r = run(job);
  EXPECT_EQ(r.sync.total_ios, 3u);
  EXPECT_EQ(r.sync.fsyncs, 0u);
  job = make_job(Engine::kSync, Pattern::kWrite, kMiB, 16 * 1024);
  job.fsync_every = 8;
  job.fdatasync_every = 4;
  r = run(job);
  EXPECT_EQ(r.dir[1].total_ios, 64u);
  EXPECT_EQ(r.sync.total_ios, 15u);
  EXPECT_EQ(r.sync.fsyncs, 7u);
}

// On a mixed job a sync follows every 4th write and nothing else. fio 3.33 forgets the sync when
// any I/O completes, so from the 4th write on it syncs again before every read until the next
// write (rw=rw rwmixread=75 fsync=4 on 512k: 37 writes, 31 syncs); fio after 3.33 syncs only
// right after a write (io_u.c: get_rw_ddir checks last_ddir_issued == DDIR_WRITE), as kdio does.
// The job ends with the reads at the end of the file, so the sync due then runs: writes / 4.
TEST_F(WorkerTest, MixedJobSyncsOnlyAfterItsWrites) {
  Job job = make_job(Engine::kPsync, Pattern::kReadWrite, 512 * 1024, 4096);
  job.rwmix_read_percent = 75;
  job.fsync_every = 4;
  JobResult r = run(job);
  EXPECT_GT(r.dir[0].total_ios, 2 * r.dir[1].total_ios);
  EXPECT_GE(r.dir[1].total_ios, 8u);
  EXPECT_EQ(r.sync.total_ios, r.dir[1].total_ios / 4);
  job.fsync_every = 0;
  job.fdatasync_every = 4;
  r = run(job);
  EXPECT_EQ(r.sync.lat.samples, r.dir[1].total_ios / 4);
}

TEST_F(WorkerTest, LibaioFsyncEveryFourSkipsTheLastWrite) {
  Job job = make_job(Engine::kLibaio, Pattern::kWrite, kMiB, 64 * 1024);
  job.iodepth = 4;
  job.fsync_every = 4;
  JobResult r = run(job);
  EXPECT_TRUE(counts_are(r.dir[1], kMiB, 16, true));
  EXPECT_EQ(r.sync.total_ios, 3u);
}

// fio at the end of a loop: the sync due after its last write, then (the next loop forgets it)
// another before the next loop's first write; none after the job's last write. 3 loops of 4
// writes: 4 + 1 + 4 + 1 + 3 syncs.
TEST_F(WorkerTest, FsyncAtTheEndOfALoopAsFio) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, 256 * 1024, 64 * 1024);
  job.fsync_every = 1;
  job.loops = 3;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].total_ios, 12u);
  EXPECT_EQ(r.sync.total_ios, 13u);
}

// fio's libaio and io_uring run the sync due at a pass's end once, at the next pass's start,
// and none at the job's end when its last pass ended with its files done; psync and sync run it
// twice, and that last one too (FsyncAtTheEndOfALoopAsFio). fio 3.33's sync.lat_ns N, kdio's
// before: loops=3 of 3 writes with fsync=3, 2 (kdio 4); size=8k io_size=64k with fdatasync=3,
// 16 writes, 5 (kdio 7); loops=2 of 4 writes with io_size=448k fsync=2, 3 (kdio 5).
TEST_F(WorkerTest, AsyncEnginesSyncOnceWhenAPassEnds) {
  for (Engine engine : {Engine::kLibaio, Engine::kIoUring}) {
    SCOPED_TRACE(engine == Engine::kLibaio ? "libaio" : "io_uring");
    Job job = make_job(engine, Pattern::kWrite, 12 * 1024, 4096);
    job.fsync_every = 3;
    job.loops = 3;
    JobResult r = run(job);
    EXPECT_EQ(r.dir[1].total_ios, 9u);
    EXPECT_EQ(r.sync.lat.samples, 2u);
    job = make_job(engine, Pattern::kWrite, 8 * 1024, 4096);
    job.fdatasync_every = 3;
    job.io_size = 64 * 1024;
    r = run(job);
    EXPECT_EQ(r.dir[1].total_ios, 16u);
    EXPECT_EQ(r.sync.lat.samples, 5u);
    job = make_job(engine, Pattern::kWrite, 256 * 1024, 64 * 1024);
    job.fsync_every = 2;
    job.loops = 2;
    job.io_size = 448 * 1024;
    r = run(job);
    EXPECT_EQ(r.dir[1].total_ios, 8u);
    EXPECT_EQ(r.sync.lat.samples, 3u);
  }
}

TEST_F(WorkerTest, SyncLatencyLogHasEachSyncInOrder) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, kMiB, 64 * 1024);
  job.direct = false;  // each fsync writes back its 256 KiB: it takes its time
  job.fsync_every = 4;
  job.sync_lat_log = true;
  JobResult r = run(job);
  ASSERT_EQ(r.sync.log.count, 3u);
  EXPECT_EQ(r.sync.log.dropped, 0u);
  uint64_t sum_ns = 0;
  for (uint32_t i = 0; i < r.sync.log.count; ++i) {
    const SyncLog::Entry& entry = r.sync.log.entries[i];
    EXPECT_GE(entry.lat_ns, r.sync.lat.min);
    EXPECT_LE(entry.lat_ns, r.sync.lat.max);
    if (i > 0) {
      EXPECT_GE(entry.time_ms, r.sync.log.entries[i - 1].time_ms);
    }
    EXPECT_LE(entry.time_ms, r.job_runtime_ms);
    sum_ns += entry.lat_ns;
    // Logged when it ended: after this sync and the ones before it (time_ms is cut to a ms).
    EXPECT_GE(entry.time_ms + 1, sum_ns / 1'000'000) << "sync " << i;
  }
  EXPECT_NEAR(static_cast<double>(sum_ns) / 3, r.sync.lat.mean, 1.0);
}

TEST_F(WorkerTest, NoSyncLatencyLogUnlessAsked) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, kMiB, 64 * 1024);
  job.fsync_every = 4;
  EXPECT_EQ(run(job).sync.log.count, 0u);
}

// fio runs end_fsync after its measurement: the job's sync statistics leave it out.
TEST_F(WorkerTest, EndFsyncIsNoSyncSample) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 64 * 1024);
  job.direct = false;
  job.fsync_every = 4;
  job.end_fsync = true;
  JobResult r = run(job);
  EXPECT_EQ(r.sync.total_ios, 3u);
  EXPECT_EQ(r.sync.lat.samples, 3u);
}

TEST_F(WorkerTest, LibaioRecordsSlat) {
  Job job = make_job(Engine::kLibaio, Pattern::kRandRead, 2 * kMiB, 4096);
  job.iodepth = 8;
  job.iodepth_batch_submit = 4;
  job.iodepth_batch_complete_max = 8;
  JobResult r = run(job);
  EXPECT_TRUE(counts_are(r.dir[0], 2 * kMiB, 512, true));
}

TEST_F(WorkerTest, IoUringMixedWithFixedBuffersAndFiles) {
  Job job = make_job(Engine::kIoUring, Pattern::kRandReadWrite, 2 * kMiB, 4096);
  job.iodepth = 8;
  job.fixedbufs = true;
  job.registerfiles = true;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[0].io_bytes + r.dir[1].io_bytes, 2 * kMiB);
  EXPECT_EQ(r.dir[0].total_ios + r.dir[1].total_ios, 512u);
  EXPECT_GT(r.dir[0].total_ios, 100u);  // rwmixread=50
  EXPECT_GT(r.dir[1].total_ios, 100u);
  EXPECT_EQ(r.dir[0].slat.samples, r.dir[0].total_ios);
}

// An SQPOLL ring's io_uring_submit() counts the entries its thread has not taken yet, earlier
// calls' too: counted as this call's, the last entries were never handed over, and the job
// waited for them for ever.
TEST_F(WorkerTest, IoUringWithAnSqThreadDoesEveryIo) {
  Job job = make_job(Engine::kIoUring, Pattern::kRandRead, 2 * kMiB, 4096);
  job.iodepth = 8;
  job.sqthread_poll = true;
  JobResult r = run(job);
  EXPECT_EQ(r.error, 0) << r.error_message;
  EXPECT_EQ(r.dir[0].total_ios, 512u);
}

// fio's io_uring engine sends its syncs through the ring (IORING_OP_FSYNC, with the writes still
// in flight), end_fsync too: no fsync(2) or fdatasync(2), which fail here (kdio drained the ring
// and called fsync(2)). One sync after every 3rd write but the last: fio 3.33 sends more while
// one is in flight (55 to 61 here, from run to run), fio since axboe/fio#1754 one, as kdio.
TEST_F(WorkerTest, IoUringSyncsThroughTheRing) {
  if (!can_forbid()) GTEST_SKIP() << "the kernel takes no seccomp filters";
  const std::vector<Forbidden> no_sync_calls = {{SYS_fsync}, {SYS_fdatasync}};
  Job job = make_job(Engine::kIoUring, Pattern::kWrite, 256 * 1024, 4096);
  job.iodepth = 8;
  job.fsync_every = 3;
  EXPECT_EQ(run_forbidding(job, no_sync_calls,
                           [](const JobResult& r) {
                             std::string wrong;
                             expect_count(wrong, "writes", r.dir[1].total_ios, 64);
                             expect_count(wrong, "syncs", r.sync.total_ios, 21);
                             expect_count(wrong, "fsyncs", r.sync.fsyncs, 21);
                             expect_count(wrong, "sync samples", r.sync.lat.samples, 21);
                             return wrong;
                           }),
            "");
  // With iodepth=1 the next write holds the one slot: the sync runs alone, still in the ring.
  job.iodepth = 1;
  EXPECT_EQ(run_forbidding(job, no_sync_calls,
                           [](const JobResult& r) {
                             std::string wrong;
                             expect_count(wrong, "writes", r.dir[1].total_ios, 64);
                             expect_count(wrong, "syncs", r.sync.total_ios, 21);
                             return wrong;
                           }),
            "");
  // Two loops of 64 writes: 16 syncs, the last of them when the second loop starts, 15; end_fsync
  // at the end.
  job.iodepth = 8;
  job.fsync_every = 0;
  job.fdatasync_every = 4;
  job.loops = 2;
  job.end_fsync = true;
  job.registerfiles = true;
  EXPECT_EQ(run_forbidding(job, no_sync_calls,
                           [](const JobResult& r) {
                             std::string wrong;
                             expect_count(wrong, "writes", r.dir[1].total_ios, 128);
                             expect_count(wrong, "fsyncs", r.sync.fsyncs, 0);
                             expect_count(wrong, "sync samples", r.sync.lat.samples, 31);
                             return wrong;
                           }),
            "");
}

// The open fds and the io_uring rings mapped in this process.
std::string fds_and_rings() {
  size_t fds = 0;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) fds += entry.exists() ? 1 : 0;
  std::ifstream maps("/proc/self/maps");
  size_t rings = 0;
  for (std::string line; std::getline(maps, line);) {
    rings += line.find("io_uring") != std::string::npos ? 1 : 0;
  }
  return std::to_string(fds) + " fds, " + std::to_string(rings) + " ring mappings";
}

// A registration that fails (IORING_REGISTER_BUFFERS with ENOMEM under a low memlock limit,
// EPERM here) fails the job after its ring was set up; the ring must go with the engine. kdio
// threw from the engine's constructor, whose destructor never ran, so with `thread` each such
// job left the ring's fd and mappings behind (4 jobs: 4 fds, 4 mappings more).
// The kernel registers at most 16384 buffers: more is EINVAL, whose advice is no memlock limit.
TEST_F(WorkerTest, TooManyFixedBuffersSayWhatTheLimitIs) {
  Job job = make_job(Engine::kIoUring, Pattern::kRandRead, kMiB, 4096);
  job.iodepth = 16385;
  job.fixedbufs = true;
  lay_out_files({job});
  JobResult r;
  std::atomic<bool> stop{false};
  run_job(job, 0, r, stop, [] {});
  EXPECT_EQ(r.error, EINVAL);
  EXPECT_NE(std::string(r.error_message).find("fixedbufs takes an iodepth of at most 16384"),
            std::string::npos)
      << r.error_message;
}

TEST_F(WorkerTest, AFailedIoUringRegistrationReleasesTheRing) {
  if (!can_forbid()) GTEST_SKIP() << "the kernel takes no seccomp filters";
  Job job = make_job(Engine::kIoUring, Pattern::kRandRead, kMiB, 4096);
  job.iodepth = 4;
  lay_out_files({job});
  EXPECT_EQ(in_child_forbidding({{SYS_io_uring_register}},
                                [&] {
                                  const std::string before = fds_and_rings();
                                  std::string wrong;
                                  for (int i = 0; i < 4; ++i) {
                                    Job failing = job;
                                    failing.fixedbufs = i % 2 == 0;
                                    failing.registerfiles = !failing.fixedbufs;
                                    JobResult result;
                                    std::atomic<bool> stop{false};
                                    run_job(failing, 0, result, stop, [] {});
                                    if (result.error != EPERM) wrong += "the job did not fail; ";
                                  }
                                  const std::string after = fds_and_rings();
                                  if (after != before) wrong += before + " before, " + after;
                                  return wrong;
                                }),
            "");
}

// iodepth_batch_complete_min=0: fio reaps without waiting, asking again and again until one has
// come (io_getevents(ctx, 0, max), io_uring_enter(fd, 0, 0, GETEVENTS)); kdio waited for one
// (io_getevents(ctx, 1, 8)), which fails here. With iodepth_batch_complete_max=0 too fio polls:
// it reaps after every I/O it submits, one at a time (io_submit(ctx, 1), io_getevents(ctx, 0,
// 1), whatever iodepth_batch); else it reaps when the queue is full.
TEST_F(WorkerTest, CompleteMinZeroReapsWithoutWaiting) {
  if (!can_forbid()) GTEST_SKIP() << "the kernel takes no seccomp filters";
  auto all_reads = [](const JobResult& r) {
    std::string wrong;
    expect_count(wrong, "reads", r.dir[0].total_ios, 256);
    expect_count(wrong, "clat samples", r.dir[0].clat.samples, 256);
    return wrong;
  };
  Job job = make_job(Engine::kLibaio, Pattern::kRandRead, kMiB, 4096);
  job.iodepth = 8;
  job.iodepth_batch_submit = 4;
  job.iodepth_batch_complete_min = 0;
  job.iodepth_batch_complete_max = 0;
  EXPECT_EQ(run_forbidding(
                job, {{SYS_io_getevents, 1, 0}, {SYS_io_getevents, 2, 1}, {SYS_io_submit, 1, 1}},
                all_reads),
            "");
  job.iodepth_batch_complete_max = 4;
  EXPECT_EQ(run_forbidding(job, {{SYS_io_getevents, 1, 0}, {SYS_io_getevents, 2, 4}}, all_reads),
            "");
  job.engine = Engine::kIoUring;
  job.iodepth_batch_complete_max = 0;
  EXPECT_EQ(run_forbidding(job, {{SYS_io_uring_enter, 2, 0}}, all_reads), "");
}

TEST_F(WorkerTest, IoUringPlain) {
  Job job = make_job(Engine::kIoUring, Pattern::kRead, kMiB, 8192);
  job.iodepth = 4;
  EXPECT_TRUE(counts_are(run(job).dir[0], kMiB, 128, true));
}

// fio: io_size x loops is the limit of the whole job and each loop is one pass over the
// files, so io_size=512k loops=2 writes the 1 MiB file once (kdio wrote its first half twice).
TEST_F(WorkerTest, LoopsAndIoSize) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 64 * 1024);
  job.loops = 2;
  job.io_size = kMiB / 2;
  EXPECT_TRUE(counts_are(run(job).dir[1], kMiB, 16, false));
  EXPECT_EQ(unwritten_blocks(dir_ / "data"), 0u);
}

// After its loops fio starts more passes while io_size is not done: 2 passes of the 1 MiB file
// make up 1.5 MiB (kdio did 1.5 MiB in each loop), 2.5 MiB needs a third.
TEST_F(WorkerTest, IoSizeAboveTheFilesWithLoops) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 64 * 1024);
  job.loops = 2;
  job.io_size = 3 * kMiB / 2;
  EXPECT_TRUE(counts_are(run(job).dir[0], 2 * kMiB, 32, false));
  job.io_size = 5 * kMiB / 2;
  EXPECT_TRUE(counts_are(run(job).dir[0], 3 * kMiB, 48, false));
}

// fio starts another pass while what io_size has left is at least the largest block size:
// io_size=1088k of a 1 MiB file in 64 KiB reads is 17 reads, 1087k is 16 (fio 3.33 does both).
TEST_F(WorkerTest, IoSizeOneBlockAboveTheFilesIsOneMoreIo) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, kMiB, 64 * 1024);
  job.io_size = kMiB + 64 * 1024;
  EXPECT_TRUE(counts_are(run(job).dir[0], kMiB + 64 * 1024, 17, false));
  job.io_size = kMiB + 63 * 1024;
  EXPECT_TRUE(counts_are(run(job).dir[0], kMiB, 16, false));
}

// fio checks the limit before each I/O, so the last one goes past it: 300 KiB in 64 KiB reads
// is 320 KiB (kdio stopped each loop at the 64 KiB that fit in 100 KiB).
TEST_F(WorkerTest, TheLastIoGoesPastTheLimit) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, kMiB, 64 * 1024);
  job.io_size = 100 * 1024;
  job.loops = 3;
  EXPECT_TRUE(counts_are(run(job).dir[0], 5 * 64 * 1024, 5, false));
}

// An io_size below the block size is no error, as in fio (kdio failed the job): one I/O, however
// many loops; io_size=5k loops=2 with bs=4k: 3.
TEST_F(WorkerTest, IoSizeBelowTheBlockSizeDoesOneIo) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096);
  job.io_size = 1024;
  job.loops = 3;
  EXPECT_TRUE(counts_are(run(job).dir[1], 4096, 1, false));
  job.io_size = 5 * 1024;
  job.loops = 2;
  EXPECT_TRUE(counts_are(run(job).dir[1], 3 * 4096, 3, false));
}

// io_size above the file's size: a new pass, so the sync due at the end of the first runs and
// the second starts with another, as at a loop's end (kdio went on within the pass: 2 syncs).
TEST_F(WorkerTest, AnotherPassForIoSizeSyncsAsALoop) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, 256 * 1024, 64 * 1024);
  job.fsync_every = 2;
  job.io_size = 384 * 1024;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].total_ios, 6u);
  EXPECT_EQ(r.sync.total_ios, 3u);
}

// Below the limit fio asks for another I/O when the files are done, which runs the sync due:
// 8 writes, 2 passes, io_size=448k of a limit of 896k: syncs before writes 3, 5 (twice), 7
// and after the last.
TEST_F(WorkerTest, TheLastPassEndingWithItsFilesRunsTheSyncDue) {
  Job job = make_job(Engine::kSync, Pattern::kWrite, 256 * 1024, 64 * 1024);
  job.fsync_every = 2;
  job.loops = 2;
  job.io_size = 448 * 1024;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].total_ios, 8u);
  EXPECT_EQ(r.sync.total_ios, 5u);
}

TEST_F(WorkerTest, BlockSizeRangeStaysInRangeAndInTotal) {
  Job job = make_job(Engine::kPsync, Pattern::kRandWrite, 4 * kMiB, 4096);
  job.block_size[1] = {4096, 65536};
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].io_bytes, 4 * kMiB);
  EXPECT_GT(r.dir[1].total_ios, 4 * kMiB / 65536);
  EXPECT_LT(r.dir[1].total_ios, 4 * kMiB / 4096);
}

// fio's random map: a write that would run into blocks done before is cut short, so the
// pass writes every block once (kdio used to overlap them and leave 71 of 256 unwritten).
TEST_F(WorkerTest, RandomBlockSizeRangeWritesEveryBlockOnce) {
  Job job = make_job(Engine::kPsync, Pattern::kRandWrite, kMiB, 4096);
  job.block_size[1] = {4096, 16384};
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].io_bytes, kMiB);
  EXPECT_EQ(unwritten_blocks(dir_ / "data"), 0u);
}

// fio's per-file accounting: each file is done once per pass whatever the others' sizes (kdio
// used to split the total evenly, wrapping the small file and leaving 64 blocks of the other).
TEST_F(WorkerTest, FilesOfDifferentSizesAreEachDoneOnce) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, 0, 4096);
  job.files = {(dir_ / "big").string(), (dir_ / "small").string()};
  std::ofstream(job.files[0]).close();
  std::ofstream(job.files[1]).close();
  fs::resize_file(job.files[0], kMiB);
  fs::resize_file(job.files[1], kMiB / 2);
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].io_bytes, 3 * kMiB / 2);
  EXPECT_EQ(unwritten_blocks(job.files[0]), 0u);
  EXPECT_EQ(unwritten_blocks(job.files[1]), 0u);
}

// A file's last I/O is cut to the room left in it rather than wrapping to its start (kdio
// used to, leaving blocks of the other file undone).
TEST_F(WorkerTest, SequentialBlockSizeRangeWritesEachFileOnce) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096);
  job.block_size[1] = {4096, 16384};
  job.files = {(dir_ / "a").string(), (dir_ / "b").string()};
  JobResult r = run(job);
  EXPECT_EQ(r.dir[1].io_bytes, 2 * kMiB);
  EXPECT_EQ(unwritten_blocks(job.files[0]), 0u);
  EXPECT_EQ(unwritten_blocks(job.files[1]), 0u);
}

// Sequential mixed I/O: reads and writes each walk the file from its start, as in fio, so the
// writes fill a prefix of the file (kdio shared one offset and scattered them over it).
TEST_F(WorkerTest, SequentialMixedWritesFillTheStartOfTheFile) {
  Job job = make_job(Engine::kPsync, Pattern::kReadWrite, kMiB, 4096);
  std::ofstream(job.files[0]).close();
  fs::resize_file(job.files[0], kMiB);  // a hole, and no laying out
  JobResult r = run(job);
  const uint64_t written = r.dir[1].io_bytes;
  ASSERT_GT(written, 0u);
  EXPECT_EQ(r.dir[0].io_bytes + written, kMiB);
  EXPECT_EQ(written_bytes(job.files[0], written), written);
  EXPECT_EQ(written_bytes(job.files[0], kMiB), written);
}

// Time-based: the direction that reaches the end starts over on its own, so the few writes of a
// read-mostly job still walk the whole file instead of being sent back with the reads.
TEST_F(WorkerTest, TimeBasedSequentialMixedWritesWalkTheWholeFile) {
  Job job = make_job(Engine::kPsync, Pattern::kReadWrite, 64 * 1024, 4096);
  job.direct = false;
  job.rwmix_read_percent = 90;
  job.time_based = true;
  job.runtime_ns = 300'000'000;
  std::ofstream(job.files[0]).close();
  fs::resize_file(job.files[0], 64 * 1024);
  JobResult r = run(job);
  ASSERT_GT(r.dir[1].io_bytes, 64 * 1024u);
  EXPECT_EQ(written_bytes(job.files[0], 64 * 1024), 64 * 1024u);
}

TEST_F(WorkerTest, TimeBasedRunsForTheRuntime) {
  // Buffered reads of a 64 KiB file: page-cache hits, so 300 ms surely wraps around it.
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, 64 * 1024, 4096);
  job.direct = false;
  job.time_based = true;
  job.runtime_ns = 300'000'000;
  JobResult r = run(job);
  EXPECT_GE(r.dir[0].runtime_ms, 300u);
  EXPECT_GT(r.dir[0].total_ios, 16u);
  EXPECT_EQ(r.dir[0].io_bytes, r.dir[0].total_ios * 4096);
}

// fio rounds a direction's run time up to whole ms: a job that did I/O never reports 0 ms (kdio
// rounded down, so a 4 KiB read from the page cache took "0 ms").
TEST_F(WorkerTest, RuntimeIsRoundedUpAsFio) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, 4096, 4096);
  job.direct = false;
  JobResult r = run(job);
  EXPECT_GE(r.dir[0].runtime_ms, 1u);
  EXPECT_GE(r.dir[0].runtime_ms, r.job_runtime_ms);
}

TEST_F(WorkerTest, RateIopsBoundsTheCount) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  // Reads from the page cache, which the layout filled: none takes long enough to end the job.
  job.direct = false;
  job.invalidate = false;
  job.time_based = true;
  job.runtime_ns = 400'000'000;
  job.rate_iops[0] = 100;
  JobResult r = run(job);
  // I/O number k may not start before k/100 s, and as in fio the one whose turn comes at the
  // end of the run time is not done: 40 at most (kdio did 41, the last at the deadline).
  EXPECT_LE(r.dir[0].total_ios, 40u);
  EXPECT_GE(r.dir[0].total_ios, 1u);
}

// Each direction of mixed I/O reaches its own limit: the writes held back no longer hold back
// the reads, which kept to about the writes' count (fio: 8 reads a write here).
TEST_F(WorkerTest, MixedIoMeetsTheRateOfEachDirection) {
  Job job = make_job(Engine::kPsync, Pattern::kRandReadWrite, kMiB, 4096);
  job.time_based = true;
  job.runtime_ns = 500'000'000;
  job.rate_iops[0] = 400;
  job.rate_iops[1] = 50;
  JobResult r = run(job);
  EXPECT_LE(r.dir[1].total_ios, r.dir[1].runtime_ms * 50 / 1000 + 1);
  EXPECT_LE(r.dir[0].total_ios, r.dir[0].runtime_ms * 400 / 1000 + 1);
  EXPECT_GE(r.dir[0].total_ios, 3 * r.dir[1].total_ios);
}

// A direction with a 0% share is never turned to, whatever the rate makes wait: a mixed job
// meant to read only wrote as much as it read (on a device, over its data).
TEST_F(WorkerTest, ARateNeverTurnsToADirectionWithoutAShare) {
  Job job = make_job(Engine::kPsync, Pattern::kRandReadWrite, kMiB, 4096);
  job.time_based = true;
  job.runtime_ns = 300'000'000;
  job.rwmix_read_percent = 100;
  job.rate_iops[0] = 100;
  JobResult r = run(job);
  EXPECT_GE(r.dir[0].total_ios, 1u);
  EXPECT_EQ(r.dir[1].total_ios, 0u);
  job.rwmix_read_percent = 0;
  job.rate_iops[0] = 0;
  job.rate_iops[1] = 100;
  r = run(job);
  EXPECT_GE(r.dir[1].total_ios, 1u);
  EXPECT_EQ(r.dir[0].total_ios, 0u);
}

// The I/Os in flight when the rate makes the job wait are reaped before it sleeps: they were
// reaped only once every unit had been used, each completion late by up to iodepth-1 waits
// (here 3 x 200 ms, against a read that takes well under a millisecond).
TEST_F(WorkerTest, ARateWaitIsNoPartOfTheLatencyOfTheIoInFlight) {
  for (Engine engine : {Engine::kLibaio, Engine::kIoUring}) {
    Job job = make_job(engine, Pattern::kRandRead, kMiB, 4096);
    job.iodepth = 4;
    job.time_based = true;
    job.runtime_ns = 1'000'000'000;
    job.rate_iops[0] = 5;
    JobResult r = run(job);
    EXPECT_GE(r.dir[0].clat.samples, 3u);
    EXPECT_LT(r.dir[0].clat.max, 100'000'000u) << "engine " << static_cast<int>(engine);
  }
}

// A job whose thread or process cannot be made fails with that error and the others run:
// kdio aborted (std::terminate, no report) when a thread could not be made, and ended without
// a report when a process could not.
TEST_F(WorkerTest, AJobThatCannotStartFailsAndTheOthersRun) {
  if (!can_forbid()) GTEST_SKIP() << "the kernel takes no seccomp filters";
  Job threaded = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  threaded.use_threads = true;
  Job forked = threaded;
  forked.name = "forked";
  forked.use_threads = false;
  const JobFile file{{threaded, forked}, {}};
  // glibc makes threads with clone3 and processes with clone.
  for (auto [forbidden, fails, runs] : {std::tuple{SYS_clone3, 0, 1}, {SYS_clone, 1, 0}}) {
    std::string wrong = in_child_forbidding({{forbidden}}, [&] {
      const RunOutcome outcome = run_jobs(file);
      const JobResult& failed = outcome.results[static_cast<size_t>(fails)];
      const JobResult& ran = outcome.results[static_cast<size_t>(runs)];
      std::string found;
      if (failed.error != EPERM ||
          std::string(failed.error_message).find("cannot create its") == std::string::npos) {
        found += "the job that cannot start: " + std::string(failed.error_message) + "; ";
      }
      expect_count(found, "the other job's error", static_cast<uint64_t>(ran.error), 0);
      expect_count(found, "the other job's reads", ran.dir[0].total_ios, 256);
      return found;
    });
    EXPECT_EQ(wrong, "") << "forbidden: " << forbidden;
  }
}

// A run time of centuries is no deadline that wrapped into the past: the job does all its I/O.
TEST_F(WorkerTest, AnEndlessRunTimeDoesNotWrap) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  job.runtime_ns = 18'446'744'073'000'000'000u;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[0].total_ios, 256u);
}

TEST_F(WorkerTest, RampTimeIsNotMeasured) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  job.time_based = true;
  job.ramp_time_ns = 200'000'000;
  job.runtime_ns = 200'000'000;
  JobResult r = run(job);
  EXPECT_GE(r.dir[0].runtime_ms, 200u);
  EXPECT_EQ(r.dir[0].total_ios, r.dir[0].clat.samples);
}

// As fio, the rate starts over when the ramp ends: I/Os at 0, 100 and 200 ms (whose end ends
// the 150 ms ramp) are not measured, then the next is due at once and the measured 250 ms hold
// 3; kdio went on counting from the job's start, due at 300 and 400 ms: 2.
TEST_F(WorkerTest, RateStartsOverAfterTheRamp) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  // Reads from the page cache, which the layout filled: none takes long enough to shift a turn.
  job.direct = false;
  job.invalidate = false;
  job.time_based = true;
  job.ramp_time_ns = 150'000'000;
  job.runtime_ns = 250'000'000;
  job.rate_iops[0] = 10;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[0].total_ios, 3u);
  EXPECT_EQ(r.dir[0].clat.samples, 3u);
}

// fio reports the I/O of a job that ends within its ramp_time (bytes, count, run time), but no
// latencies; the job does not wait for the ramp to end.
TEST_F(WorkerTest, RampLongerThanTheJobReportsItsIo) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  job.ramp_time_ns = 3600'000'000'000;
  JobResult r = run(job);
  EXPECT_EQ(r.dir[0].io_bytes, kMiB);
  EXPECT_EQ(r.dir[0].total_ios, 256u);
  EXPECT_EQ(r.dir[0].clat.samples, 0u);
  EXPECT_EQ(r.dir[0].lat.samples, 0u);
  EXPECT_TRUE(r.finished);
}

// As fio's default fadvise_hint=1, kdio opens the files of a random job with POSIX_FADV_RANDOM
// and those of a sequential one with POSIX_FADV_SEQUENTIAL; it left the kernel's read-ahead as
// it was, which made buffered random reads fetch pages they never use (ubuf.fio, 4096 random
// reads: fio 289 ms, kdio 156). With the random hint a read brings in its own pages alone. The
// sequential hint doubles the read-ahead, but the kernel's window varies from read to read (256
// or 512 pages for the same first read on Linux 6.18), so that is not checked here.
TEST_F(WorkerTest, FilesGetTheReadAheadHintOfTheirJob) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  job.direct = false;
  lay_out_files({job});
  char page[4096];
  auto pages_after_a_read = [&](int fd) {
    // Pages that the last read-ahead is still reading cannot be dropped until it is done.
    for (int tries = 0; tries < 1000 && cached_pages(fd, kMiB) != 0; ++tries) {
      (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      if (cached_pages(fd, kMiB) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(cached_pages(fd, kMiB), 0u);
    EXPECT_EQ(::pread(fd, page, sizeof page, 0), static_cast<ssize_t>(sizeof page));
    return cached_pages(fd, kMiB);
  };
  Fd plain(::open(job.files[0].c_str(), O_RDONLY | O_CLOEXEC));
  if (pages_after_a_read(plain.get()) <= 1) GTEST_SKIP() << dir_ << " has no read-ahead";
  EXPECT_EQ(pages_after_a_read(open_job_files(job)[0].fd.get()), 1u);
  job.pattern = Pattern::kRead;
  EXPECT_GT(pages_after_a_read(open_job_files(job)[0].fd.get()), 1u);
}

TEST_F(WorkerTest, StopRequestInterrupts) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
  lay_out_files({job});
  JobResult result;
  std::atomic<bool> stop{true};
  run_job(job, 0, result, stop, [] {});
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.dir[0].total_ios, 0u);
}

// kdio's own checks fail with EINVAL, as fio's do (kdio said EIO); fio's first I/O with bs=1000
// and direct=1 fails with EINVAL too.
TEST_F(WorkerTest, UnalignedDirectBlockSizeIsExplained) {
  Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 1000);
  lay_out_files({job});
  JobResult result;
  std::atomic<bool> stop{false};
  run_job(job, 0, result, stop, [] {});
  EXPECT_EQ(result.error, EINVAL);
  EXPECT_NE(std::string(result.error_message).find("logical block size"), std::string::npos)
      << result.error_message;
}

// As fio, a read job runs whatever the block size of its writes, which it never does: with
// direct=1 one that is no multiple of 512, or one above kdio's 1 GiB limit (kdio failed the job
// with EINVAL: "direct=1 needs block sizes that are multiples of...", "invalid block size").
TEST_F(WorkerTest, BlockSizesOfAnUnusedDirectionAreNotChecked) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, kMiB, 4096);
  job.block_size[1] = {1000, 1000};
  EXPECT_TRUE(counts_are(run(job).dir[0], kMiB, 256, false));
  job = make_job(Engine::kLibaio, Pattern::kRandRead, kMiB, 4096);
  job.iodepth = 4;
  job.block_size[1] = {4096, uint64_t{2} << 30};
  EXPECT_TRUE(counts_are(run(job).dir[0], kMiB, 256, true));
}

// As in fio, a failed job's error is the errno of the failed call: reading a directory is
// EISDIR, not EIO.
TEST_F(WorkerTest, AFailedIoReportsItsErrno) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, 0, 4096);
  job.direct = false;
  job.files = {dir_.string()};
  JobResult result;
  std::atomic<bool> stop{false};
  run_job(job, 0, result, stop, [] {});
  EXPECT_EQ(result.error, EISDIR) << result.error_message;
  EXPECT_FALSE(result.finished);
}

// As fio's td_io_queue(), an I/O counts in total_ios ("issued rwts") when it is issued, so the one
// that fails counts too: the 5th read failing, fio and now kdio 5 (kdio counted 4); writes to
// /dev/full (ENOSPC) at iodepth=4, psync 1 and io_uring 4, all issued before the first failure
// is reaped (kdio 0). libaio's io_submit refuses them (EINVAL): as fio, kdio queues nothing
// after the first refusal, 1 (kdio went on queuing, 4).
TEST_F(WorkerTest, AFailedIoCountsAsIssued) {
  if (!can_forbid()) GTEST_SKIP() << "the kernel takes no seccomp filters";
  auto failed_run = [](const Job& failing) {
    JobResult result;
    std::atomic<bool> stop{false};
    run_job(failing, 0, result, stop, [] {});
    return result;
  };
  Job job = make_job(Engine::kPsync, Pattern::kRead, 64 * 1024, 4096);
  job.direct = false;
  lay_out_files({job});
  EXPECT_EQ(in_child_forbidding({{SYS_pread64, 3, 4 * 4096 - 1}},
                                [&] {
                                  std::string wrong;
                                  const JobResult r = failed_run(job);
                                  expect_count(wrong, "error", r.error, EPERM);
                                  expect_count(wrong, "reads", r.dir[0].total_ios, 5);
                                  expect_count(wrong, "bytes", r.dir[0].io_bytes, 4 * 4096);
                                  return wrong;
                                }),
            "");
  struct Case {
    Engine engine;
    int error;
    uint64_t issued;
  };
  for (const Case& c : {Case{Engine::kPsync, ENOSPC, 1}, Case{Engine::kIoUring, ENOSPC, 4},
                        Case{Engine::kLibaio, EINVAL, 1}}) {
    job = make_job(c.engine, Pattern::kWrite, 64 * 1024, 4096);
    job.direct = false;
    job.iodepth = c.engine == Engine::kPsync ? 1 : 4;
    job.files = {"/dev/full"};
    const JobResult r = failed_run(job);
    EXPECT_EQ(r.error, c.error) << r.error_message;
    EXPECT_EQ(r.dir[1].total_ios, c.issued) << r.error_message;
    EXPECT_EQ(r.dir[1].io_bytes, 0u);
  }
}

// fio's short I/O: one that moves fewer bytes than asked counts in short_ios, and its rest is
// issued again (kdio ended the job: err=5 "short read ... is the file smaller than size?"). Here
// the file has 62 KiB of the 64 KiB the job reads, so the 16th read moves 2 KiB and its rest
// nothing: fio's psync fails the job with EIO ("full resid"), its libaio and io_uring take the
// rest as done. 17 I/Os are issued; kdio counts the unit's 2 KiB (fio only its last part's).
TEST_F(WorkerTest, AShortReadIsCountedAndItsRestIssuedAgain) {
  std::ofstream(dir_ / "data") << std::string(62 * 1024, 'x');  // no layout: the job reads 64k
  for (Engine engine : {Engine::kPsync, Engine::kLibaio, Engine::kIoUring}) {
    SCOPED_TRACE(static_cast<int>(engine));
    Job job = make_job(engine, Pattern::kRead, 64 * 1024, 4096);
    job.direct = false;
    job.iodepth = engine == Engine::kPsync ? 1 : 4;
    JobResult r;
    std::atomic<bool> stop{false};
    run_job(job, 0, r, stop, [] {});
    const bool sync = engine == Engine::kPsync;
    EXPECT_EQ(r.error, sync ? EIO : 0) << r.error_message;
    EXPECT_EQ(r.dir[0].short_ios, 1u);
    EXPECT_EQ(r.dir[0].total_ios, 17u);
    EXPECT_EQ(r.dir[0].io_bytes, sync ? 60 * 1024u : 62 * 1024u);
    EXPECT_EQ(r.dir[0].clat.samples, sync ? 15u : 16u);
  }
}

// A write that runs into a limit partway (ENOSPC on a full file system; RLIMIT_FSIZE here, 1 KiB
// into the 257th 4 KiB write) moves what fits and is short; its rest then fails with the limit's
// own error, EFBIG, which the job reports (kdio reported a short write, EIO).
TEST_F(WorkerTest, AShortWriteReportsTheErrorOfItsRest) {
  for (Engine engine : {Engine::kPsync, Engine::kLibaio, Engine::kIoUring}) {
    Job job = make_job(engine, Pattern::kWrite, 2 * kMiB, 4096);
    job.direct = false;
    job.fallocate = false;
    // One at a time: the count holds no writes that were in flight when the rest failed.
    job.iodepth = 1;
    lay_out_files({job});
    EXPECT_EQ(in_child_forbidding({},
                                  [&] {
                                    const rlimit limit{kMiB + 1024, kMiB + 1024};
                                    ::setrlimit(RLIMIT_FSIZE, &limit);
                                    install_signal_handlers();
                                    JobResult r;
                                    std::atomic<bool> stop{false};
                                    run_job(job, 0, r, stop, [] {});
                                    std::string wrong;
                                    expect_count(wrong, "error", r.error, EFBIG);
                                    expect_count(wrong, "short writes", r.dir[1].short_ios, 1);
                                    expect_count(wrong, "writes", r.dir[1].total_ios, 258);
                                    expect_count(wrong, "bytes", r.dir[1].io_bytes, kMiB);
                                    return wrong;
                                  }),
              "")
        << static_cast<int>(engine);
  }
}

// fio writes to a character device without laying it out (kdio failed: "fallocate failed: No
// such device"); reading /dev/full, which never ends, takes the job's size.
TEST_F(WorkerTest, CharacterDevicesAreNotLaidOut) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096);
  job.direct = false;
  job.files = {"/dev/null"};
  EXPECT_TRUE(counts_are(run(job).dir[1], kMiB, 256, false));
  job.pattern = Pattern::kRead;
  job.files = {"/dev/full"};
  EXPECT_TRUE(counts_are(run(job).dir[0], kMiB, 256, false));
}

// fio: "you need to specify size=", EINVAL, for a device or file that has no size of its own.
TEST_F(WorkerTest, NoSizeAndAnEmptyFileIsEinval) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, 0, 4096);
  job.direct = false;
  job.files = {"/dev/null"};
  JobResult result;
  std::atomic<bool> stop{false};
  run_job(job, 0, result, stop, [] {});
  EXPECT_EQ(result.error, EINVAL) << result.error_message;
}

// A sequential job does whole blocks only: the end of a file shorter than a block is left out,
// as fio 3.33 reads 8192 bytes of a 10000-byte file in two 4k reads. With a block size range an
// I/O drawn longer than what is left is cut to whole blocks of the smallest size, not to the
// end of the file (fio: 8 MiB in 8 loops of a file 1000 bytes over 1 MiB with bsrange=4k-64k).
TEST_F(WorkerTest, ASequentialJobLeavesOutATailShorterThanABlock) {
  std::ofstream(dir_ / "data") << std::string(10000, 'x');
  Job job = make_job(Engine::kPsync, Pattern::kRead, 0, 4096);
  job.direct = false;
  EXPECT_TRUE(counts_are(run(job).dir[0], 8192, 2, false));
  std::ofstream(dir_ / "data") << std::string(kMiB + 1000, 'x');
  job.block_size[0] = {4096, 64 * 1024};
  job.loops = 8;
  EXPECT_EQ(run(job).dir[0].io_bytes, 8 * kMiB);
}

TEST_F(WorkerTest, AFileSmallerThanTheBlockSizeIsEinval) {
  std::ofstream(dir_ / "data") << std::string(2048, 'x');
  Job job = make_job(Engine::kPsync, Pattern::kRead, 0, 4096);
  job.direct = false;
  JobResult result;
  std::atomic<bool> stop{false};
  run_job(job, 0, result, stop, [] {});
  EXPECT_EQ(result.error, EINVAL) << result.error_message;
}

// A file that cannot be opened fails the job with open's errno, as in fio (kdio said EIO).
TEST_F(WorkerTest, AFailedOpenReportsItsErrno) {
  Job job = make_job(Engine::kPsync, Pattern::kRead, kMiB, 4096);
  job.files = {(dir_ / "missing").string()};
  JobResult result;
  std::atomic<bool> stop{false};
  run_job(job, 0, result, stop, [] {});
  EXPECT_EQ(result.error, ENOENT) << result.error_message;
}

// A file that cannot be laid out fails its job with the errno, and the other jobs still run, as
// in fio (kdio ended the whole run: a regular file as the directory, ENOTDIR in both).
TEST_F(WorkerTest, ALayoutFailureFailsOnlyItsJob) {
  std::ofstream(dir_ / "plain") << "a file, not a directory";
  JobFile jobs;
  jobs.jobs.push_back(make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096));
  jobs.jobs[0].name = "bad";
  jobs.jobs[0].files = {(dir_ / "plain" / "data").string()};
  jobs.jobs.push_back(make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096));
  RunOutcome outcome = run_jobs(jobs);
  ASSERT_EQ(outcome.results.size(), 2u);
  EXPECT_EQ(outcome.results[0].error, ENOTDIR) << outcome.results[0].error_message;
  EXPECT_TRUE(std::string(outcome.results[0].error_message).starts_with("job bad: "))
      << outcome.results[0].error_message;
  EXPECT_FALSE(outcome.results[0].finished);
  EXPECT_TRUE(outcome.results[1].finished) << outcome.results[1].error_message;
  EXPECT_TRUE(counts_are(outcome.results[1].dir[1], kMiB, 256, false));
}

// As in fio, a failed preallocation does not fail the layout (kdio failed the job with
// fallocate's EFBIG or ENOSPC): a write job's own writes meet the error, if they get that far.
TEST_F(WorkerTest, AFailedFallocateIsNoLayoutError) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, uint64_t{1} << 50, 4096);  // 1 PiB
  std::vector<std::optional<RunError>> failures = lay_out_files({job});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_FALSE(failures[0]) << failures[0]->what();
}

// fio creates the directories in a file's name that do not exist, with mode 0700 (kdio failed
// the job: "cannot create ...: No such file or directory").
TEST_F(WorkerTest, MissingDirectoriesOfAFileAreCreated) {
  Job job = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096);
  job.files = {(dir_ / "a" / "b" / "data").string()};
  EXPECT_TRUE(counts_are(run(job).dir[1], kMiB, 256, false));
  EXPECT_EQ(fs::status(dir_ / "a").permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(dir_ / "a" / "b").permissions(), fs::perms::owner_all);
}

// But a directory= that does not exist is an error before any job, as fio's when it parses it.
TEST_F(WorkerTest, AMissingDirectoryOptionFailsTheRun) {
  JobFile jobs;
  jobs.jobs.push_back(make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096));
  jobs.jobs[0].directories = {(dir_ / "none").string()};
  jobs.jobs[0].files = {(dir_ / "none" / "data").string()};
  EXPECT_THROW(run_jobs(jobs), RunError);
  EXPECT_FALSE(fs::exists(dir_ / "none"));
}

// A job without a size on a file that does not exist fails alone too.
TEST_F(WorkerTest, NoSizeForAMissingFileFailsOnlyItsJob) {
  std::vector<Job> jobs = {make_job(Engine::kPsync, Pattern::kRead, 0, 4096),
                           make_job(Engine::kPsync, Pattern::kRead, kMiB, 4096)};
  jobs[0].files = {(dir_ / "missing").string()};
  std::vector<std::optional<RunError>> failures = lay_out_files(jobs);
  ASSERT_EQ(failures.size(), 2u);
  ASSERT_TRUE(failures[0]);
  EXPECT_NE(std::string(failures[0]->what()).find("no size was given"), std::string::npos);
  EXPECT_EQ(failures[0]->error_number(), EINVAL);  // fio's "you need to specify size="
  EXPECT_FALSE(failures[1]);
  EXPECT_EQ(fs::file_size(dir_ / "data"), kMiB);
}

// A write past RLIMIT_FSIZE (`ulimit -f 1024`, 2 MiB to write without fallocate) fails the job
// with EFBIG, with or without `thread`: kdio ignores SIGXFSZ, which killed the worker, and with
// `thread` kdio itself ("the worker process died from signal 25", err=4).
TEST_F(WorkerTest, AWritePastTheFileSizeLimitIsEfbig) {
  JobFile jobs;
  jobs.jobs.push_back(make_job(Engine::kPsync, Pattern::kWrite, 2 * kMiB, 4096));
  jobs.jobs[0].fallocate = false;
  jobs.jobs.push_back(jobs.jobs[0]);
  jobs.jobs[1].use_threads = true;
  jobs.jobs[1].stonewall = true;
  EXPECT_EQ(in_child_forbidding({},
                                [&] {
                                  const rlimit limit{kMiB, kMiB};
                                  ::setrlimit(RLIMIT_FSIZE, &limit);
                                  install_signal_handlers();
                                  std::string wrong;
                                  for (const JobResult& r : run_jobs(jobs).results) {
                                    if (r.error != EFBIG) wrong += r.error_message;
                                    expect_count(wrong, "bytes", r.dir[1].io_bytes, kMiB);
                                  }
                                  return wrong;
                                }),
            "");
}

// A worker killed by a signal (here SIGXCPU, at a CPU time limit of 1 s) fails its job, and the
// message names the job (kdio: "the worker process died from signal 24", without it).
TEST_F(WorkerTest, AWorkerKilledByASignalNamesItsJob) {
  JobFile jobs;
  jobs.jobs.push_back(make_job(Engine::kPsync, Pattern::kRandRead, 64 * 1024, 4096));
  Job& job = jobs.jobs[0];
  job.name = "spinner";
  job.direct = false;  // page-cache hits: the worker spends its time on the CPU
  job.time_based = true;
  job.runtime_ns = 60'000'000'000;
  lay_out_files(jobs.jobs);
  EXPECT_EQ(in_child_forbidding({},
                                [&] {
                                  const rlimit no_core{0, 0};
                                  ::setrlimit(RLIMIT_CORE, &no_core);
                                  rlimit cpu{};
                                  ::getrlimit(RLIMIT_CPU, &cpu);
                                  cpu.rlim_cur = 1;
                                  ::setrlimit(RLIMIT_CPU, &cpu);
                                  const JobResult r = run_jobs(jobs).results[0];
                                  const std::string message = r.error_message;
                                  return r.error == EINTR &&
                                                 message.starts_with(
                                                     "job spinner: the worker process died from "
                                                     "signal 24")
                                             ? ""
                                             : message;
                                }),
            "");
}

TEST_F(WorkerTest, ProcessesAndThreadsWithStonewallAndGroupReporting) {
  JobFile jobs;
  for (int i = 0; i < 3; ++i) {
    Job job = make_job(Engine::kPsync, Pattern::kRandRead, kMiB, 4096);
    job.clone_index = i;
    job.group_reporting = true;
    job.use_threads = i == 2;
    jobs.jobs.push_back(job);
  }
  Job writer = make_job(Engine::kPsync, Pattern::kWrite, kMiB, 4096);
  writer.name = "w";
  writer.files = {(dir_ / "other").string()};
  writer.stonewall = true;
  writer.group_id = 1;
  jobs.jobs.push_back(writer);
  RunOutcome outcome = run_jobs(jobs);
  ASSERT_EQ(outcome.results.size(), 4u);
  for (const JobResult& r : outcome.results) EXPECT_TRUE(r.finished) << r.error_message;
  std::vector<ReportEntry> entries = report_entries(jobs.jobs, outcome.results);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].members, 3);
  EXPECT_TRUE(counts_are(entries[0].result.dir[0], 3 * kMiB, 768, false));
  EXPECT_EQ(entries[0].result.dir[0].runtime_ms,
            std::max({outcome.results[0].dir[0].runtime_ms, outcome.results[1].dir[0].runtime_ms,
                      outcome.results[2].dir[0].runtime_ms}));
  EXPECT_TRUE(counts_are(entries[1].result.dir[1], kMiB, 256, false));
  EXPECT_EQ(fs::file_size(dir_ / "other"), kMiB);
}

}  // namespace
}  // namespace kdio
