#include "vm/initramfs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "common/process.h"
#include "common/temp_dir.h"
#include "config/reserved_vars.h"
#include "vm/cpio.h"

namespace kbisect {
namespace {
namespace fs = std::filesystem;

// GNU cpio reads back what the writer made: the format is right, not just self-consistent.
TEST(Cpio, GnuCpioExtractsTheArchive) {
  TempDir dir;
  CpioWriter cpio;
  cpio.file("a/b/c.txt", "hello", 0640);
  cpio.file("a/odd", std::string(5, '\0'), 0755);
  cpio.symlink("a/link", "b/c.txt");
  write_file(dir.path() / "image.cpio", cpio.finish());
  fs::create_directory(dir.path() / "out");
  ProcessOptions options;
  options.working_directory = dir.path() / "out";
  run_checked({"cpio", "-id", "--quiet", "-F", (dir.path() / "image.cpio").string()}, options);
  EXPECT_EQ(read_file(dir.path() / "out/a/b/c.txt"), "hello");
  EXPECT_EQ(read_file(dir.path() / "out/a/link"), "hello");
  EXPECT_EQ(fs::file_size(dir.path() / "out/a/odd"), 5u);
  EXPECT_EQ(fs::status(dir.path() / "out/a/odd").permissions() & fs::perms::owner_exec,
            fs::perms::owner_exec);
}

TEST(Cpio, EqualInputsGiveEqualBytes) {
  auto build = [] {
    CpioWriter cpio;
    cpio.file("x/y", "data");
    return cpio.finish();
  };
  EXPECT_EQ(build(), build());
}

TEST(Cpio, DotsInsideANameAreLegal) {
  TempDir dir;
  CpioWriter cpio;
  cpio.file("jobs/seq..v2.fio", "x");
  cpio.file("jobs/..hidden", "y");
  write_file(dir.path() / "image.cpio", cpio.finish());
  fs::create_directory(dir.path() / "out");
  ProcessOptions options;
  options.working_directory = dir.path() / "out";
  run_checked({"cpio", "-id", "--quiet", "-F", (dir.path() / "image.cpio").string()}, options);
  EXPECT_EQ(read_file(dir.path() / "out/jobs/seq..v2.fio"), "x");
  EXPECT_EQ(read_file(dir.path() / "out/jobs/..hidden"), "y");
}

TEST(Cpio, RefusesPathsThatLeaveOrRenameTheRoot) {
  for (std::string_view path :
       {"", "/etc/passwd", "a/", "a//b", "..", "../a", "a/../b", "a/..", ".", "./a", "a/./b"}) {
    CpioWriter cpio;
    EXPECT_THROW(cpio.file(path, "x"), Error) << path;
  }
}

TEST(RunEnv, Ext4ExtendedOptionsJoinKbisectsInOneE) {
  // mke2fs keeps only the last -E: the scenario's must not drop lazy_itable_init=0.
  GuestRun run;
  run.filesystem = FilesystemKind::kExt4;
  run.mkfs_options = {"-b", "4096", "-E", "stride=4", "-Estripe_width=8"};
  EXPECT_NE(run_env(run).find("kbisect_mkfs() { mkfs.ext4 '-F' '-E' "
                              "'lazy_itable_init=0,lazy_journal_init=0,stride=4,stripe_width=8' "
                              "'-b' '4096' \"$@\"; }"),
            std::string::npos)
      << run_env(run);
}

TEST(RunEnv, ValuesAreQuotedForTheShell) {
  GuestRun run;
  run.filesystem = FilesystemKind::kXfs;
  run.mkfs_options = {"-L", "it's $(reboot)"};
  run.mount_options = "noatime,logbsize=256k";
  run.vars = {{"BS", "4k"}, {"EVIL", "'; reboot -f; '"}};
  std::string env = run_env(run);
  EXPECT_NE(env.find("export KBISECT_FS='xfs'\n"), std::string::npos);
  EXPECT_NE(env.find("kbisect_mkfs() { mkfs.xfs '-f' '-L' 'it'\\''s $(reboot)' \"$@\"; }"),
            std::string::npos);
  EXPECT_NE(env.find("export EVIL=''\\''; reboot -f; '\\'''"), std::string::npos);

  // The shell reads back exactly the values given.
  TempDir dir;
  write_file(dir.path() / "run.env",
             env + "printf '%s|%s|%s' \"$EVIL\" \"$BS\" \"$KBISECT_MOUNT_OPTIONS\"\n");
  EXPECT_EQ(run_checked({"sh", (dir.path() / "run.env").string()}),
            "'; reboot -f; '|4k|noatime,logbsize=256k");
}

TEST(RunEnv, BadVariableNamesAreRejected) {
  for (std::string name : {"A B", "1X", "X=Y", ""}) {
    GuestRun run;
    run.vars = {{name, "v"}};
    EXPECT_THROW(run_env(run), Error) << name;
  }
}

TEST(RunEnv, VariantOverridesScenario) {
  Scenario scenario;
  scenario.filesystem.mount_options = "noatime";
  scenario.workload.vars = {{"A", "1"}, {"B", "2"}};
  Variant variant;
  variant.name = "v";
  variant.vars = {{"B", "3"}};
  variant.mount_options = "dioread_nolock";
  GuestRun run = guest_run_for(scenario, &variant);
  EXPECT_EQ(run.vars.at("A"), "1");
  EXPECT_EQ(run.vars.at("B"), "3");
  EXPECT_EQ(run.mount_options, "dioread_nolock");
  EXPECT_EQ(guest_run_for(scenario, nullptr).mount_options, "noatime");
  EXPECT_EQ(run.filesystem, FilesystemKind::kExt4);
  variant.filesystem = FilesystemKind::kXfs;
  EXPECT_EQ(guest_run_for(scenario, &variant).filesystem, FilesystemKind::kXfs);
  EXPECT_NE(run_env(guest_run_for(scenario, &variant)).find("export KBISECT_FS='xfs'\n"),
            std::string::npos);
}

// guest_environment, which the host checks job files with, is what kdio gets in the guest: the
// init's export line (read from vmimages/guest/init), then run.env and the change into the test
// directory (here a temporary one), in the guest's shell started empty in /.
TEST(GuestEnvironment, IsWhatTheInitAndRunEnvExport) {
  const std::string init = read_file(GuestImageInputs().init);
  const size_t start = init.find("\nexport PATH=");
  ASSERT_NE(start, std::string::npos) << "the init no longer exports PATH on a line of its own";
  const std::string init_exports = init.substr(start + 1, init.find('\n', start + 1) - start);
  GuestRun run;
  run.vars = {{"BS", "4k"}, {"ODD", "a b'c"}};
  run.device = "/dev/vdb";

  TempDir dir;
  write_file(dir.path() / "env.sh",
             init_exports + run_env(run) + fmt::format("cd {}\nenv -0\n", dir.path().string()));
  ProcessOptions in_root;
  in_root.working_directory = "/";
  std::string output = run_checked(
      {"env", "-i", GuestImageInputs().busybox.string(), "sh", (dir.path() / "env.sh").string()},
      in_root);
  std::map<std::string, std::string> exported;
  for (size_t pos = 0; pos < output.size();) {
    const size_t end = output.find('\0', pos);
    const std::string entry = output.substr(pos, end - pos);
    const size_t equals = entry.find('=');
    exported[entry.substr(0, equals)] = entry.substr(equals + 1);
    pos = end + 1;
  }
  std::map<std::string, std::string> expected = guest_environment(run);
  EXPECT_EQ(expected.at("PWD"), "/mnt/test");
  expected["PWD"] = dir.path().string();
  EXPECT_EQ(exported, expected);
  EXPECT_EQ(exported.at("KBISECT_DIR"), "/mnt/test");
  EXPECT_EQ(exported.at("ODD"), "a b'c");
  // The config refuses workload variables of these names (config/reserved_vars.cc): run.env
  // would replace what the guest set itself.
  for (const auto& [name, value] : exported) {
    EXPECT_TRUE(run.vars.contains(name) || is_reserved_var(name)) << name;
  }
}

TEST(Initramfs, BaseImageIsCachedAndHoldsToolsWithTheirLibraries) {
  TempDir dir;
  GuestImageInputs inputs;
  inputs.kdio = dir.path() / "kdio";
  write_file(inputs.kdio, "#!/bin/sh\nstand-in for kdio\n");
  fs::path image = base_initramfs(inputs, dir.path());
  auto first_write = fs::last_write_time(image);
  EXPECT_EQ(base_initramfs(inputs, dir.path()), image);
  EXPECT_EQ(fs::last_write_time(image), first_write);

  std::string listing = run_checked({"cpio", "-t", "--quiet", "-F", image.string()});
  for (std::string_view expected :
       {"init\n", "bin/busybox\n", "bin/kdio\n", "sbin/mkfs.ext4\n", "sbin/mkfs.xfs\n",
        "lib/kbisect/libc.so.6\n", "lib64/ld-linux-x86-64.so.2\n", "lib/kbisect/libinih.so.1\n"}) {
    EXPECT_NE(listing.find(expected), std::string::npos) << expected;
  }
  // Another kdio is another image.
  write_file(inputs.kdio, "#!/bin/sh\nanother stand-in\n");
  EXPECT_NE(base_initramfs(inputs, dir.path()), image);
}

TEST(Initramfs, RunImageAppendsParametersAndJobs) {
  TempDir dir;
  write_file(dir.path() / "base.cpio", [] {
    CpioWriter cpio;
    cpio.file("init", "#!/bin/sh\n", 0755);
    return cpio.finish();
  }());
  write_file(dir.path() / "randread.fio", "[randread]\nrw=randread\n");
  write_file(dir.path() / "seq..v2.fio", "[seq]\nrw=read\n");
  GuestRun run;
  run.job_files = {dir.path() / "randread.fio", dir.path() / "seq..v2.fio"};
  write_run_initramfs(dir.path() / "base.cpio", run, dir.path() / "run.cpio");
  fs::create_directory(dir.path() / "out");
  ProcessOptions options;
  options.working_directory = dir.path() / "out";
  // GNU cpio stops at the first trailer; the kernel reads on. Skip the base to check the rest.
  std::string both = read_file(dir.path() / "run.cpio");
  write_file(dir.path() / "second.cpio", both.substr(fs::file_size(dir.path() / "base.cpio")));
  run_checked({"cpio", "-id", "--quiet", "-F", (dir.path() / "second.cpio").string()}, options);
  EXPECT_EQ(read_file(dir.path() / "out/kbisect/jobs/01-randread.fio"),
            "[randread]\nrw=randread\n");
  EXPECT_EQ(read_file(dir.path() / "out/kbisect/jobs/02-seq..v2.fio"), "[seq]\nrw=read\n");
  EXPECT_NE(read_file(dir.path() / "out/kbisect/run.env").find("export KBISECT_FS='ext4'"),
            std::string::npos);

  GuestRun no_jobs;
  EXPECT_THROW(write_run_initramfs(dir.path() / "base.cpio", no_jobs, dir.path() / "x.cpio"),
               Error);
}

// The init runs /kbisect/jobs/*, sorted as text: in the order listed also past 99 files.
TEST(Initramfs, JobFilesKeepTheirOrderPastNinetyNine) {
  TempDir dir;
  write_file(dir.path() / "base.cpio", CpioWriter().finish());
  write_file(dir.path() / "j.fio", "[j]\n");
  GuestRun run;
  run.job_files.assign(100, dir.path() / "j.fio");
  write_run_initramfs(dir.path() / "base.cpio", run, dir.path() / "run.cpio");
  // GNU cpio stops at the base's trailer: list the run's part.
  write_file(dir.path() / "second.cpio",
             read_file(dir.path() / "run.cpio").substr(fs::file_size(dir.path() / "base.cpio")));
  const std::string listing =
      run_checked({"cpio", "-it", "--quiet", "-F", (dir.path() / "second.cpio").string()});
  std::vector<std::string> jobs;
  for (size_t pos = 0; pos < listing.size();) {
    const size_t end = listing.find('\n', pos);
    const std::string name = listing.substr(pos, end - pos);
    if (name.starts_with("kbisect/jobs/")) jobs.push_back(name);
    pos = end + 1;
  }
  ASSERT_EQ(jobs.size(), 100u);
  EXPECT_EQ(jobs.front(), "kbisect/jobs/001-j.fio");
  EXPECT_EQ(jobs[10], "kbisect/jobs/011-j.fio");
  EXPECT_EQ(jobs.back(), "kbisect/jobs/100-j.fio");
  EXPECT_TRUE(std::is_sorted(jobs.begin(), jobs.end()));
}

}  // namespace
}  // namespace kbisect
