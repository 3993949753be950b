// The table of seed 002 (fsync serialization under blkio throttling): for each side, each job's
// fsync times iteration by iteration, side by side, as the report quotes them:
//   #    throttled            unthrottled
//   1    fsync time: 1.0051   fsync time: 1.0067
// and when each job's last fsync ended. The times come from kdio's sync.lat_log (the job file
// needs sync_lat_log=1); each is the median over the side's samples of that iteration.
#pragma once

#include <string>
#include <vector>

#include "tables/sample_set.h"

namespace kbisect {

// Throws Error when a job of a sample has no sync.lat_log; a sample whose log of a job is not
// a list of numbers is left out of that job's medians ("-" when no sample's log reads).
std::string sync_log_table(const std::vector<SampleSet>& sets);

}  // namespace kbisect
