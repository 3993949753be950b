#include "tables/sync_log_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "bisect/statistics.h"

namespace kbisect {
namespace {

using nlohmann::json;

// One job's fsync latencies (seconds) and end times (seconds), in order.
struct JobLog {
  std::vector<double> latency;
  std::vector<double> ended;
};

// The job's sync.lat_log; none for a job without sync_lat_log=1 (a reader beside the writers).
const json* lat_log(const json& job) {
  if (auto sync = job.find("sync"); sync != job.end()) {
    if (auto found = sync->find("lat_log"); found != sync->end()) return &*found;
  }
  return nullptr;
}

// One job's log, or none when an entry is not a pair of numbers: leaving only that entry out
// would shift the iterations after it.
std::optional<JobLog> job_log(const json& log) {
  if (!log.is_array()) return std::nullopt;
  JobLog out;
  for (const json& entry : log) {
    if (!entry.is_object()) return std::nullopt;
    auto latency = entry.find("lat_ns");
    auto ended = entry.find("time_ms");
    if (latency == entry.end() || !latency->is_number() || ended == entry.end() ||
        !ended->is_number()) {
      return std::nullopt;
    }
    out.latency.push_back(latency->get<double>() / 1e9);
    out.ended.push_back(ended->get<double>() / 1e3);
  }
  return out;
}

// Column names: the job names, made unique ("reader", "reader#2") where numjobs cloned one.
std::vector<std::string> column_names(const json& sample) {
  std::vector<std::string> seen;
  std::vector<std::string> names;
  for (const json& job : sample.at("jobs")) {
    std::string name = job_name(job);
    auto copies = std::count(seen.begin(), seen.end(), name);
    seen.push_back(name);
    names.push_back(copies == 0 ? name : fmt::format("{}#{}", name, copies + 1));
  }
  return names;
}

// The median over samples of element `index` of each sample's list, if any sample has one.
std::optional<double> median_at(const std::vector<std::vector<double>>& lists, size_t index) {
  std::vector<double> values;
  for (const auto& list : lists) {
    if (index < list.size()) values.push_back(list[index]);
  }
  if (values.empty()) return std::nullopt;
  return median(values);
}

// Every sample's logs of a side, by job: latencies[job][sample][iteration] and the end of
// each job's last fsync, last_ended[job][sample], of the samples whose log reads.
struct SideLogs {
  std::vector<std::vector<std::vector<double>>> latencies;
  std::vector<std::vector<double>> last_ended;
  std::vector<bool> logged;  // by job: some sample has its sync.lat_log
  size_t rows = 0;           // the most iterations of any job in any sample
};

SideLogs collect_logs(const SampleSet& set, size_t jobs) {
  SideLogs logs;
  logs.latencies.resize(jobs);
  logs.last_ended.resize(jobs);
  logs.logged.resize(jobs);
  for (const json& sample : set.samples) {
    const json& entries = sample.at("jobs");
    for (size_t j = 0; j < jobs && j < entries.size(); ++j) {
      const json* entry = lat_log(entries[j]);
      if (entry == nullptr) continue;
      logs.logged[j] = true;
      std::optional<JobLog> log = job_log(*entry);
      if (!log) continue;
      logs.rows = std::max(logs.rows, log->latency.size());
      logs.latencies[j].push_back(std::move(log->latency));
      if (!log->ended.empty()) logs.last_ended[j].push_back(log->ended.back());
    }
  }
  return logs;
}

// When the job's last fsync ended; "-" when no sample's log of it reads.
std::string end_text(const SideLogs& logs, size_t job) {
  if (!logs.logged[job]) return "no sync_lat_log";
  if (logs.latencies[job].empty()) return "-";
  if (logs.last_ended[job].empty()) return "no fsync";
  return fmt::format("at {:.3f} s", median(logs.last_ended[job]));
}

// "    1   fsync time: 1.0051   fsync time: 1.0067": the first cell right-aligned, the others in
// columns, no trailing blanks.
std::string table_row(const std::vector<std::string>& cells) {
  std::string line = fmt::format("{:>5}", cells.front());
  for (size_t i = 1; i < cells.size(); ++i) line += fmt::format("   {:<20}", cells[i]);
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

// The side's table; `logged` becomes true when one of its jobs has a log.
std::string side_table(const SampleSet& set, bool& logged) {
  std::string counted =
      set.samples.size() > 1 ? fmt::format(" (median of {} samples)", set.samples.size()) : "";
  std::string out = fmt::format("=== {}{} ===\n", set_name(set), counted);
  if (set.samples.empty()) return out + "  no samples\n";
  std::vector<std::string> names = column_names(set.samples.front());
  SideLogs logs = collect_logs(set, names.size());
  logged = logged || std::find(logs.logged.begin(), logs.logged.end(), true) != logs.logged.end();
  std::vector<std::string> header = {"#"};
  header.insert(header.end(), names.begin(), names.end());
  out += table_row(header);
  for (size_t row = 0; row < logs.rows; ++row) {
    std::vector<std::string> cells = {std::to_string(row + 1)};
    for (size_t j = 0; j < names.size(); ++j) {
      auto value = median_at(logs.latencies[j], row);
      cells.push_back(value ? fmt::format("fsync time: {:.4f}", *value) : "");
    }
    out += table_row(cells);
  }
  std::vector<std::string> ends = {"end"};
  for (size_t j = 0; j < names.size(); ++j) ends.push_back(end_text(logs, j));
  out += table_row(ends);
  return out;
}

}  // namespace

std::string sync_log_table(const std::vector<SampleSet>& sets) {
  std::string out = "fsync time (s) of each iteration, per job; end: when its last fsync ended\n";
  bool logged = false;
  for (const SampleSet& set : sets) out += side_table(set, logged) + "\n";
  if (!logged) out += "no job logs its fsyncs: add sync_lat_log=1 to the job file\n";
  return out;
}

}  // namespace kbisect
