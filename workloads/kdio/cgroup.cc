#include "cgroup.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "run_error.h"

namespace kdio {
namespace {

void write_file(const std::string& path, const std::string& text, const char* advice) {
  std::ofstream out(path);
  out << text;
  out.flush();
  if (!out) run_fail("cannot write '{}' to {}: {}; {}", text, path, std::strerror(errno), advice);
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Enables the io (and memory) controllers on every level from the mount down to the group's
// parent.
void enable_io(const std::string& mount, const std::string& group) {
  std::string controllers = read_line(mount + "/cgroup.controllers");
  std::istringstream words(controllers);
  bool available = false;
  bool memory = false;
  for (std::string w; words >> w;) {
    available = available || w == "io";
    memory = memory || w == "memory";
  }
  if (!available) {
    run_fail(
        "cgroup_io_max: the io controller is not available in the cgroup v2 hierarchy at "
        "{} (controllers: '{}'); it may be bound to cgroup v1 blkio; boot with "
        "cgroup_no_v1=all or systemd.unified_cgroup_hierarchy=1",
        mount, controllers);
  }
  // Buffered writes are charged to a cgroup at writeback only when the memory controller is
  // on as well (cgroup writeback); without it io.max would not throttle them.
  std::string enable = memory ? "+memory +io" : "+io";
  std::string dir = mount;
  size_t pos = 0;
  for (;;) {
    size_t slash = group.find('/', pos);
    if (slash == std::string::npos) break;
    write_file(dir + "/cgroup.subtree_control", enable, "is the io controller enabled above?");
    dir = mount + "/" + group.substr(0, slash);
    pos = slash + 1;
  }
  write_file(dir + "/cgroup.subtree_control", enable,
             "a cgroup with processes cannot delegate controllers; use a group under an empty one");
}

void make_dirs(const std::string& mount, const std::string& group) {
  size_t pos = 0;
  for (;;) {
    size_t slash = group.find('/', pos);
    std::string dir = mount + "/" + group.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      run_fail("cannot create cgroup {}: {}", dir, std::strerror(errno));
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}

}  // namespace

std::string cgroup2_mount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string fallback;
  for (std::string line; std::getline(in, line);) {
    size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount_point;
    fields >> id >> parent >> dev >> root >> mount_point;
    if (mount_point == "/sys/fs/cgroup") return mount_point;
    if (fallback.empty()) fallback = mount_point;
  }
  if (fallback.empty()) {
    run_fail(
        "cgroup v2 is not mounted; mount it with 'mount -t cgroup2 none /sys/fs/cgroup' "
        "or remove cgroup/cgroup_io_max from the job");
  }
  return fallback;
}

std::string job_cgroup(const Job& job, const std::string& auto_name) {
  if (!job.cgroup.empty()) return job.cgroup;
  if (!job.cgroup_io_max.empty()) return auto_name;
  return "";
}

std::string whole_disk_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    run_fail("cgroup_io_max: cannot stat {}: {}", path, std::strerror(errno));
  }
  dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  std::string sys = fmt::format("/sys/dev/block/{}:{}", major(dev), minor(dev));
  if (::access(sys.c_str(), F_OK) != 0) {
    run_fail("cgroup_io_max: {} is not on a block device ({}:{} has no {}); io.max needs one", path,
             major(dev), minor(dev), sys);
  }
  if (::access((sys + "/partition").c_str(), F_OK) == 0) {
    std::string disk = read_line(sys + "/../dev");
    if (disk.empty()) run_fail("cgroup_io_max: cannot find the disk of partition {}", sys);
    return disk;
  }
  return fmt::format("{}:{}", major(dev), minor(dev));
}

void enter_job_cgroup(const Job& job, const std::string& group) {
  std::string mount = cgroup2_mount();
  make_dirs(mount, group);
  std::string dir = mount + "/" + group;
  if (!job.cgroup_io_max.empty()) {
    if (job.files.empty()) run_fail("cgroup_io_max: job {} has no file", job.name);
    enable_io(mount, group);
    write_file(dir + "/io.max", whole_disk_of(job.files[0]) + " " + job.cgroup_io_max,
               "check the io.max syntax (e.g. wbps=1048576)");
  }
  write_file(dir + "/cgroup.procs", std::to_string(::getpid()),
             "a cgroup that delegates controllers cannot hold processes");
}

void remove_cgroup(const std::string& group) {
  try {
    ::rmdir((cgroup2_mount() + "/" + group).c_str());
  } catch (const RunError&) {
  }
}

}  // namespace kdio
