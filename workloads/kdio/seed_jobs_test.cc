// Every job file in workloads/jobs/ parses, documents the variables it needs, and describes
// the workload of its seed report.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "kdio/jobfile.h"

namespace kdio {
namespace {

const std::filesystem::path kJobs = std::filesystem::path(KBISECT_SOURCE_DIR) / "workloads/jobs";

const Environment kEnv{{"SIZE", "16m"}, {"RUNTIME", "5"}, {"BS", "64k"}, {"THREADS", "4"}};

// The NAME of every ${NAME} in `text`.
std::vector<std::string> referenced_variables(const std::string& text) {
  std::vector<std::string> names;
  for (size_t start = text.find("${"); start != std::string::npos;
       start = text.find("${", start + 2)) {
    names.push_back(text.substr(start + 2, text.find('}', start) - start - 2));
  }
  return names;
}

JobFile parse_seed(const std::string& name) {
  return parse_job_files({(kJobs / name).string()}, kEnv);
}

TEST(SeedJobs, EveryFileParsesAndListsItsVariablesInItsHeader) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kJobs)) {
    if (entry.path().extension() != ".fio") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(parse_job_files({entry.path().string()}, kEnv));
    const std::string text = read_file_from_disk(entry.path().string());
    std::string header;
    for (size_t pos = 0; pos < text.size() && text[pos] == ';';) {
      const size_t end = std::min(text.find('\n', pos), text.size());
      header.append(text, pos, end - pos).push_back('\n');
      pos = end + 1;
    }
    for (const std::string& name : referenced_variables(text)) {
      EXPECT_NE(header.find(";   " + name + " "), std::string::npos)
          << name << " is not documented in the header";
    }
  }
  EXPECT_EQ(files, 7);
}

TEST(SeedJobs, UnsetVariableNamesTheLine) {
  const std::filesystem::path job = kJobs / "demo-randread.fio";
  std::ifstream in(job);
  int line = 0;
  for (std::string text; std::getline(in, text);) {
    ++line;
    if (text == "runtime=${RUNTIME}") break;
  }
  try {
    parse_job_files({job.string()}, {{"SIZE", "1m"}});
    FAIL();
  } catch (const JobError& e) {
    EXPECT_EQ(std::string(e.what()),
              job.string() + ":" + std::to_string(line) +
                  ": environment variable 'RUNTIME' is not set; set it (the header of the job "
                  "file lists the variables it needs)");
  }
}

