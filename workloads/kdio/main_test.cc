// The kdio binary end to end: static and small, pure JSON on stdout, FILE:LINE errors, and a
// report marked interrupted after SIGINT/SIGTERM.
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class KdioBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::path(KDIO_TEST_DIR) / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs kdio with args; after signal_after_ms (if > 0) sends sig to it.
  Outcome run(std::vector<std::string> args, int signal_after_ms = 0, int sig = SIGINT) {
    args.insert(args.begin(), KDIO_BINARY);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, KDIO_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rc, 0);
    if (signal_after_ms > 0) {
      ::usleep(static_cast<useconds_t>(signal_after_ms) * 1000);
      ::kill(pid, sig);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    Outcome o;
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
  }

  std::vector<std::string> randread_job(const std::string& extra_name = "t") {
    return {"--output-format=json",
            "--name=" + extra_name,
            "--filename=" + (dir_ / "data").string(),
            "--size=1m",
            "--bs=4k",
            "--rw=randread",
            "--direct=1",
            "--ioengine=psync"};
  }

  fs::path dir_;
};

// Only where kdio is built for the guest: the Asan build links it dynamically (engine.cmake).
#if KDIO_STATIC
TEST_F(KdioBinary, IsStaticAndSmall) {
  std::ifstream in(KDIO_BINARY, std::ios::binary);
  Elf64_Ehdr eh{};
  in.read(reinterpret_cast<char*>(&eh), sizeof(eh));
  ASSERT_EQ(std::string(reinterpret_cast<char*>(eh.e_ident), 4), "\177ELF");
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + static_cast<uint64_t>(i) * eh.e_phentsize));
    in.read(reinterpret_cast<char*>(&ph), sizeof(ph));
    EXPECT_NE(ph.p_type, static_cast<uint32_t>(PT_INTERP)) << "kdio must not need a loader";
    EXPECT_NE(ph.p_type, static_cast<uint32_t>(PT_DYNAMIC)) << "kdio must not load libraries";
  }
  EXPECT_LT(fs::file_size(KDIO_BINARY), 4u << 20);
}
#endif

TEST_F(KdioBinary, CommandLineJobGivesPureJson) {
  Outcome o = run(randread_job());
  ASSERT_EQ(o.status, 0) << o.err;
  auto root = nlohmann::json::parse(o.out);  // throws if anything else is on stdout
  EXPECT_EQ(root["jobs"][0]["read"]["total_ios"], 256);
  EXPECT_EQ(root["jobs"][0]["read"]["io_bytes"], 1 << 20);
  EXPECT_EQ(root["kdio"]["interrupted"], false);
  EXPECT_EQ(root["kdio"]["jobs"][0]["options"]["rw"], "randread");
}

TEST_F(KdioBinary, JobFileWithGroupReportingAndOutputFile) {
  fs::path job = dir_ / "two.fio";
  std::ofstream(job) << "[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=1m\niodepth=4\n"
                     << "group_reporting\n\n[r]\nrw=randread\nnumjobs=2\n"
                     << "filename=" << (dir_ / "data").string() << "\n";
  fs::path report = dir_ / "report.json";
  Outcome o = run({"--output-format=json+", "--output=" + report.string(), job.string()});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "");
  auto root = nlohmann::json::parse(slurp(report));
  ASSERT_EQ(root["jobs"].size(), 1u);
  EXPECT_EQ(root["jobs"][0]["read"]["total_ios"], 512);
  EXPECT_EQ(root["jobs"][0]["read"]["slat_ns"]["N"], 512);
  EXPECT_TRUE(root["jobs"][0]["read"]["clat_ns"].contains("bins"));
}

// A report file that cannot be written is an error before the jobs run, not after them with
// their results lost.
TEST_F(KdioBinary, AnUnwritableReportFileFailsBeforeTheJobs) {
  std::vector<std::string> args = randread_job();
  args.push_back("--output=" + (dir_ / "no/such/dir/report.json").string());
  Outcome o = run(args);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("report.json for the report: No such file or directory"), std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "data")) << "the job ran";
  args.back() = "--output=";
  EXPECT_NE(run(args).err.find("--output needs a file name"), std::string::npos);
}

// As fio: a job whose file cannot be laid out is reported with its errno, the other jobs run
// and the report is written; kdio exits 1 (kdio ended with no report at all).
TEST_F(KdioBinary, ALayoutFailureStillWritesTheReport) {
  std::ofstream(dir_ / "plain") << "a file, not a directory";
  fs::path job = dir_ / "two.fio";
  std::ofstream(job) << "[global]\nrw=write\nbs=4k\nsize=1m\ndirect=1\n"
                     << "[bad]\nfilename=" << (dir_ / "plain" / "data").string() << "\n"
                     << "[good]\nfilename=" << (dir_ / "data").string() << "\n";
  Outcome o = run({"--output-format=json", job.string()});
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("kdio: job bad: cannot create"), std::string::npos) << o.err;
  auto root = nlohmann::json::parse(o.out);
  ASSERT_EQ(root["jobs"].size(), 2u);
  EXPECT_EQ(root["jobs"][0]["error"], ENOTDIR);
  EXPECT_EQ(root["jobs"][0]["write"]["total_ios"], 0);
  EXPECT_EQ(root["jobs"][1]["error"], 0);
  EXPECT_EQ(root["jobs"][1]["write"]["total_ios"], 256);
}

TEST_F(KdioBinary, BadJobFileGivesFileAndLine) {
  fs::path job = dir_ / "bad.fio";
  std::ofstream(job) << "[j]\nrw=randread\nbogus_option=1\n";
  Outcome o = run({job.string()});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find(job.string() + ":3:"), std::string::npos) << o.err;
}

TEST_F(KdioBinary, SigintStopsAndMarksTheReport) {
  std::vector<std::string> args = randread_job();
  args.push_back("--time_based");
  args.push_back("--runtime=60");
  Outcome o = run(args, 1500, SIGINT);
  EXPECT_NE(o.status, 0);
  auto root = nlohmann::json::parse(o.out);
  EXPECT_EQ(root["kdio"]["interrupted"], true);
  EXPECT_GT(root["jobs"][0]["read"]["total_ios"].get<int>(), 0);
  EXPECT_LT(root["jobs"][0]["read"]["runtime"].get<int>(), 60000);
}

TEST_F(KdioBinary, SigtermReachesForkedJobs) {
  std::vector<std::string> args = randread_job();
  args.push_back("--time_based");
  args.push_back("--runtime=60");
  args.push_back("--numjobs=2");
  Outcome o = run(args, 1500, SIGTERM);
  EXPECT_NE(o.status, 0);
  auto root = nlohmann::json::parse(o.out);
  EXPECT_EQ(root["kdio"]["interrupted"], true);
  ASSERT_EQ(root["jobs"].size(), 2u);
  for (const auto& job : root["jobs"]) EXPECT_GT(job["read"]["total_ios"].get<int>(), 0);
}

}  // namespace
