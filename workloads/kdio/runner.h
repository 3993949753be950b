// Runs a job file: lays out the files, then starts the jobs wave by wave (a stonewall job
// waits for every job before it), each in a forked process or, with `thread`, a pthread, and
// collects their results. SIGINT/SIGTERM stop the jobs; what was measured is still returned.
#pragma once

#include <vector>

#include "job.h"
#include "result.h"

namespace kdio {

struct RunOutcome {
  std::vector<JobResult> results;  // one per job, in the job file's order
  int signal = 0;                  // the signal that interrupted the run, 0 = none
};

// Makes SIGINT and SIGTERM request a stop instead of killing kdio, and ignores SIGXFSZ, so that
// a write past RLIMIT_FSIZE fails with EFBIG, an error the job reports, instead of killing its
// worker (and with `thread` kdio) without a word on what it was doing.
void install_signal_handlers();

RunOutcome run_jobs(const JobFile& job_file);

}  // namespace kdio
