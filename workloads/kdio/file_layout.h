// Files are made ready before any clock starts: regular files are created, extended or
// fallocated (and written out when a job reads them, as fio does, so reads hit real blocks);
// devices (block or character) are used as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fd.h"
#include "job.h"
#include "run_error.h"

namespace kdio {

// fio refuses a job file whose directory= does not exist (when it parses it, so before any job
// runs and without a report); this is the same check, which throws.
void check_directories(const std::vector<Job>& jobs);

// Lays out every regular file the jobs use (each path once, at the largest size asked for).
// Returns, for each job, why one of its files could not be laid out, if one could not: as in
// fio, that fails the job alone, which then does not run, and the others still do.
std::vector<std::optional<RunError>> lay_out_files(const std::vector<Job>& jobs);

struct OpenFile {
  Fd fd;
  uint64_t size = 0;  // bytes the job may address in this file
  bool block_device = false;
};

// Opens the job's files with the job's flags (O_DIRECT when direct) and drops their cached
// pages when invalidate is set. Errors explain O_DIRECT problems.
std::vector<OpenFile> open_job_files(const Job& job);

// Size of a block device in bytes (BLKGETSIZE64).
uint64_t block_device_size(int fd, const std::string& path);

}  // namespace kdio
