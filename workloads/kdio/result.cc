#include "result.h"

#include <algorithm>
#include <cstring>

namespace kdio {

void JobResult::set_error(int err, const char* message) {
  error = err == 0 ? -1 : err;
  std::strncpy(error_message, message, sizeof(error_message) - 1);
  error_message[sizeof(error_message) - 1] = '\0';
}

void SyncLog::add(uint64_t time_ms, uint64_t lat_ns) {
  if (count == kCapacity) {
    ++dropped;
    return;
  }
  entries[count++] = {time_ms, lat_ns};
}

void SyncLog::append(const SyncLog& other) {
  for (uint32_t i = 0; i < other.count; ++i) add(other.entries[i].time_ms, other.entries[i].lat_ns);
  dropped += other.dropped;
}

void JobResult::merge(const JobResult& other) {
  for (int d = 0; d < 3; ++d) {
    DirResult& to = dir[d];
    const DirResult& from = other.dir[d];
    to.io_bytes += from.io_bytes;
    to.total_ios += from.total_ios;
    to.short_ios += from.short_ios;
    to.runtime_ms = std::max(to.runtime_ms, from.runtime_ms);
    to.slat.merge(from.slat);
    to.clat.merge(from.clat);
    to.lat.merge(from.lat);
    to.clat_hist.merge(from.clat_hist);
    to.bw_samples.sum(from.bw_samples);
    to.iops_samples.sum(from.iops_samples);
  }
  sync.total_ios += other.sync.total_ios;
  sync.fsyncs += other.sync.fsyncs;
  sync.lat.merge(other.sync.lat);
  sync.lat_hist.merge(other.sync.lat_hist);
  sync.log.append(other.sync.log);
  clat_ranges.merge(other.clat_ranges);
  // fio sums the members' run time and CPU time, so usr_cpu stays a per-job average.
  job_runtime_ms += other.job_runtime_ms;
  usr_ns += other.usr_ns;
  sys_ns += other.sys_ns;
  ctx += other.ctx;
  minf += other.minf;
  majf += other.majf;
  if (error == 0 && other.error != 0) {
    error = other.error;
    std::memcpy(error_message, other.error_message, sizeof(error_message));
  }
  interrupted = interrupted || other.interrupted;
  finished = finished && other.finished;
}

}  // namespace kdio
