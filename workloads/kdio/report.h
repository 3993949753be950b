// What gets reported: one entry per job, or per reporting group where group_reporting merges
// consecutive jobs of one group as fio does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "job.h"
#include "result.h"

namespace kdio {

inline constexpr char kVersion[] = "kdio-0.1.0";

enum class OutputFormat { kNormal, kJson, kJsonPlus };

struct ReportEntry {
  const Job* job = nullptr;  // the first member
  int members = 1;
  JobResult result;
};

std::vector<ReportEntry> report_entries(const std::vector<Job>& jobs,
                                        const std::vector<JobResult>& results);

struct Report {
  const std::vector<Job>* jobs = nullptr;
  std::vector<ReportEntry> entries;
  bool interrupted = false;
  int64_t timestamp_ms = 0;
};

std::string render_json(const Report& report, bool plus);
std::string render_normal(const Report& report);

}  // namespace kdio
