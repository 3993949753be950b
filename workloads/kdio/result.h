// What one job measured. Plain data (no pointers) so that forked workers can write it into
// shared memory and the parent reads it after they exit.
#pragma once

#include <cstdint>

#include "histogram.h"
#include "stats.h"

namespace kdio {

struct DirResult {
  uint64_t io_bytes = 0;
  uint64_t total_ios = 0;   // issued: a failed I/O and the rest of a short one count too
  uint64_t short_ios = 0;   // I/Os that moved fewer bytes than asked, whose rest was re-issued
  uint64_t runtime_ms = 0;  // the job's measured time, for directions that moved bytes
  LatStat slat;             // submit -> issue, async engines only
  LatStat clat;             // issue -> completion
  LatStat lat;              // submit -> completion
  Histogram clat_hist;
  LatStat bw_samples;    // KiB/s, one per 500 ms window (rate_sampler.h)
  LatStat iops_samples;  // I/Os per second, the same windows
};

// Each fsync/fdatasync in order (kdio's sync_lat_log=1): when it ended, in ms since the job's
// measurement started, and how long it took. Fixed capacity, as results live in shared memory.
struct SyncLog {
  static constexpr uint32_t kCapacity = 1024;
  struct Entry {
    uint64_t time_ms = 0;
    uint64_t lat_ns = 0;
  };
  uint32_t count = 0;
  uint64_t dropped = 0;  // syncs after the log was full
  Entry entries[kCapacity] = {};

  void add(uint64_t time_ms, uint64_t lat_ns);
  void append(const SyncLog& other);  // group_reporting: the members' logs one after another
};

struct SyncResult {
  uint64_t total_ios = 0;
  // The fsyncs among them: fio 3.33's JSON "total_ios" counts these alone (its fdatasyncs are
  // only in "lat_ns"), while its sync latencies take both.
  uint64_t fsyncs = 0;
  LatStat lat;
  Histogram lat_hist;
  SyncLog log;
};

struct JobResult {
  DirResult dir[3];  // indexed by Direction
  SyncResult sync;
  LatencyRanges clat_ranges;  // every direction's completions, as fio keeps them per job
  uint64_t job_runtime_ms = 0;
  uint64_t usr_ns = 0;
  uint64_t sys_ns = 0;
  uint64_t ctx = 0;   // voluntary + involuntary context switches
  uint64_t minf = 0;  // minor page faults, as fio's (getrusage of the job's thread)
  uint64_t majf = 0;  // major page faults
  int error = 0;      // errno of the failure that ended the job, 0 = none
  bool interrupted = false;
  bool finished = false;
  char error_message[480] = {};

  void set_error(int err, const char* message);
  // The reads, writes and trims: what fio divides its latency ranges and depths by.
  uint64_t total_ios() const { return dir[0].total_ios + dir[1].total_ios + dir[2].total_ios; }
  // fio's group_reporting sum: bytes and IOs add up, runtime is the longest member's, latency
  // statistics and histograms merge.
  void merge(const JobResult& other);
};

}  // namespace kdio
