// Entry points of the job parser: fio job files and fio-style command-line jobs become a
// validated JobFile (kdio/job.h). Every error is a JobError whose message starts with
// "FILE:LINE: " (or "<command line>: "); the caller prints it and exits 1. Warnings (things fio
// accepts but does not do) are returned in JobFile::warnings for the caller to print.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kdio/ini.h"
#include "kdio/job.h"
#include "kdio/value.h"

namespace kdio {

// Reads a file from disk; throws JobError naming the path and the reason.
std::string read_file_from_disk(const std::string& path);

// Job files in order, as fio reads several: [global] options carry over from one file to the
// next, and the first job of every file after the first waits for the jobs before it. Their
// includes are read through `read_include`.
JobFile parse_job_files(const std::vector<std::string>& paths, const Environment& env,
                        const FileReader& read_include = read_file_from_disk);

// One job file given as text; `file_name` names it in messages and is the base of relative
// includes, which are read through `read_file`. This is what the fuzzer calls.
JobFile parse_job_text(std::string_view text, const std::string& file_name, const Environment& env,
                       const FileReader& read_file);

// fio-style jobs from argv (without the program name and without kdio's own flags such as
// --output-format): `--key=value`, `--key value` or a bare `--flag`. Each --name starts a job;
// options before the first --name are global.
JobFile parse_command_line_jobs(const std::vector<std::string>& args);

// The process environment, for ${VAR} in job files.
Environment process_environment();

}  // namespace kdio
