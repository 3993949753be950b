#include "vm/classify.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/file.h"
#include "common/sha256.h"

namespace kbisect {
namespace {

// The console of a run, line by line through a watch, as the runners feed it.
ConsoleWatch watch_text(std::string_view text) {
  ConsoleWatch watch;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    watch.line(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  watch.finish();
  return watch;
}

std::string frame(std::string_view kind, std::string_view payload, std::string_view base64) {
  return fmt::format("KBISECT-BEGIN {} {} {}\nKBISECT-DATA {}\nKBISECT-END {}\n", kind,
                     payload.size(), sha256_hex(payload), base64, kind);
}

std::string testdata(const std::string& name) {
  return read_file(std::string(KBISECT_SOURCE_DIR "/harness/vm/testdata/") + name);
}

const std::string kBoot =
    "[    0.000000] Linux version 6.1.0\n[    0.52] Run /init as init process\n";

TEST(Classify, ResultFrameOfTheRightShapeIsOk) {
  // {"jobs":[{"jobname":"a"}]}
  auto watch = watch_text(
      kBoot + "KBISECT-PROGRESS init\n" +
      frame("result", R"({"jobs":[{"jobname":"a"}]})", "eyJqb2JzIjpbeyJqb2JuYW1lIjoiYSJ9XX0="));
  auto verdict = classify(watch, VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kOk) << verdict.detail;
  EXPECT_EQ(verdict.kdio_json, R"({"jobs":[{"jobname":"a"}]})");
  EXPECT_EQ(verdict.detail, "");
}

TEST(Classify, AKernelFailureBesideAResultIsSaidWithTheSamples) {
  auto watch = watch_text(
      kBoot + "KBISECT-PROGRESS init\n[    9.1] BUG: soft lockup - CPU#0 stuck for 22s!\n" +
      frame("result", R"({"jobs":[{"jobname":"a"}]})", "eyJqb2JzIjpbeyJqb2JuYW1lIjoiYSJ9XX0="));
  auto verdict = classify(watch, VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kOk);
  EXPECT_EQ(verdict.detail,
            "the kernel failed during the run: BUG: soft lockup - CPU#0 stuck for 22s!");
}

TEST(Classify, ResultOfTheWrongShapeIsWorkloadFailed) {
  // {"jobs":[]}
  auto watch =
      watch_text("KBISECT-PROGRESS init\n" + frame("result", R"({"jobs":[]})", "eyJqb2JzIjpbXX0="));
  auto verdict = classify(watch, VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kWorkloadFailed);
  EXPECT_NE(verdict.detail.find("jobs"), std::string::npos);
}

TEST(Classify, JsonShape) {
  EXPECT_EQ(kdio_json_problem(R"({"jobs":[{"jobname":"a","read":{}}]})"), "");
  EXPECT_NE(kdio_json_problem("{"), "");
  EXPECT_NE(kdio_json_problem("[]"), "");
  EXPECT_NE(kdio_json_problem(R"({"jobs":{}})"), "");
  EXPECT_NE(kdio_json_problem(R"({"jobs":[1]})"), "");
  EXPECT_NE(kdio_json_problem(R"({"jobs":[{"jobname":3}]})"), "");
  // Valid JSON that the results database would refuse to store.
  std::string deep =
      R"({"jobs":[{"jobname":"a","x":)" + std::string(2100, '[') + std::string(2100, ']') + "}]}";
  EXPECT_EQ(kdio_json_problem(deep), "nested more than 32 deep");
  EXPECT_EQ(kdio_json_problem(R"({"jobs":[{"jobname":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\""}]})"),
            "");
}

TEST(Classify, ErrorFrameIsWorkloadFailedWithTheGuestsWords) {
  std::string payload = "stage=workload exit=1\nkdio: job.fio:3: unknown option 'bs2'\n";
  // base64 of the payload above
  auto watch = watch_text(
      "KBISECT-PROGRESS init\n" +
      frame("error", payload,
            "c3RhZ2U9d29ya2xvYWQgZXhpdD0xCmtkaW86IGpvYi5maW86MzogdW5rbm93biBvcHRpb24gJ2JzMicK"));
  auto verdict = classify(watch, VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kWorkloadFailed);
  EXPECT_EQ(verdict.detail,
            "guest reported stage=workload exit=1: kdio: job.fio:3: unknown option 'bs2'");
}

