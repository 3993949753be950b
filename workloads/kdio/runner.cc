#include "runner.h"

#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include "cgroup.h"
#include "file_layout.h"
#include "run_error.h"
#include "worker.h"

namespace kdio {
namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

void on_stop_signal(int sig) {
  g_signal = sig;
  g_stop.store(true);
}

// Results and the start barrier live in shared memory so forked workers can fill them.
struct Shared {
  std::atomic<int> ready{0};
};

// The results start on a cache line of their own, which also aligns them.
constexpr size_t kResultsOffset = 64;
static_assert(sizeof(Shared) <= kResultsOffset && alignof(JobResult) <= kResultsOffset);

class SharedMemory {
 public:
  explicit SharedMemory(size_t jobs) : bytes_(kResultsOffset + jobs * sizeof(JobResult)) {
    mem_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem_ == MAP_FAILED) run_fail("cannot map {} bytes of shared memory for results", bytes_);
    new (mem_) Shared();
    for (size_t i = 0; i < jobs; ++i) new (&results()[i]) JobResult();
  }
  ~SharedMemory() { ::munmap(mem_, bytes_); }
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  Shared& shared() { return *static_cast<Shared*>(mem_); }
  JobResult* results() {
    return reinterpret_cast<JobResult*>(static_cast<char*>(mem_) + kResultsOffset);
  }

 private:
  size_t bytes_;
  void* mem_;
};

static_assert(std::atomic<int>::is_always_lock_free, "the start barrier crosses processes");
static_assert(sizeof(std::atomic<int>) == sizeof(int), "futex() waits on the atomic's int");

// The start barrier's waits, process-shared (forked workers wait too; std::atomic::wait's
// futex is process-private): each waiter sleeps until the last arrival wakes them all, where
// polling with 1200 workers kept the CPUs busy for longer than the jobs ran.
int* futex_word(std::atomic<int>& counter) {
  return reinterpret_cast<int*>(&counter);
}

void wait_while_equal(std::atomic<int>& counter, int value) {
  // A timeout, to see a stop request even if its signal arrived on another thread.
  const timespec timeout{0, 50'000'000};
  ::syscall(SYS_futex, futex_word(counter), FUTEX_WAIT, value, &timeout, nullptr, 0);
}

void wake_all(std::atomic<int>& counter) {
  ::syscall(SYS_futex, futex_word(counter), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

std::string auto_cgroup_name(size_t index) {
  return fmt::format("kdio.{}.{}", ::getpid(), index);
}

// One wave (the indexes of its jobs): every job starts when all of them are set up, and the
// wave ends when all are done.
void run_wave(const std::vector<Job>& jobs, const std::vector<size_t>& wave, SharedMemory& memory) {
  Shared& shared = memory.shared();
  shared.ready.store(0);
  int wave_size = static_cast<int>(wave.size());
  // True for the last to arrive, which starts them all.
  auto arrive = [&shared, wave_size] {
    if (shared.ready.fetch_add(1) + 1 < wave_size) return false;
    wake_all(shared.ready);
    return true;
  };
  auto wait_for_start = [&shared, wave_size, arrive] {
    if (arrive()) return;
    int arrived;
    while ((arrived = shared.ready.load()) < wave_size && !g_stop.load()) {
      wait_while_equal(shared.ready, arrived);
    }
  };
  // A job whose process or thread could not be made fails with that error (as in fio, which
  // reports it with the others), and arrives for itself, so that the others start.
  auto fail_to_start = [&](size_t i, const char* what, int error) {
    std::string text =
        fmt::format("job {}: cannot create its {}: {}", jobs[i].name, what, std::strerror(error));
    memory.results()[i].set_error(error, text.c_str());
    arrive();
  };
  std::vector<pid_t> children;
  std::vector<size_t> child_jobs;  // the job index of each child
  std::vector<std::string> created_groups;
  for (size_t i : wave) {
    const Job& job = jobs[i];
    std::string group = job_cgroup(job, auto_cgroup_name(i));
    // A cgroup holds processes, so a job with one gets a process even with `thread`.
    if (job.use_threads && group.empty()) continue;
    if (!group.empty() && job.cgroup.empty()) created_groups.push_back(group);
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) {
      fail_to_start(i, "process", errno);
      continue;
    }
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(1);
      JobResult& result = memory.results()[i];
      try {
        if (!group.empty()) enter_job_cgroup(job, group);
      } catch (const std::exception& e) {
        std::string what = fmt::format("job {}: {}", job.name, e.what());
        result.set_error(EPERM, what.c_str());
        wait_for_start();
        ::_exit(1);
      }
      run_job(job, static_cast<int>(i), result, g_stop, wait_for_start);
      ::_exit(0);
    }
    children.push_back(pid);
    child_jobs.push_back(i);
  }
  std::vector<std::thread> threads;
  for (size_t i : wave) {
    const Job& job = jobs[i];
    if (!job.use_threads || !job_cgroup(job, auto_cgroup_name(i)).empty()) continue;
    try {
      threads.emplace_back([&, i] {
        run_job(jobs[i], static_cast<int>(i), memory.results()[i], g_stop, wait_for_start);
      });
    } catch (const std::system_error& error) {
      fail_to_start(i, "thread", error.code().value());
    }
  }
  bool forwarded = false;
  auto forward_stop = [&] {
    // A SIGTERM sent to kdio alone must reach the worker processes too.
    if (!g_stop.load() || forwarded) return;
    for (pid_t child : children) ::kill(child, SIGTERM);
    forwarded = true;
  };
  for (size_t c = 0; c < children.size(); ++c) {
    forward_stop();
    int status = 0;
    while (::waitpid(children[c], &status, 0) < 0 && errno == EINTR) forward_stop();
    JobResult& result = memory.results()[child_jobs[c]];
    if (WIFSIGNALED(status) && result.error == 0 && !result.finished) {
      std::string what =
          fmt::format("job {}: the worker process died from signal {} ({})",
                      jobs[child_jobs[c]].name, WTERMSIG(status), strsignal(WTERMSIG(status)));
      result.set_error(EINTR, what.c_str());
    }
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& group : created_groups) remove_cgroup(group);
}

// Lays out the files; a job whose files could not be laid out fails with that error and does not
// run, as in fio (which reports it with the others and exits 1).
void fail_unlaid_jobs(const std::vector<Job>& jobs, JobResult* results) {
  std::vector<std::optional<RunError>> failures = lay_out_files(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!failures[i]) continue;
    std::string what = fmt::format("job {}: {}", jobs[i].name, failures[i]->what());
    results[i].set_error(failures[i]->error_number(), what.c_str());
  }
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid must return so the stop can be forwarded
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  // A write past the limit then fails with EFBIG; the forked workers inherit it.
  ::signal(SIGXFSZ, SIG_IGN);
}

RunOutcome run_jobs(const JobFile& job_file) {
  const std::vector<Job>& jobs = job_file.jobs;
  check_directories(jobs);
  SharedMemory memory(jobs.size());
  fail_unlaid_jobs(jobs, memory.results());
  std::vector<size_t> wave;
  for (size_t i = 0; i <= jobs.size(); ++i) {
    if (i == jobs.size() || starts_wave(jobs[i], i)) {
      if (!wave.empty() && !g_stop.load()) run_wave(jobs, wave, memory);
      wave.clear();
    }
    if (i < jobs.size() && memory.results()[i].error == 0) wave.push_back(i);
  }
  RunOutcome outcome;
  outcome.results.assign(memory.results(), memory.results() + jobs.size());
  outcome.signal = g_signal;
  return outcome;
}

}  // namespace kdio
