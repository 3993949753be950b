// The table of seed 000 (ext4 dioread_nolock on/off): for each reporting group (one per job
// file: psync direct, libaio direct, psync buffered) and each side, fio's summary lines per
// direction, as the report quotes them:
//   read : io=5142.1MB, bw=43885KB/s, iops=10971, runt=120002msec
//     clat (usec): min=123, max=679911, avg=727.21, stdev=3986.35
//      lat (usec): min=123, max=679911, avg=727.40, stdev=3986.35
// slat only where the engine is asynchronous. Each number is the median over the side's samples.
#pragma once

#include <string>
#include <vector>

#include "tables/sample_set.h"

namespace kbisect {

std::string fio_groups_table(const std::vector<SampleSet>& sets);

}  // namespace kbisect