// A console with two answers is not from the guest's init (it sends one): neither is stored.
TEST(Classify, MoreThanOneAnswerIsWorkloadFailedAndNoneIsKept) {
  const std::string result =
      frame("result", R"({"jobs":[{"jobname":"a"}]})", "eyJqb2JzIjpbeyJqb2JuYW1lIjoiYSJ9XX0=");
  const std::string error =
      frame("error", "stage=workload exit=1\n", "c3RhZ2U9d29ya2xvYWQgZXhpdD0xCg==");
  for (const std::string& answers : {result + result, result + error, error + result}) {
    auto verdict =
        classify(watch_text(kBoot + "KBISECT-PROGRESS init\n" + answers), VmEnd::kExited, "");
    EXPECT_EQ(verdict.outcome, Outcome::kWorkloadFailed);
    EXPECT_EQ(verdict.detail,
              "the guest sent 2 result and error frames where its init sends one; none is trusted");
    EXPECT_EQ(verdict.kdio_json, "");
  }
}

TEST(Classify, StartFailureIsInfraError) {
  auto verdict =
      classify(watch_text(""), VmEnd::kStartFailed, "QEMU exited with 1: could not open");
  EXPECT_EQ(verdict.outcome, Outcome::kInfraError);
  EXPECT_NE(verdict.detail.find("could not open"), std::string::npos);
}

TEST(Classify, QemuDyingWhileTheGuestRanIsInfraErrorSoTheRunnerRetries) {
  auto verdict = classify(watch_text(kBoot + "KBISECT-PROGRESS init\n"), VmEnd::kQemuDied,
                          "QEMU exited with -1: Assertion failed");
  EXPECT_EQ(verdict.outcome, Outcome::kInfraError);
  EXPECT_NE(verdict.detail.find("QEMU died while the guest ran"), std::string::npos)
      << verdict.detail;
}

TEST(Classify, TheKernelBannerShowsTheVmStarted) {
  EXPECT_FALSE(watch_text("qemu-system-x86_64: -device nvme: error\n").kernel_started());
  EXPECT_TRUE(watch_text(kBoot).kernel_started());
}

TEST(Classify, DeadlineBeforeInitIsBootFailedAfterInitTimeout) {
  auto before = classify(watch_text(kBoot), VmEnd::kDeadline, "120 s");
  EXPECT_EQ(before.outcome, Outcome::kBootFailed);
  EXPECT_NE(before.detail.find("no init within 120 s"), std::string::npos);
  auto after =
      classify(watch_text(kBoot + "KBISECT-PROGRESS init\nKBISECT-PROGRESS workload-started\n"),
               VmEnd::kDeadline, "1800 s");
  EXPECT_EQ(after.outcome, Outcome::kTimeout);
  EXPECT_NE(after.detail.find("workload-started"), std::string::npos) << after.detail;
}

