#include "build/build_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kbisect {
namespace {

using ::testing::HasSubstr;

TEST(BuildLog, ErrorLinesComeFirstThenTheTail) {
  std::string log;
  log += "  CC      fs/ext4/file.o\n";
  log += "fs/ext4/file.c:42:1: error: expected ';' before '}' token\n";
  for (int i = 0; i < 100; ++i) log += "  CC      other" + std::to_string(i) + ".o\n";
  log += "make[3]: *** [scripts/Makefile.build:250: fs/ext4/file.o] Error 1\n";
  log += "make: *** [Makefile:2012: .] Error 2\n";
  std::string summary = summarize_build_log(log, 5);
  EXPECT_EQ(summary.find("error lines:\nfs/ext4/file.c:42:1: error: expected"), 0u);
  EXPECT_NE(summary.find("make[3]: *** [scripts/Makefile.build:250"), std::string::npos);
  size_t last = summary.find("last lines:\n");
  ASSERT_NE(last, std::string::npos);
  std::string tail = summary.substr(last + 12);
  EXPECT_EQ(tail,
            "  CC      other97.o\n  CC      other98.o\n  CC      other99.o\n"
            "make[3]: *** [scripts/Makefile.build:250: fs/ext4/file.o] Error 1\n"
            "make: *** [Makefile:2012: .] Error 2\n");
  EXPECT_EQ(first_error_line(log), "fs/ext4/file.c:42:1: error: expected ';' before '}' token");
  EXPECT_EQ(first_error_line(summary), first_error_line(log));
}

TEST(BuildLog, WithoutErrorsOnlyTheTail) {
  EXPECT_EQ(summarize_build_log("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(summarize_build_log("", 2), "");
  EXPECT_EQ(first_error_line("a\nb\n"), "");
}

TEST(BuildLog, FirstErrorIsOneLineOfValidText) {
  // gcc's quotes are UTF-8; cut after 200 bytes, a character is not split.
  std::string quoted = "x.c:1:1: error: ‘" + std::string(200, 'a') + "’\n";
  std::string cut = first_error_line(std::string(182, ' ') + quoted);
  EXPECT_EQ(cut.size(), 198u);  // 182 + "x.c:1:1: error: " (16), not the quote's first byte
  EXPECT_EQ(first_error_line("f.c: error: \x1b[31mred\n"), "f.c: error: ?[31mred");
  EXPECT_EQ(first_error_line("f.c: error: ‘x’\n"), "f.c: error: ‘x’");
  // A C1 CSI and a bidi override (a kernel tree is untrusted) are as harmless as ESC; a tab is
  // a space.
  EXPECT_EQ(first_error_line("f.c: error: \xc2\x9b"
                             "31m\xe2\x80\xae"
                             "x\ty\n"),
            "f.c: error: ?31m?x y");
}

TEST(BuildLog, UndefinedReferencesAreErrors) {
  std::string summary = summarize_build_log("ld: foo.o: undefined reference to `bar'\nx\n", 1);
  EXPECT_EQ(summary.find("error lines:\nld: foo.o: undefined reference"), 0u);
}

TEST(BuildLog, CompileErrorFilesAreTheLocationsOfTheCompilersErrors) {
  std::string log;
  log += "In file included from /src/fs/ext4/file.c:12:\n";
  log += "/src/include/linux/fs.h:7:3: error: unknown type name 'foo'\n";
  log += "/src/fs/ext4/file.c:42: fatal error: bar.h: No such file or directory\n";
  log += "make[3]: *** [scripts/Makefile.build:250: fs/ext4/file.o] Error 1\n";
  EXPECT_EQ(compile_error_files(log),
            (std::vector<std::string>{"/src/include/linux/fs.h", "/src/fs/ext4/file.c"}));
  // An error no file can be blamed for, anywhere in the log, blames none.
  for (const char* unlocated : {"gcc: error: unrecognized command-line option '-mfoo'\n",
                                "fs/ext4/file.o: error: objtool: missing symbol\n",
                                "ld: fs/ext4/file.o: undefined reference to `bar'\n"}) {
    EXPECT_EQ(compile_error_files(log + unlocated), std::vector<std::string>()) << unlocated;
  }
  EXPECT_EQ(compile_error_files("make[2]: *** No rule to make target 'x.h', needed by 'y.o'.  "
                                "Stop.\nmake: *** [Makefile:2012: .] Error 2\n"),
            std::vector<std::string>());
}

TEST(BuildLog, CompileLinesAndFailuresOfTheMachine) {
  EXPECT_TRUE(is_compile_line("  CC      fs/ext4/file.o"));
  EXPECT_FALSE(is_compile_line("  LD      vmlinux"));
  EXPECT_FALSE(is_compile_line("  HOSTCC  scripts/kconfig/conf.o"));
  EXPECT_THAT(machine_failure("fs/x.o: No space left on device"), HasSubstr("disk space"));
  EXPECT_THAT(machine_failure("gcc: fatal error: Killed signal terminated program cc1"),
              HasSubstr("memory"));
  EXPECT_EQ(machine_failure("fs/x.c:1:2: error: expected ';'"), "");
  // The OOM killer's favourite in a kernel build is the link of vmlinux, which no gcc reports.
  EXPECT_THAT(machine_failure("/bin/sh: line 1: 4242 Killed ld -m elf_x86_64 ...\n"
                              "make[2]: *** [scripts/Makefile.vmlinux_o:61: vmlinux.o] Error 137"),
              HasSubstr("memory"));
  EXPECT_THAT(machine_failure("make[1]: fork: Resource temporarily unavailable"),
              HasSubstr("lower build.jobs"));
  EXPECT_THAT(machine_failure("cc1: fs/x.o: Disk quota exceeded"), HasSubstr("quota"));
  EXPECT_THAT(machine_failure("fs/.x.o.cmd: Read-only file system"), HasSubstr("read-only"));
  EXPECT_THAT(machine_failure("as: fs/x.o: Input/output error"), HasSubstr("I/O error"));
  EXPECT_THAT(machine_failure("fixdep: Too many open files"), HasSubstr("ulimit -n"));
  // A build step that failed with its own status, not a signal's.
  EXPECT_EQ(machine_failure("make[2]: *** [scripts/Makefile.build:250: fs/x.o] Error 1"), "");
}

}  // namespace
}  // namespace kbisect
