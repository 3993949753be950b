// The programs, headers and libraries of the host that a kernel build runs or builds its own
// tools against (flex, bison, bc, zstd; objtool's libelf, sign-file's OpenSSL). Missing, every
// commit fails alike: that is the machine's failure, not one commit's.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace kbisect {

// What a host has: the programs on its PATH, the headers its compiler finds ("gelf.h",
// "openssl/opensslv.h") and the libraries its linker finds ("elf" for -lelf).
struct HostFiles {
  std::function<bool(std::string_view)> has_program;
  std::function<bool(std::string_view)> has_header;
  std::function<bool(std::string_view)> has_library;
};

// This machine's: PATH, and the system's include and library directories.
HostFiles this_machine_files();

// The rest of a sentence "the kernel build ..." that names a host tool the log says is missing
// and that `host` indeed lacks, and what to do; empty when there is none. A program the log
// says is missing but `host` has (a tree's script that calls a name that is no program, such as
// a bashism's "[[" under dash) is the tree's failure.
std::string missing_host_tool(std::string_view log, const HostFiles& host);

}  // namespace kbisect
