#include "report.h"

namespace kdio {

std::vector<ReportEntry> report_entries(const std::vector<Job>& jobs,
                                        const std::vector<JobResult>& results) {
  std::vector<ReportEntry> entries;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    if (i > 0 && reported_with(jobs[i - 1], job)) {
      entries.back().result.merge(results[i]);
      ++entries.back().members;
      continue;
    }
    entries.push_back({&job, 1, results[i]});
  }
  return entries;
}

}  // namespace kdio