TEST(Classify, KernelFailuresAreRecognised) {
  for (std::string_view line :
       {"[    1.2] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
        "[   3.4] BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "[   3.4] Oops: 0000 [#1] PREEMPT SMP NOPTI",
        "[   2.0] general protection fault, probably for non-canonical address",
        "[   2.0] kernel BUG at fs/ext4/inode.c:1234!"}) {
    EXPECT_TRUE(kernel_failure_line(line)) << line;
  }
  for (std::string_view line : {"[    0.1] nvme nvme0: 2/0/0 default/read/poll queues",
                                "KBISECT-DATA QlVHOiBub3RoaW5n", "EXT4-fs (nvme0n1): mounted"}) {
    EXPECT_FALSE(kernel_failure_line(line)) << line;
  }
}

TEST(Classify, ExitBeforeInitIsBootFailedAfterInitWorkloadFailed) {
  EXPECT_EQ(classify(watch_text(kBoot), VmEnd::kExited, "").outcome, Outcome::kBootFailed);
  auto after = classify(watch_text(kBoot + "KBISECT-PROGRESS init\n"), VmEnd::kExited, "");
  EXPECT_EQ(after.outcome, Outcome::kWorkloadFailed);
  EXPECT_NE(after.detail.find("without a result"), std::string::npos);
}

TEST(Classify, AKernelFailureAfterInitIsTheWorkloadsNotABootFailure) {
  const std::string oops =
      kBoot + "KBISECT-PROGRESS init\n[   40.1] BUG: kernel NULL pointer dereference, address: 8\n";
  auto exited = classify(watch_text(oops), VmEnd::kExited, "");
  EXPECT_EQ(exited.outcome, Outcome::kWorkloadFailed);
  EXPECT_EQ(exited.detail,
            "kernel failed during the workload: BUG: kernel NULL pointer dereference, address: 8");
  // A warning the kernel survives does not make a run that ran out of time a crash.
  auto deadline = classify(
      watch_text(kBoot + "KBISECT-PROGRESS init\n[   40.1] BUG: soft lockup - CPU#1 stuck!\n"),
      VmEnd::kDeadline, "1800 s");
  EXPECT_EQ(deadline.outcome, Outcome::kTimeout);
  EXPECT_EQ(deadline.detail,
            "workload unfinished after 1800 s; the kernel reported: BUG: soft lockup - CPU#1 "
            "stuck!");
}

TEST(Classify, ADamagedErrorFrameIsStillTheGuestsError) {
  std::string damaged = frame("error", "stage=mkfs exit=1\n", "c3RhZ2U9bWtmcyBleGl0PTEK");
  // printk cut into the line: "[ 9.1] nvme0n1: I/O error" in the middle of the base64.
  damaged.insert(damaged.find("KBISECT-DATA ") + 20, "[ 9.1] nvme0n1: I/O error");
  auto verdict =
      classify(watch_text(kBoot + "KBISECT-PROGRESS init\n" + damaged), VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kWorkloadFailed);
  EXPECT_NE(verdict.detail.find("the guest reported an error in a frame that arrived damaged "
                                "(invalid base64 in frame 'error')"),
            std::string::npos)
      << verdict.detail;
}

TEST(Classify, AFrameCutShortByTheDeadlineIsATimeout) {
  std::string result =
      frame("result", R"({"jobs":[{"jobname":"a"}]})", "eyJqb2JzIjpbeyJqb2JuYW1lIjoiYSJ9XX0=");
  std::string cut = result.substr(0, result.find("KBISECT-END"));
  auto verdict =
      classify(watch_text(kBoot + "KBISECT-PROGRESS init\n" + cut), VmEnd::kDeadline, "60 s");
  EXPECT_EQ(verdict.outcome, Outcome::kTimeout);
  EXPECT_NE(verdict.detail.find("workload unfinished after 60 s"), std::string::npos)
      << verdict.detail;
}

TEST(Classify, DamagedFrameIsInfraErrorSoTheRunnerRetries) {
  std::string damaged =
      frame("result", R"({"jobs":[{"jobname":"a"}]})", "eyJqb2JzIjpbeyJqb2JuYW1lIjoiYSJ9XX0=");
  damaged[damaged.find("KBISECT-DATA ") + 15] = 'A';
  auto verdict = classify(watch_text("KBISECT-PROGRESS init\n" + damaged), VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kInfraError);
  EXPECT_NE(verdict.detail.find("checksum"), std::string::npos) << verdict.detail;
}

TEST(Classify, FloodIsAFailureOfThePhase) {
  EXPECT_EQ(classify(watch_text(kBoot), VmEnd::kConsoleFlood, "16 MiB").outcome,
            Outcome::kBootFailed);
  EXPECT_EQ(classify(watch_text("KBISECT-PROGRESS init\n"), VmEnd::kConsoleFlood, "16 MiB").outcome,
            Outcome::kWorkloadFailed);
}

TEST(Classify, DetailIsOneBoundedPrintableLine) {
  std::string noisy = "x\x01\x7f" + std::string(5000, 'y');
  auto verdict = classify(watch_text(noisy), VmEnd::kExited, "");
  EXPECT_LT(verdict.detail.size(), 400u);
  EXPECT_EQ(verdict.detail.find('\x01'), std::string::npos);
}

TEST(ClassifyRealLogs, PanicIsBootFailedWithThePanicLine) {
  auto watch = watch_text(testdata("console-panic-no-root.log"));
  auto verdict = classify(watch, VmEnd::kExited, "");
  EXPECT_EQ(verdict.outcome, Outcome::kBootFailed);
  EXPECT_EQ(verdict.detail,
            "kernel failed while booting: Kernel panic - not syncing: VFS: Unable to mount root "
            "fs on unknown-block(0,0)");
}

TEST(ClassifyRealLogs, HangIsBootFailedAtTheDeadline) {
  auto watch = watch_text(testdata("console-hang-before-init.log"));
  EXPECT_FALSE(watch.init_reached());
  EXPECT_EQ(watch.kernel_failure(), "");
  auto verdict = classify(watch, VmEnd::kDeadline, "25 s");
  EXPECT_EQ(verdict.outcome, Outcome::kBootFailed);
  EXPECT_NE(verdict.detail.find("no init within 25 s"), std::string::npos) << verdict.detail;
}

}  // namespace
}  // namespace kbisect
