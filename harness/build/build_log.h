// Reading kernel build output: what to show of a failed build, and progress from make's lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbisect {

// The part of a build log a person needs first: the lines that report errors (compiler
// "error:", make's "*** ... Error N", linker "undefined reference"), then the last
// `tail_lines` lines.
std::string summarize_build_log(std::string_view log, size_t tail_lines = 50);

// The first line of a build log (or of its summary) that reports an error, for a one-line
// reason: at most 200 bytes, cut between UTF-8 characters, control characters (a colour
// escape) as '?'. Empty when there is none.
std::string first_error_line(std::string_view log);

// The files that the compiler's error lines ("FILE:LINE[:COLUMN]: [fatal ]error: ...") name, in
// the order of the log. Empty when the log has no such line, or when one of its errors has
// no location (make's "No rule to make target", the linker's "undefined reference", "gcc:
// error: ..."): then no file can be blamed.
std::vector<std::string> compile_error_files(std::string_view log);

// A Kbuild line that compiles one C file ("  CC      fs/ext4/file.o"): the progress unit.
bool is_compile_line(std::string_view line);

// A failure of the machine rather than of the kernel, as the rest of a sentence that starts
// "the kernel build ..." and says what to do; empty when the log shows none. Only a failure
// that is the kernel's may be remembered as "does not build".
std::string machine_failure(std::string_view log);

}  // namespace kbisect
