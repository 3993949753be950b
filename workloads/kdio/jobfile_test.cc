#include "kdio/jobfile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kdio {
namespace {

std::string no_file(const std::string& path) {
  throw JobError("cannot open '" + path + "'");
}

JobFile parse(std::string_view text, const Environment& env = {}) {
  return parse_job_text(text, "t.fio", env, no_file);
}

std::string error_of(std::string_view text, const Environment& env = {}) {
  try {
    parse(text, env);
  } catch (const JobError& e) {
    return e.what();
  }
  return "no error";
}

std::string cli_error_of(const std::vector<std::string>& args) {
  try {
    parse_command_line_jobs(args);
  } catch (const JobError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JobFile, DefaultsOfOneJob) {
  const JobFile file = parse("[j]\nsize=1m\n");
  ASSERT_EQ(file.jobs.size(), 1u);
  const Job& job = file.jobs[0];
  EXPECT_EQ(job.name, "j");
  EXPECT_EQ(job.engine, Engine::kPsync);
  EXPECT_EQ(job.pattern, Pattern::kRead);
  EXPECT_FALSE(job.direct);
  EXPECT_EQ(job.block_size[0].min, 4096u);
  EXPECT_EQ(job.block_size[1].max, 4096u);
  EXPECT_EQ(job.files, std::vector<std::string>{"j.0.0"});
  EXPECT_EQ(job.file_size, 1u << 20);
  EXPECT_EQ(job.iodepth, 1);
  EXPECT_EQ(job.iodepth_batch_submit, 1);
  EXPECT_EQ(job.iodepth_batch_complete_min, 1);
  EXPECT_EQ(job.iodepth_batch_complete_max, 1);
  EXPECT_EQ(job.rwmix_read_percent, 50);
  EXPECT_TRUE(job.rand_repeat);
  EXPECT_EQ(job.rand_seed, 0x89u);
  EXPECT_TRUE(file.warnings.empty());
}

// fio 3.33 reads `io_size = 64k` as 64 bytes and `runtime = 1m` as 1 s: the unit after a blank
// after '=' is dropped without a word. A whole number reads the same either way.
TEST(JobFile, AUnitAfterABlankAfterTheEqualsSignIsRefused) {
  EXPECT_EQ(error_of("[j]\nsize=1m\nio_size = 64k\n"),
            "t.fio:3: option 'io_size': '64k' follows a space after '=', after which fio reads "
            "only the number and drops the unit; remove that blank");
  EXPECT_EQ(error_of("[j]\nsize=1m\nbs=\t8k\n"),
            "t.fio:3: option 'bs': '8k' follows a tab after '=', after which fio reads only the "
            "number and drops the unit; remove that blank");
  EXPECT_EQ(error_of("[j]\nsize=1m\ntime_based\nruntime= 1m\n"),
            "t.fio:4: option 'runtime': '1m' follows a space after '=', after which fio reads "
            "only the number and drops the unit; remove that blank");
  const JobFile file = parse("[j]\nsize =1m\nruntime = 2\nloops = 3\ndescription = 4k reads\n");
  EXPECT_EQ(file.jobs.at(0).file_size, 1u << 20);
  EXPECT_EQ(file.jobs.at(0).runtime_ns, 2'000'000'000u);
  EXPECT_EQ(file.jobs.at(0).loops, 3);
}

TEST(JobFile, GlobalAppliesOnlyToTheJobsBelowIt) {
  const JobFile file = parse(
      "[a]\nsize=1m\n"
      "[global]\nbs=8k\nsize=2m\n"
      "[b]\n"
      "[global]\nrw=randread\n"
      "[c]\nbs=16k\n");
  ASSERT_EQ(file.jobs.size(), 3u);
  EXPECT_EQ(file.jobs[0].block_size[0].min, 4096u);
  EXPECT_EQ(file.jobs[0].file_size, 1u << 20);
  EXPECT_EQ(file.jobs[1].block_size[0].min, 8192u);
  EXPECT_EQ(file.jobs[1].pattern, Pattern::kRead);
  EXPECT_EQ(file.jobs[2].pattern, Pattern::kRandRead);  // the second [global] adds to the first
  EXPECT_EQ(file.jobs[2].file_size, 2u << 20);
  EXPECT_EQ(file.jobs[2].block_size[0].min, 16384u);
  EXPECT_EQ(file.jobs[2].given_options.at("size"), "2m");
  EXPECT_EQ(file.jobs[2].given_options.at("bs"), "16k");
  EXPECT_EQ(file.jobs[2].given_options.at("rw"), "randread");
}

TEST(JobFile, KbBaseAppliesToItsWholeSectionButNotToInheritedValues) {
  const JobFile file = parse("[global]\nsize=1m\n[j]\nbs=4k\nkb_base=1000\n");
  EXPECT_EQ(file.jobs[0].block_size[0].min, 4000u);
  EXPECT_EQ(file.jobs[0].file_size, 1u << 20);
}

TEST(JobFile, NameOptionRenamesTheJobButNotItsFiles) {
  const JobFile file = parse("[sec]\nname=pretty\nsize=1m\n");
  EXPECT_EQ(file.jobs[0].name, "pretty");
  EXPECT_EQ(file.jobs[0].files, std::vector<std::string>{"sec.0.0"});
}

TEST(JobFile, NumjobsClonesGetTheirOwnFiles) {
  const JobFile file = parse("[j]\nnumjobs=3\nnrfiles=2\nsize=4m\ndirectory=/data/\n");
  ASSERT_EQ(file.jobs.size(), 3u);
  for (int clone = 0; clone < 3; ++clone) {
    const Job& job = file.jobs[clone];
    EXPECT_EQ(job.clone_index, clone);
    EXPECT_EQ(job.name, "j");
    EXPECT_EQ(job.files, (std::vector<std::string>{"/data/j." + std::to_string(clone) + ".0",
                                                   "/data/j." + std::to_string(clone) + ".1"}));
    EXPECT_EQ(job.file_size, 2u << 20);  // size is per job, split over its files
  }
}

TEST(JobFile, NumjobsClonesShareAGivenFilename) {
  const JobFile file = parse("[j]\nnumjobs=2\nfilename=/dev/nvme0n1\n");
  ASSERT_EQ(file.jobs.size(), 2u);
  EXPECT_EQ(file.jobs[0].files, std::vector<std::string>{"/dev/nvme0n1"});
  EXPECT_EQ(file.jobs[1].files, std::vector<std::string>{"/dev/nvme0n1"});
  EXPECT_EQ(file.jobs[0].file_size, 0u);  // the device's own size
}

TEST(JobFile, FilenameListsAndDirectory) {
  const JobFile file = parse("[j]\nfilename=a:b\ndirectory=/mnt\nsize=2m\n");
  EXPECT_EQ(file.jobs[0].files, (std::vector<std::string>{"/mnt/a", "/mnt/b"}));
  // for the check that it exists, as fio's
  EXPECT_EQ(file.jobs[0].directories, std::vector<std::string>{"/mnt"});
  EXPECT_EQ(file.jobs[0].file_size, 1u << 20);
  EXPECT_EQ(parse("[j]\nfilename=x\nsize=1m\nfilesize=64k\n").jobs[0].file_size, 65536u);
}

// Where fio 3.33 lays the files out with directory=a:b: clone N in directory N modulo their
// number, and filename= files, which the clones share, in the first one. Every clone keeps
// every directory, as fio checks that each exists.
TEST(JobFile, ClonesTakeTurnsInSeveralDirectories) {
  const JobFile file = parse("[j]\nnumjobs=3\nsize=1m\ndirectory=/a:/b\\:c\n");
  ASSERT_EQ(file.jobs.size(), 3u);
  EXPECT_EQ(file.jobs[0].files, std::vector<std::string>{"/a/j.0.0"});
  EXPECT_EQ(file.jobs[1].files, std::vector<std::string>{"/b:c/j.1.0"});
  EXPECT_EQ(file.jobs[2].files, std::vector<std::string>{"/a/j.2.0"});
  EXPECT_EQ(file.jobs[2].directories, (std::vector<std::string>{"/a", "/b:c"}));
  const JobFile shared = parse("[j]\nnumjobs=2\nfilename=f\ndirectory=/a:/b\n");
  EXPECT_EQ(shared.jobs[1].files, std::vector<std::string>{"/a/f"});
}

// As fio: with filesize=, size= stays the amount of I/O (it did four times size here).
TEST(JobFile, SizeWithFilesizeIsTheAmountOfIo) {
  const Job job = parse("[j]\nrw=write\nsize=256k\nfilesize=1m\n").jobs[0];
  EXPECT_EQ(job.file_size, 1u << 20);
  EXPECT_EQ(job.io_size, 256u << 10);
  EXPECT_EQ(parse("[j]\nsize=256k\nfilesize=1m\nio_size=512k\n").jobs[0].io_size, 512u << 10);
  EXPECT_EQ(parse("[j]\nfilesize=1m\n").jobs[0].io_size, 0u);  // the files' bytes
}

// fio cuts size to the bytes of the job's files: 128k over two files of 32k reads 64k there.
// io_size is not cut.
TEST(JobFile, SizeWithFilesizeIsAtMostTheFiles) {
  EXPECT_EQ(parse("[j]\nnrfiles=2\nfilesize=32k\nsize=128k\n").jobs[0].io_size, 64u << 10);
  EXPECT_EQ(parse("[j]\nfilesize=32k\nsize=128k\n").jobs[0].io_size, 32u << 10);
  EXPECT_EQ(parse("[j]\nfilename=a:b:c\nfilesize=32k\nsize=128k\n").jobs[0].io_size, 96u << 10);
  EXPECT_EQ(parse("[j]\nnrfiles=2\nfilesize=32k\nsize=40k\n").jobs[0].io_size, 40u << 10);
  EXPECT_EQ(parse("[j]\nnrfiles=2\nfilesize=32k\nsize=128k\nio_size=128k\n").jobs[0].io_size,
            128u << 10);
}

TEST(JobFile, GroupsFollowStonewallAndNewGroup) {
  const JobFile file = parse(
      "[global]\nsize=1m\n"
      "[a]\nstonewall\n"  // the first job never opens a new group
      "[b]\nnumjobs=2\n"
      "[c]\nstonewall\nnumjobs=2\n"
      "[d]\nnew_group\n"
      "[e]\n");
  ASSERT_EQ(file.jobs.size(), 7u);
  const std::vector<int> groups{0, 0, 0, 1, 1, 2, 2};
  const std::vector<bool> stonewalls{true, false, false, true, false, false, false};
  for (size_t i = 0; i < file.jobs.size(); ++i) {
    EXPECT_EQ(file.jobs[i].group_id, groups[i]) << i;
    EXPECT_EQ(file.jobs[i].stonewall, stonewalls[i]) << i;
  }
}

TEST(JobFile, IodepthFixupsAsFio) {
  const JobFile file = parse(
      "[global]\nsize=1m\nioengine=libaio\ndirect=1\n"
      "[a]\niodepth=16\niodepth_batch=0\n"
      "[b]\niodepth=16\niodepth_batch=64\niodepth_batch_complete_min=8\n"
      "[c]\niodepth=16\niodepth_batch_complete_min=2\niodepth_batch_complete_max=12\n");
  EXPECT_EQ(file.jobs[0].iodepth_batch_submit, 16);
  EXPECT_EQ(file.jobs[0].iodepth_batch_complete_max, 1);
  EXPECT_EQ(file.jobs[1].iodepth_batch_submit, 16);
  EXPECT_EQ(file.jobs[1].iodepth_batch_complete_max, 8);
  EXPECT_EQ(file.jobs[2].iodepth_batch_complete_min, 2);
  EXPECT_EQ(file.jobs[2].iodepth_batch_complete_max, 12);
}

TEST(JobFile, RandseedImpliesRepeatable) {
  const Job job = parse("[j]\nsize=1m\nrandrepeat=0\nrandseed=42\n").jobs[0];
  EXPECT_TRUE(job.rand_repeat);
  EXPECT_EQ(job.rand_seed, 42u);
  EXPECT_FALSE(parse("[j]\nsize=1m\nrandrepeat=0\n").jobs[0].rand_repeat);
}

TEST(JobFile, BsrangeWinsOverBs) {
  const Job job = parse("[j]\nsize=1m\nbsrange=4k-16k\nbs=8k\n").jobs[0];
  EXPECT_EQ(job.block_size[0].min, 4096u);
  EXPECT_EQ(job.block_size[0].max, 16384u);
}

TEST(JobFile, WarningsForWhatFioAcceptsButDoesNotDo) {
  JobFile file = parse("[j]\nsize=1m\nioengine=libaio\niodepth=8\n");
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_EQ(file.warnings[0],
            "t.fio:3: warning: ioengine=libaio without direct=1 does buffered I/O, which completes "
            "synchronously (as in fio)");
  EXPECT_EQ(file.jobs[0].iodepth, 8);
  file = parse("[j]\nsize=1m\ndirect=1\n\niodepth=16\n");
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_EQ(file.warnings[0],
            "t.fio:5: warning: iodepth=16 has no effect with a synchronous ioengine; running at "
            "depth 1 (fio ignores it too)");
  EXPECT_EQ(file.jobs[0].iodepth, 1);
  file = parse("[j]\nfilename=a:b\nnrfiles=3\n");
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_EQ(file.warnings[0],
            "t.fio:3: warning: nrfiles=3 but filename= lists 2 file(s); using "
            "the listed files (as fio does)");
}

TEST(JobFile, CombinationErrorsNameTheLine) {
  EXPECT_EQ(error_of("[j]\nsize=1m\ndirect=1\nbs=1000\n"),
            "t.fio:4: read block size 1000 is not a multiple of 512, which direct=1 (O_DIRECT) "
            "needs (note: with kb_base=1024, KiB means 1000 bytes in fio; write 4k for 4096)");
  // With kb_base=1000 it is the k that means 1000 bytes.
  EXPECT_EQ(error_of("[j]\nkb_base=1000\nsize=1m\ndirect=1\nbs=4k\n"),
            "t.fio:5: read block size 4000 is not a multiple of 512, which direct=1 (O_DIRECT) "
            "needs (note: with kb_base=1000, k means 1000 bytes; write 4KiB for 4096)");
  EXPECT_EQ(error_of("[global]\nbs=4k,1k\n[j]\nsize=1m\ndirect=1\nrw=randrw\nbsrange=,700-4k\n"),
            "t.fio:7: write block size 700 is not a multiple of 512, which direct=1 (O_DIRECT) "
            "needs");
  // Both ends of a range: a range from 4k up to 6100 bytes would do unaligned reads too.
  EXPECT_EQ(error_of("[j]\nsize=1m\ndirect=1\nbsrange=4k-6100\n"),
            "t.fio:4: read block size 6100 is not a multiple of 512, which direct=1 (O_DIRECT) "
            "needs");
  EXPECT_EQ(error_of("[j]\nsize=1m\ndirect=1\nbs=4k,100\n"), "no error");  // writes unused
  // kdio's limit of 1 GiB applies to the directions the job uses (fio runs bs=4k,2g rw=read);
  // the worker failed the job with "invalid block size" at run time, without the line.
  EXPECT_EQ(error_of("[j]\nsize=4g\nbs=2g\n"),
            "t.fio:3: read block size 2147483648 is above kdio's limit of 1g (1073741824 bytes)");
  EXPECT_EQ(error_of("[j]\nsize=4g\nrw=randrw\nbsrange=4k-1g,4k-1025m\n"),
            "t.fio:4: write block size 1074790400 is above kdio's limit of 1g (1073741824 bytes)");
  EXPECT_EQ(error_of("[j]\nsize=1m\nbs=4k,2g\n"), "no error");
  EXPECT_EQ(error_of("[j]\nsize=4g\nrw=write\nbs=1g,4k\n"), "no error");
  EXPECT_EQ(error_of("[j]\nsize=1m\nhipri\n"),
            "t.fio:3: option 'hipri' is only valid with ioengine=io_uring");
  EXPECT_EQ(error_of("[j]\nsize=1m\ntime_based\n"), "t.fio:3: time_based needs runtime= as well");
  EXPECT_EQ(error_of("[j]\nsize=1m\nrate=1m\nrate_iops=10\n"),
            "t.fio:4: rate and rate_iops are mutually exclusive");
  EXPECT_EQ(error_of("[j]\nrw=randread\n"),
            "t.fio:1: job 'j' needs size= (or filesize=) to create its files");
  EXPECT_EQ(error_of("[j]\nsize=1k\n"), "t.fio:2: size 1024 is smaller than the block size 4096");
  EXPECT_EQ(error_of("[j]\nsize=8k\nnrfiles=4\n"),
            "t.fio:2: each of the 4 file(s) would be 2048 bytes, smaller than the block size "
            "4096");
  EXPECT_EQ(error_of("[j]\nfilename=/dev/sda\ndirectory=/mnt\n"),
            "t.fio:2: filename '/dev/sda' is absolute, so directory=/mnt would not apply; drop one "
            "of them");
  EXPECT_EQ(error_of("[global]\nsize=1m\n"),
            "t.fio: no jobs defined; add a [job] section (or "
            "--name=)");
}

TEST(JobFile, LimitsOnJobsAndFiles) {
  EXPECT_EQ(error_of("[global]\nsize=1m\n[a]\nnumjobs=4000\n[b]\nnumjobs=97\n"),
            "t.fio:6: more than 4096 jobs in all (fio's limit too)");
  EXPECT_EQ(error_of("[global]\nsize=64m\nnrfiles=4096\n[a]\nnumjobs=17\n"),
            "t.fio:3: more than 65536 files in all; use fewer jobs or files");
}

TEST(JobFile, IoUringOptions) {
  const Job job =
      parse("[j]\nsize=1m\nioengine=io_uring\nhipri\nfixedbufs\nregisterfiles\nsqthread_poll=1\n")
          .jobs[0];
  EXPECT_TRUE(job.hipri && job.fixedbufs && job.registerfiles && job.sqthread_poll);
}

TEST(JobFile, EnvironmentVariables) {
  const Job job =
      parse("[j]\nsize=${SIZE}\nruntime=${RT}\ntime_based\n", {{"SIZE", "16m"}, {"RT", "3"}})
          .jobs[0];
  EXPECT_EQ(job.file_size, 16u << 20);
  EXPECT_EQ(job.runtime_ns, 3'000'000'000u);
  EXPECT_EQ(job.given_options.at("size"), "16m");
}

TEST(CommandLine, EachNameStartsAJobAndEarlierOptionsAreGlobal) {
  const JobFile file =
      parse_command_line_jobs({"--direct=1", "--size", "1m", "--name=a", "--rw=randread",
                               "--thread", "--name", "b", "--bs=8k", "--numjobs=2"});
  ASSERT_EQ(file.jobs.size(), 3u);
  EXPECT_EQ(file.jobs[0].name, "a");
  EXPECT_TRUE(file.jobs[0].direct);
  EXPECT_TRUE(file.jobs[0].use_threads);
  EXPECT_EQ(file.jobs[0].pattern, Pattern::kRandRead);
  EXPECT_EQ(file.jobs[0].files, std::vector<std::string>{"a.0.0"});
  EXPECT_EQ(file.jobs[1].name, "b");
  EXPECT_FALSE(file.jobs[1].use_threads);
  EXPECT_EQ(file.jobs[1].block_size[0].min, 8192u);
  EXPECT_EQ(file.jobs[2].files, std::vector<std::string>{"b.1.0"});
  EXPECT_EQ(file.jobs[1].given_options.at("name"), "b");
  EXPECT_EQ(file.jobs[1].given_options.at("size"), "1m");
}

TEST(CommandLine, Errors) {
  EXPECT_EQ(cli_error_of({"--name=j", "--bs=4q"}),
            "<command line>: --bs=4q: option 'bs': size '4q' has an unknown suffix 'q'; use k, m, "
            "g, t or p (optionally followed by b), or KiB, MiB, ...");
  EXPECT_EQ(cli_error_of({"--name=j", "--iodeph=4"}),
            "<command line>: --iodeph=4: unknown option 'iodeph'; did you mean 'iodepth'?");
  EXPECT_EQ(cli_error_of({"--name=j", "--size=1m", "--direct"}),
            "<command line>: --direct: option 'direct' needs a value: direct=VALUE");
  EXPECT_EQ(cli_error_of({"--name"}), "<command line>: --name: --name needs a job name");
  EXPECT_EQ(cli_error_of({"--size=1m"}),
            "<command line>: no jobs defined; add a [job] section (or --name=)");
  EXPECT_EQ(cli_error_of({"--name=j", "job.fio"}),
            "<command line>: job.fio: expected a job option like --rw=randread (job files are "
            "read separately)");
  EXPECT_EQ(cli_error_of({"--name=j", "--output-format=json"}),
            "<command line>: --output-format=json: unknown option 'output-format'");
  EXPECT_EQ(cli_error_of({"--name=j\xff"}),
            "<command line>: --name=j\xff: byte 0xFF is not UTF-8 text; kdio reads only UTF-8");
  EXPECT_EQ(cli_error_of({"--name=j", "--filename", "/mnt/\xfe"}),
            "<command line>: --filename /mnt/\xfe: byte 0xFE is not UTF-8 text; kdio reads only "
            "UTF-8");
  EXPECT_EQ(cli_error_of({"--name=j", "--rw=write"}),
            "<command line>: --name=j: job 'j' needs size= (or filesize=) to create its files");
}

class JobFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kdio_jobfile_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "inc");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::filesystem::path dir_;
};

// As fio 3.33 does: a job file's [global] holds for the jobs below it in that file only, so
// one file's filename= never reaches another's jobs.
TEST_F(JobFilesTest, GlobalsStayInTheirFileAndLaterFilesStartWithAStonewall) {
  write("inc/common.fio", "direct=1\n");
  const std::string first = write(
      "a.fio", "[global]\nsize=1m\nfilename=/dev/first\n[a1]\ninclude inc/common.fio\n[a2]\n");
  const std::string second = write("b.fio", "[b1]\nsize=2m\n[b2]\nsize=2m\n");
  const JobFile file = parse_job_files({first, second}, {});
  ASSERT_EQ(file.jobs.size(), 4u);
  EXPECT_TRUE(file.jobs[0].direct);
  EXPECT_FALSE(file.jobs[1].direct);
  EXPECT_EQ(file.jobs[1].file_size, 1u << 20);  // [global] of a.fio
  EXPECT_EQ(file.jobs[2].file_size, 2u << 20);
  EXPECT_EQ(file.jobs[1].files, std::vector<std::string>{"/dev/first"});
  EXPECT_EQ(file.jobs[2].files, std::vector<std::string>{"b1.0.0"});
  EXPECT_TRUE(file.jobs[2].stonewall);
  EXPECT_FALSE(file.jobs[3].stonewall);
  EXPECT_EQ(file.jobs[1].group_id, 0);
  EXPECT_EQ(file.jobs[2].group_id, 1);
}

TEST_F(JobFilesTest, MissingFileAndErrorsInIncludes) {
  try {
    parse_job_files({(dir_ / "none.fio").string()}, {});
    FAIL();
  } catch (const JobError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open '" + (dir_ / "none.fio").string() + "': No such file or directory");
  }
  write("inc/bad.fio", "\nbs=4q\n");
  const std::string top = write("top.fio", "[j]\ninclude inc/bad.fio\n");
  try {
    parse_job_files({top}, {});
    FAIL();
  } catch (const JobError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "inc/bad.fio").string() +
                                         ":2: option 'bs': size '4q' has an unknown suffix 'q'; "
                                         "use k, m, g, t or p (optionally followed by b), or "
                                         "KiB, MiB, ...");
  }
}

TEST(ProcessEnvironment, ReadsEnviron) {
  ::setenv("KDIO_JOBFILE_TEST_VAR", "v=1", 1);
  EXPECT_EQ(process_environment().at("KDIO_JOBFILE_TEST_VAR"), "v=1");
}

}  // namespace
}  // namespace kdio
