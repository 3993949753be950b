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

enum class NumberUnit { kNone, kBytes, kBytesPerSecond };

// fio's num2str (lib/num2str.c) with its default significant_figures=4: the number with at
// most `digits` digits, scaled by 1000 or 1024 (`binary`) with a prefix when longer, and the
// digits left after the whole part, less one for the point, as decimals: 21600 is "21.6k",
// 88300000 B/s "84.2MiB/s" or "88.3MB/s".
std::string num2str(uint64_t num, bool binary, NumberUnit unit, int digits = 4);

std::string render_json(const Report& report, bool plus);
std::string render_normal(const Report& report);

}  // namespace kdio
