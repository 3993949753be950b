#include "tables/table.h"

#include "tables/elapsed_table.h"
#include "tables/fio_groups_table.h"
#include "tables/rw_summary_table.h"
#include "tables/sync_log_table.h"

namespace kbisect {

std::string render_table(ReportTable table, const std::vector<SampleSet>& sets) {
  switch (table) {
    case ReportTable::kNone:
      return "";
    case ReportTable::kFioGroups:
      return fio_groups_table(sets);
    case ReportTable::kRwSummary:
      return rw_summary_table(sets);
    case ReportTable::kSyncLog:
      return sync_log_table(sets);
    case ReportTable::kElapsed:
      return elapsed_table(sets);
  }
  return "";
}

}  // namespace kbisect
