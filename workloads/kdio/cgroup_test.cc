#include "cgroup.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "run_error.h"

namespace kdio {
namespace {

bool have_cgroup2() {
  try {
    cgroup2_mount();
    return true;
  } catch (const RunError&) {
    return false;
  }
}

std::string own_cgroup() {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("0::")) return line.substr(3);
  }
  return "";
}

TEST(Cgroup, JobGroupNaming) {
  Job job;
  EXPECT_EQ(job_cgroup(job, "auto"), "");
  job.cgroup_io_max = "wbps=1048576";
  EXPECT_EQ(job_cgroup(job, "auto"), "auto");
  job.cgroup = "mine";
  EXPECT_EQ(job_cgroup(job, "auto"), "mine");
}

TEST(Cgroup, WholeDiskOfAFileIsItsDevice) {
  struct stat st {};
  ASSERT_EQ(::stat(KBISECT_SOURCE_DIR, &st), 0);
  std::string sys =
      "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  if (::access(sys.c_str(), F_OK) != 0) GTEST_SKIP() << "source tree is not on a block device";
  std::string disk = whole_disk_of(KBISECT_SOURCE_DIR);
  std::ifstream dev("/sys/dev/block/" + disk + "/dev");
  std::string line;
  std::getline(dev, line);
  EXPECT_EQ(line, disk);
  EXPECT_EQ(::access(("/sys/dev/block/" + disk + "/partition").c_str(), F_OK), -1)
      << disk << " is a partition; io.max needs the whole disk";
}

TEST(Cgroup, JoiningMovesTheProcess) {
  if (!have_cgroup2() || ::geteuid() != 0) GTEST_SKIP() << "needs root and cgroup v2";
  std::string group = "kdio-test-" + std::to_string(::getpid());
  Job job;
  job.cgroup = group;
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      enter_job_cgroup(job, group);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      ::_exit(2);
    }
    ::_exit(own_cgroup() == "/" + group ? 0 : 3);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  remove_cgroup(group);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Cgroup, IoMaxWithoutTheIoControllerIsAClearError) {
  if (!have_cgroup2() || ::geteuid() != 0) GTEST_SKIP() << "needs root and cgroup v2";
  std::ifstream in(cgroup2_mount() + "/cgroup.controllers");
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find("io") != std::string::npos) GTEST_SKIP() << "io controller present";
  std::string group = "kdio-test-io-" + std::to_string(::getpid());
  Job job;
  job.files = {KBISECT_SOURCE_DIR};
  job.cgroup_io_max = "wbps=1048576";
  try {
    enter_job_cgroup(job, group);
    FAIL() << "expected an error";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("io controller"), std::string::npos) << e.what();
  }
  remove_cgroup(group);
}

}  // namespace
}  // namespace kdio
