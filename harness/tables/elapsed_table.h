// The table of seed 003 (XFS direct I/O thread scaling): one line per variant (a thread count
// of the sweep) and side, the elapsed seconds of each reporting group (read, write), as the
// report quotes them:
//   variant        read     write
//   THREADS=1     0.92s     1.49s
// A group's elapsed time is its longest job's run time; each number is the median over the
// side's samples.
#pragma once

#include <string>
#include <vector>

#include "tables/sample_set.h"

namespace kbisect {

std::string elapsed_table(const std::vector<SampleSet>& sets);

}  // namespace kbisect
