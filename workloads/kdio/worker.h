// Runs one job in the calling thread (which is a forked process or a pthread, per `thread`):
// set-up (files, buffers, engine), then the measured phase, filling a JobResult. Errors end the
// job and are recorded in the result rather than thrown.
#pragma once

#include <atomic>
#include <functional>

#include "job.h"
#include "result.h"

namespace kdio {

// job_number makes the random streams of clones differ while staying repeatable.
// wait_for_start is called once after set-up (also when set-up failed) and returns when every
// job of the wave may start.
void run_job(const Job& job, int job_number, JobResult& result, const std::atomic<bool>& stop,
             const std::function<void()>& wait_for_start);

}  // namespace kdio
