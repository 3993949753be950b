// The table of seed 001 (randrw after "ext4: Allow parallel DIO reads"): one block per variant
// (a block size of the sweep), one line per side, READ and WRITE bandwidth, IOPS and mean
// latency over all jobs, as the report quotes them:
//   bs=4k:
//   v5.2                | READ 30898KB/s, 7724, 555.00us | WRITE 30875KB/s, 7718, 479.70us
// Each number is the median over the side's samples.
#pragma once

#include <string>
#include <vector>

#include "tables/sample_set.h"

namespace kbisect {

std::string rw_summary_table(const std::vector<SampleSet>& sets);

}  // namespace kbisect
