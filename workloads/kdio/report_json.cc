// fio 3.x JSON: field names and units as fio writes them, plus a "kdio" object.
#include <ctime>
#include <nlohmann/json.hpp>

#include "kdio/json_numbers.h"
#include "kdio/options.h"
#include "report.h"

namespace kdio {
namespace {

using Json = nlohmann::ordered_json;

Json lat_json(const LatStat& stat, const Histogram* hist, bool plus) {
  Json out;
  out["min"] = stat.min_or_zero();
  out["max"] = stat.max;
  out["mean"] = stat.mean;
  out["stddev"] = stat.stddev();
  out["N"] = stat.samples;
  if (hist != nullptr && stat.samples > 0) {
    Json pct = Json::object();
    for (auto& [p, value] : hist->percentiles(default_percentiles())) {
      pct[percentile_key(p)] = value;
    }
    out["percentile"] = pct;
    if (plus) {
      Json bins = Json::object();
      for (unsigned i = 0; i < kPlatBuckets; ++i) {
        if (hist->bins[i]) bins[std::to_string(plat_idx_to_val(i))] = hist->bins[i];
      }
      out["bins"] = bins;
    }
  }
  return out;
}

// fio's bandwidth samples, KiB/s; all zero without samples, as fio's calc_lat().
void add_bw_samples(Json& out, const LatStat& stat, uint64_t group_bw_bytes) {
  out["bw_min"] = stat.min_or_zero();
  out["bw_max"] = stat.max;
  out["bw_agg"] = stat.samples ? percent_of_group(stat.mean, group_bw_bytes) : 0.0;
  out["bw_mean"] = stat.mean;
  out["bw_dev"] = stat.stddev();
  out["bw_samples"] = stat.samples;
}

void add_iops_samples(Json& out, const LatStat& stat) {
  out["iops_min"] = stat.min_or_zero();
  out["iops_max"] = stat.max;
  out["iops_mean"] = stat.mean;
  out["iops_stddev"] = stat.stddev();
  out["iops_samples"] = stat.samples;
}

Json dir_json(const DirResult& d, bool plus, uint64_t group_bw_bytes) {
  uint64_t bw_bytes = d.runtime_ms ? d.io_bytes * 1000 / d.runtime_ms : 0;
  double iops = d.runtime_ms
                    ? 1000.0 * static_cast<double>(d.total_ios) / static_cast<double>(d.runtime_ms)
                    : 0.0;
  Json out;
  out["io_bytes"] = d.io_bytes;
  out["io_kbytes"] = d.io_bytes >> 10;
  out["bw_bytes"] = bw_bytes;
  out["bw"] = bw_bytes / 1024;
  out["iops"] = iops;
  out["runtime"] = d.runtime_ms;
  out["total_ios"] = d.total_ios;
  out["short_ios"] = d.short_ios;
  out["drop_ios"] = 0;
  out["slat_ns"] = lat_json(d.slat, nullptr, plus);
  out["clat_ns"] = lat_json(d.clat, &d.clat_hist, plus);
  out["lat_ns"] = lat_json(d.lat, nullptr, plus);
  add_bw_samples(out, d.bw_samples, group_bw_bytes);
  add_iops_samples(out, d.iops_samples);
  return out;
}

Json ranges_json(std::span<const uint64_t> counts, uint64_t total_ios) {
  Json out = Json::object();
  auto percents = range_percents(counts, total_ios);
  for (size_t i = 0; i < percents.size(); ++i) out[kLatencyRangeLabels[i]] = percents[i];
  return out;
}

Json depths_json(const std::vector<double>& percents, const char* const (&labels)[7]) {
  Json out = Json::object();
  for (size_t i = 0; i < 7; ++i) out[labels[i]] = percents[i];
  return out;
}

double cpu_percent(uint64_t cpu_ns, uint64_t runtime_ms) {
  if (runtime_ms == 0) return 0;
  return static_cast<double>(cpu_ns) / 1e4 / static_cast<double>(runtime_ms);
}

Json options_json(const Job& job) {
  Json out = Json::object();
  for (const auto& [key, value] : job.given_options) out[key] = value;
  return out;
}

// fio's "job options": under fio's name for an alias, and without the flags given bare
// (`thread`, `group_reporting`), which fio does not list.
Json fio_options_json(const Job& job) {
  Json out = Json::object();
  for (const auto& [key, value] : job.given_options) {
    if (!value.empty()) out[canonical_option_name(key)] = value;
  }
  return out;
}

}  // namespace

std::string render_json(const Report& report, bool plus) {
  Json root;
  // Tools read "fio version" to show or store it, none we know parses it: it names the program
  // that wrote the file, as fio's does.
  root["fio version"] = kVersion;
  root["kdio version"] = kVersion;
  root["timestamp"] = report.timestamp_ms / 1000;
  root["timestamp_ms"] = report.timestamp_ms;
  std::time_t t = static_cast<std::time_t>(report.timestamp_ms / 1000);
  char when[64] = {};
  std::tm tm{};
  ::localtime_r(&t, &tm);
  std::strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
  root["time"] = when;
  Json jobs = Json::array();
  auto group_bw = group_bandwidths(report.entries);
  for (const ReportEntry& entry : report.entries) {
    const JobResult& r = entry.result;
    Json job;
    job["jobname"] = entry.job->name;
    job["groupid"] = entry.job->group_id;
    job["error"] = r.error;
    if (r.error != 0) job["error_message"] = r.error_message;
    job["elapsed"] = report.elapsed_s;
    job["job options"] = fio_options_json(*entry.job);
    const auto& bw = group_bw[entry.job->group_id];
    job["read"] = dir_json(r.dir[0], plus, bw[0]);
    job["write"] = dir_json(r.dir[1], plus, bw[1]);
    job["trim"] = dir_json(r.dir[2], plus, bw[2]);
    Json sync;
    sync["total_ios"] = r.sync.fsyncs;  // as fio's JSON: fdatasyncs are not counted here
    sync["lat_ns"] = lat_json(r.sync.lat, &r.sync.lat_hist, plus);
    if (entry.job->sync_lat_log) {
      Json log = Json::array();
      for (uint32_t i = 0; i < r.sync.log.count; ++i) {
        log.push_back(
            {{"time_ms", r.sync.log.entries[i].time_ms}, {"lat_ns", r.sync.log.entries[i].lat_ns}});
      }
      sync["lat_log"] = log;
      sync["lat_log_dropped"] = r.sync.log.dropped;
    }
    job["sync"] = sync;
    job["job_runtime"] = r.job_runtime_ms;
    job["usr_cpu"] = cpu_percent(r.usr_ns, r.job_runtime_ms);
    job["sys_cpu"] = cpu_percent(r.sys_ns, r.job_runtime_ms);
    job["ctx"] = r.ctx;
    job["majf"] = r.majf;
    job["minf"] = r.minf;
    if (auto depths = depth_distributions(*entry.job, r)) {
      job["iodepth_level"] = depths_json(depths->level, kDepthLevelLabels);
      job["iodepth_submit"] = depths_json(depths->submit, kDepthBatchLabels);
      job["iodepth_complete"] = depths_json(depths->complete, kDepthBatchLabels);
    }
    uint64_t total_ios = r.total_ios();
    job["latency_ns"] = ranges_json(r.clat_ranges.nsec, total_ios);
    job["latency_us"] = ranges_json(r.clat_ranges.usec, total_ios);
    job["latency_ms"] = ranges_json(r.clat_ranges.msec, total_ios);
    // fio's latency_target fields, which it writes with the depth: kdio has no latency_target.
    job["latency_depth"] = entry.job->iodepth;
    job["latency_target"] = 0;
    job["latency_percentile"] = 100.0;
    job["latency_window"] = 0;
    jobs.push_back(std::move(job));
  }
  root["jobs"] = jobs;
  Json kdio;
  kdio["version"] = kVersion;
  kdio["interrupted"] = report.interrupted;
  Json parsed = Json::array();
  for (const Job& job : *report.jobs) {
    Json one;
    one["name"] = job.name;
    one["clone"] = job.clone_index;
    one["groupid"] = job.group_id;
    one["options"] = options_json(job);
    parsed.push_back(std::move(one));
  }
  kdio["jobs"] = parsed;
  root["kdio"] = kdio;
  return root.dump(2) + "\n";
}

}  // namespace kdio
