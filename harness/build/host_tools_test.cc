#include "build/host_tools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kbisect {
namespace {

using ::testing::HasSubstr;

// A host with only the files named.
HostFiles host_with(std::set<std::string, std::less<>> files) {
  auto has = [files](std::string_view name) { return files.contains(name); };
  return {has, has, has};
}

// A tool of the host that the build needs and the host lacks fails every commit alike.
TEST(HostTools, AMissingBuildToolOfTheHostIsNamed) {
  const HostFiles bare = host_with({});
  EXPECT_THAT(missing_host_tool("/bin/sh: 1: zstd: not found\nmake[2]: *** [x] Error 127", bare),
              HasSubstr("found no zstd on this machine; install the package that has it"));
  EXPECT_THAT(missing_host_tool("/bin/bash: line 1: flex: command not found", bare),
              HasSubstr("found no flex"));
  EXPECT_THAT(missing_host_tool("make[2]: bison: No such file or directory", bare),
              HasSubstr("found no bison"));
  EXPECT_THAT(
      missing_host_tool("tools/objtool/include/objtool/elf.h:10:10: fatal error: gelf.h: No "
                        "such file or directory",
                        bare),
      HasSubstr("found no gelf.h on this machine; install the development package"));
  EXPECT_THAT(missing_host_tool("scripts/sign-file.c:25:10: fatal error: openssl/opensslv.h: No "
                                "such file or directory",
                                bare),
              HasSubstr("found no openssl/opensslv.h"));
  EXPECT_THAT(missing_host_tool("/usr/bin/ld: cannot find -lelf: No such file or directory", bare),
              HasSubstr("found no library elf"));
  EXPECT_THAT(missing_host_tool("BTF: .tmp_vmlinux.btf: pahole (pahole) is not available", bare),
              HasSubstr("install the dwarves package"));
}

// kbisect builds with O=, so the tree's scripts run by absolute path and their own errors look
// like the shell's: what is not a build tool, or what the host has, is the tree's failure (a
// bashism under dash, a script with CRLF line ends, a typo in a recipe, a header only a newer
// OpenSSL has).
TEST(HostTools, WhatTheHostHasOrIsNoBuildToolIsTheTreesFailure) {
  const HostFiles bare = host_with({});
  EXPECT_EQ(missing_host_tool("/work/src/scripts/gen.sh: 12: [[: not found", bare), "");
  EXPECT_EQ(missing_host_tool("/work/src/scripts/gen.sh: 3: set\r: not found", bare), "");
  EXPECT_EQ(missing_host_tool("/bin/sh: 1: -o: not found", bare), "");
  EXPECT_EQ(missing_host_tool("/bin/sh: 1: ./scripts/gen.sh: not found", bare), "");
  EXPECT_EQ(missing_host_tool("make[1]: scripts/gen.sh: No such file or directory", bare), "");
  EXPECT_EQ(missing_host_tool("fs/ext4/file.c:3:10: fatal error: linux/gone.h: No such file or "
                              "directory",
                              bare),
            "");
  const HostFiles equipped = host_with({"zstd", "openssl/opensslv.h", "elf", "pahole"});
  EXPECT_EQ(missing_host_tool("/work/src/scripts/x.sh: 4: zstd: not found", equipped), "");
  EXPECT_EQ(missing_host_tool("certs/x.c:2:10: fatal error: openssl/opensslv.h: No such file or "
                              "directory",
                              equipped),
            "");
  EXPECT_EQ(missing_host_tool("ld: cannot find -lelf", equipped), "");
  EXPECT_EQ(missing_host_tool("BTF: .tmp_vmlinux.btf: pahole (pahole) is not available", equipped),
            "");
}

// This machine's lookups find what Debian 12 puts where (a shell is on every PATH).
TEST(HostTools, ThisMachineFindsItsOwnFiles) {
  const HostFiles here = this_machine_files();
  EXPECT_TRUE(here.has_program("sh"));
  EXPECT_FALSE(here.has_program("kbisect-no-such-program"));
  EXPECT_TRUE(here.has_header("stdio.h"));
  EXPECT_FALSE(here.has_header("kbisect-no-such-header.h"));
  EXPECT_TRUE(here.has_library("c"));
  EXPECT_FALSE(here.has_library("kbisect-no-such-library"));
}

}  // namespace
}  // namespace kbisect
