#include "tables/table.h"

#include <gtest/gtest.h>

#include "tables/elapsed_table.h"
#include "tables/rw_summary_table.h"
#include "tables/test_samples.h"

namespace kbisect {
namespace {

TEST(Table, TheScenarioChoosesTheLayout) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set(
      "v6.1", "BS=4k",
      {kdio_json({job_json("j", 0, {}, direction_json(4096, 1, 10, {}, {}), nullptr)})})};
  EXPECT_EQ(render_table(ReportTable::kNone, sets), "");
  EXPECT_EQ(render_table(ReportTable::kRwSummary, sets), rw_summary_table(sets));
  EXPECT_EQ(render_table(ReportTable::kElapsed, sets), elapsed_table(sets));
}

}  // namespace
}  // namespace kbisect
