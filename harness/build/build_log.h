// Reading kernel build output: what to show of a failed build, and progress from make's lines.
#pragma once

#include <string>
#include <string_view>

namespace kbisect {

// The part of a build log a person needs first: the lines that report errors (compiler
// "error:", make's "*** ... Error N", linker "undefined reference"), then the last
// `tail_lines` lines.
std::string summarize_build_log(std::string_view log, size_t tail_lines = 50);

// A Kbuild line that compiles one C file ("  CC      fs/ext4/file.o"): the progress unit.
bool is_compile_line(std::string_view line);

// "No space left on device" and the like: a failure of the machine, not of the kernel.
bool reports_disk_full(std::string_view log);

}  // namespace kbisect