TEST(SeedJobs, Seed000HasEightReadersAndTwoWritersOnOneFile) {
  for (const auto& [name, engine, direct, depth] :
       {std::tuple{"seed000-psync-direct.fio", Engine::kPsync, true, 1},
        std::tuple{"seed000-libaio-direct.fio", Engine::kLibaio, true, 64},
        std::tuple{"seed000-psync-buffered.fio", Engine::kPsync, false, 1}}) {
    SCOPED_TRACE(name);
    const JobFile file = parse_seed(name);
    ASSERT_EQ(file.jobs.size(), 10u);
    std::set<std::string> files;
    for (size_t i = 0; i < file.jobs.size(); ++i) {
      const Job& job = file.jobs[i];
      EXPECT_EQ(job.name, i < 8 ? "reader" : "writer");
      EXPECT_EQ(job.pattern, i < 8 ? Pattern::kRandRead : Pattern::kRandWrite);
      EXPECT_EQ(job.engine, engine);
      EXPECT_EQ(job.direct, direct);
      EXPECT_EQ(job.iodepth, depth);
      EXPECT_EQ(job.block_size[0].min, 4096u);
      EXPECT_EQ(job.file_size, 16u << 20);
      EXPECT_EQ(job.runtime_ns, 5'000'000'000u);
      EXPECT_FALSE(job.fallocate);
      EXPECT_TRUE(job.use_threads && job.group_reporting);
      EXPECT_EQ(job.group_id, 0);
      files.insert(job.files.begin(), job.files.end());
    }
    EXPECT_EQ(files, std::set<std::string>{"testfile"});
    EXPECT_EQ(file.warnings.size(), engine == Engine::kPsync ? 1u : 0u);
  }
}

TEST(SeedJobs, Seed001RandrwEightJobsOwnFiles) {
  const JobFile file = parse_seed("seed001-randrw.fio");
  ASSERT_EQ(file.jobs.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const Job& job = file.jobs[i];
    EXPECT_EQ(job.pattern, Pattern::kRandReadWrite);
    EXPECT_EQ(job.rwmix_read_percent, 50);
    EXPECT_TRUE(job.direct);
    EXPECT_EQ(job.block_size[0].min, 65536u);
    EXPECT_EQ(job.block_size[1].min, 65536u);
    EXPECT_EQ(job.files, std::vector<std::string>{"randrw." + std::to_string(i) + ".0"});
  }
  EXPECT_TRUE(file.warnings.empty());
}

TEST(SeedJobs, Seed002OneThrottledOneFreeFsyncingAppender) {
  const JobFile file = parse_seed("seed002-fsync-throttle.fio");
  ASSERT_EQ(file.jobs.size(), 2u);
  for (const Job& job : file.jobs) {
    EXPECT_EQ(job.engine, Engine::kSync);
    EXPECT_EQ(job.pattern, Pattern::kWrite);
    EXPECT_FALSE(job.direct);
    EXPECT_EQ(job.block_size[1].min, 1u << 20);
    EXPECT_EQ(job.fsync_every, 1);
    EXPECT_FALSE(job.fallocate);
    EXPECT_TRUE(job.sync_lat_log);
  }
  EXPECT_EQ(file.jobs[0].cgroup_io_max, "wbps=1048576");
  EXPECT_EQ(file.jobs[1].cgroup_io_max, "");
  EXPECT_EQ(file.jobs[0].files, std::vector<std::string>{"throttled.0.0"});
  EXPECT_EQ(file.jobs[1].files, std::vector<std::string>{"unthrottled.0.0"});
}

TEST(SeedJobs, Seed003ReadsThenWritesAFixedAmountSplitOverTheThreads) {
  const JobFile file = parse_seed("seed003-xfs-threads.fio");
  ASSERT_EQ(file.jobs.size(), 8u);
  for (size_t i = 0; i < file.jobs.size(); ++i) {
    const Job& job = file.jobs[i];
    const bool read = i < 4;
    EXPECT_EQ(job.name, read ? "read" : "write");
    EXPECT_EQ(job.pattern, read ? Pattern::kRandRead : Pattern::kRandWrite);
    EXPECT_EQ(job.group_id, read ? 0 : 1);
    EXPECT_EQ(job.stonewall, i == 4);
    EXPECT_EQ(job.file_size, 16u << 20);
    EXPECT_EQ(job.io_size, 4u << 20);  // 16m over 4 threads
    EXPECT_EQ(job.block_size[read ? 0 : 1].min, 4096u);
    EXPECT_TRUE(job.direct && job.use_threads && job.norandommap && job.group_reporting);
    EXPECT_EQ(job.files, std::vector<std::string>{"pages"});
  }
}

TEST(SeedJobs, DemoIsFourTimeBasedDirectRandomReaders) {
  const JobFile file = parse_seed("demo-randread.fio");
  ASSERT_EQ(file.jobs.size(), 4u);
  for (const Job& job : file.jobs) {
    EXPECT_EQ(job.name, "randread");
    EXPECT_EQ(job.engine, Engine::kPsync);
    EXPECT_EQ(job.pattern, Pattern::kRandRead);
    EXPECT_TRUE(job.direct && job.time_based);
    EXPECT_EQ(job.runtime_ns, 5'000'000'000u);
    EXPECT_EQ(job.files, std::vector<std::string>{"demo-randread.dat"});
  }
}

}  // namespace
}  // namespace kdio
