#include "file_layout.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "run_error.h"

namespace kdio {
namespace {

constexpr uint64_t kLayoutChunk = 1 << 20;

// Block and character devices (/dev/null) have the size they have: fio neither preallocates
// nor extends them.
bool is_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode));
}

uint64_t existing_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

void write_out(int fd, const std::string& path, uint64_t from, uint64_t to) {
  std::unique_ptr<char[]> chunk(new char[kLayoutChunk]);
  // Non-zero content so that compressing or deduplicating storage cannot shortcut reads.
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < kLayoutChunk; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(chunk.get() + i, &x, 8);
  }
  for (uint64_t off = from; off < to;) {
    size_t n = static_cast<size_t>(std::min(kLayoutChunk, to - off));
    ssize_t w = ::pwrite(fd, chunk.get(), n, static_cast<off_t>(off));
    if (w <= 0) {
      const int err = w < 0 ? errno : ENOSPC;
      run_fail_errno(err, "laying out {}: write failed: {}", path, std::strerror(err));
    }
    off += static_cast<uint64_t>(w);
  }
}

// fio creates the directories a file's name asks for, each with mode 0700.
void make_parent_dirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      const int err = errno;
      run_fail_errno(err, "cannot create directory {} for {}: {}", dir, path, std::strerror(err));
    }
  }
}

void lay_out(const std::string& path, uint64_t size, bool fill, bool use_fallocate) {
  uint64_t have = existing_size(path);
  if (have >= size) return;
  make_parent_dirs(path);
  // Like fio: a file that only gets written starts empty (the writes extend it, unless
  // fallocate reserves it); a file that gets read is written out in full.
  int flags = O_RDWR | O_CREAT | O_CLOEXEC | (fill ? 0 : O_TRUNC);
  Fd fd(::open(path.c_str(), flags, 0644));
  if (!fd) {
    const int err = errno;
    run_fail_errno(err, "cannot create {}: {}; check that its directory is writable", path,
                   std::strerror(err));
  }
  // A preallocation that fails (no space, a size the filesystem cannot hold) is no error, as in
  // fio: the writing out below, or a write job's own writes, meet that error themselves.
  if (use_fallocate) (void)::posix_fallocate(fd.get(), 0, static_cast<off_t>(size));
  if (fill) {
    write_out(fd.get(), path, have, size);
    if (::fsync(fd.get()) != 0) {
      const int err = errno;
      run_fail_errno(err, "fsync of {} failed: {}", path, std::strerror(err));
    }
  }
}

// fio's default fadvise_hint=1: the kernel is told how the job walks its files, which sets the
// read-ahead of buffered I/O (none for a random job, twice the usual for a sequential one).
int access_advice(const Job& job) {
  return is_random(job.pattern) ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
}

}  // namespace

uint64_t block_device_size(int fd, const std::string& path) {
  uint64_t bytes = 0;
  if (::ioctl(fd, BLKGETSIZE64, &bytes) != 0) {
    const int err = errno;
    run_fail_errno(err, "cannot get the size of block device {}: {}", path, std::strerror(err));
  }
  return bytes;
}

namespace {

void check_directory(const Job& job, const std::string& directory) {
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0) {
    const int err = errno;
    run_fail_errno(err, "job {}: directory={}: {}", job.name, directory, std::strerror(err));
  }
  if (!S_ISDIR(st.st_mode)) {
    run_fail_errno(ENOTDIR, "job {}: directory={} is not a directory", job.name, directory);
  }
}

}  // namespace

void check_directories(const std::vector<Job>& jobs) {
  for (const Job& job : jobs) {
    for (const std::string& directory : job.directories) check_directory(job, directory);
  }
}

std::vector<std::optional<RunError>> lay_out_files(const std::vector<Job>& jobs) {
  struct Need {
    uint64_t size = 0;
    bool fill = false;
    bool fallocate = false;
  };
  std::vector<std::optional<RunError>> failures(jobs.size());
  std::map<std::string, Need> needs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    for (const std::string& path : job.files) {
      if (is_device(path)) continue;
      Need& need = needs[path];
      uint64_t size = job.file_size;
      if (size == 0) {
        if (existing_size(path) == 0 && !failures[i]) {
          failures[i] =
              RunError(fmt::format("file {} is empty or does not exist and no size was given; "
                                   "set size=",
                                   path));
        }
        continue;
      }
      need.size = std::max(need.size, size);
      need.fill = need.fill || reads(job.pattern);
      need.fallocate = need.fallocate || job.fallocate;
    }
  }
  std::map<std::string, RunError> failed;  // by path
  for (const auto& [path, need] : needs) {
    if (need.size == 0) continue;
    try {
      lay_out(path, need.size, need.fill, need.fallocate);
    } catch (const RunError& e) {
      failed.emplace(path, e);
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    for (const std::string& path : jobs[i].files) {
      auto it = failed.find(path);
      if (it != failed.end() && !failures[i]) failures[i] = it->second;
    }
  }
  return failures;
}

std::vector<OpenFile> open_job_files(const Job& job) {
  std::vector<OpenFile> files;
  int flags = (writes(job.pattern) ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  if (job.direct) flags |= O_DIRECT;
  for (const std::string& path : job.files) {
    OpenFile file;
    file.fd.reset(::open(path.c_str(), flags));
    if (!file.fd) {
      int err = errno;
      if (err == EINVAL && job.direct) {
        run_fail_errno(
            err,
            "cannot open {} with O_DIRECT (direct=1): the filesystem does not support "
            "direct I/O (tmpfs does not); put the file on a disk filesystem or use direct=0",
            path);
      }
      run_fail_errno(err, "cannot open {}: {}", path, std::strerror(err));
    }
    struct stat st {};
    ::fstat(file.fd.get(), &st);
    file.block_device = S_ISBLK(st.st_mode);
    uint64_t real = file.block_device ? block_device_size(file.fd.get(), path)
                                      : static_cast<uint64_t>(st.st_size);
    // Writes may extend a regular file up to the job's size; a device has the size it has.
    file.size = job.file_size == 0  ? real
                : file.block_device ? std::min(job.file_size, real)
                                    : job.file_size;
    if (file.size == 0) run_fail("job {}: {} is empty; give a size", job.name, path);
    if (job.invalidate) ::posix_fadvise(file.fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    // As fio, not for character devices, and a hint the kernel refuses is no error.
    if (S_ISREG(st.st_mode) || file.block_device) {
      (void)::posix_fadvise(file.fd.get(), 0, static_cast<off_t>(file.size), access_advice(job));
    }
    files.push_back(std::move(file));
  }
  if (files.empty()) run_fail("job {}: no files to do I/O on; set filename or directory", job.name);
  return files;
}

}  // namespace kdio
