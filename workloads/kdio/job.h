// The parsed, validated description of one kdio job: what the job-file parser produces and
// what the workers execute. Units are fixed: bytes, nanoseconds, counts. A Job is complete
// after parsing (numjobs clones expanded, defaults applied), so the engine never guesses.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kdio {

enum class Engine { kPsync, kSync, kLibaio, kIoUring };
enum class Pattern { kRead, kWrite, kRandRead, kRandWrite, kReadWrite, kRandReadWrite };

constexpr bool reads(Pattern p) {
  return p != Pattern::kWrite && p != Pattern::kRandWrite;
}
constexpr bool writes(Pattern p) {
  return p != Pattern::kRead && p != Pattern::kRandRead;
}
constexpr bool is_random(Pattern p) {
  return p == Pattern::kRandRead || p == Pattern::kRandWrite || p == Pattern::kRandReadWrite;
}

// ioengine= and rw= as fio spells them, for the parser and the report; a value's first name is
// the one fio reports (readwrite is another name of rw).
inline constexpr std::pair<std::string_view, Engine> kEngineNames[] = {
    {"psync", Engine::kPsync},
    {"sync", Engine::kSync},
    {"libaio", Engine::kLibaio},
    {"io_uring", Engine::kIoUring}};
inline constexpr std::pair<std::string_view, Pattern> kPatternNames[] = {
    {"read", Pattern::kRead},           {"write", Pattern::kWrite},
    {"randread", Pattern::kRandRead},   {"randwrite", Pattern::kRandWrite},
    {"rw", Pattern::kReadWrite},        {"readwrite", Pattern::kReadWrite},
    {"randrw", Pattern::kRandReadWrite}};

// The name fio reports for an rw= or ioengine= value: its first in the table.
template <typename Value, size_t N>
constexpr std::string_view name_of(const std::pair<std::string_view, Value> (&names)[N],
                                   Value value) {
  for (const auto& [name, named] : names) {
    if (named == value) return name;
  }
  return "";
}
enum class Direction { kRead = 0, kWrite = 1, kTrim = 2 };

// The largest block size kdio takes for a direction the job does I/O in (an I/O unit's length is
// 32 bits). fio has no limit, and takes any block size for a direction the job does not use.
inline constexpr uint64_t kMaxBlockSize = uint64_t{1} << 30;

struct BlockSizeRange {
  uint64_t min = 4096;
  uint64_t max = 4096;  // min == max for a fixed block size
  // With min < max (bsrange=), each size is a multiple of min within [min, max], or max,
  // drawn as fio draws it (IoPlanner::draw_length).
};

struct Job {
  std::string name;
  int clone_index = 0;     // 0..numjobs-1
  int group_id = 0;        // reporting group (new_group / stonewall start a new one)
  bool stonewall = false;  // wait for all earlier jobs before starting

  Engine engine = Engine::kPsync;
  Pattern pattern = Pattern::kRead;
  int rwmix_read_percent = 50;
  bool direct = false;
  BlockSizeRange block_size[2];  // per Direction (read, write)

  std::vector<std::string> files;  // resolved paths this clone uses
  // directory=, each of which must exist, even one no clone uses: fio checks them all when it
  // parses the option ("is not a directory").
  std::vector<std::string> directories;
  // bytes per file (size / nrfiles, or filesize). 0 only when filename= was given without
  // size: then use the file's or block device's current size (fio does the same).
  uint64_t file_size = 0;
  uint64_t io_size = 0;  // bytes to transfer, the job's limit times loops; 0 = file_size * files
  int loops = 1;
  bool fallocate = true;  // lay files out with fallocate (else write them)
  bool invalidate = true;

  bool time_based = false;
  uint64_t runtime_ns = 0;  // 0 = until io_size is done
  uint64_t ramp_time_ns = 0;
  uint64_t start_delay_ns = 0;

  int iodepth = 1;  // always 1 for psync/sync (the parser warns when a larger one was given)
  int iodepth_batch_submit = 1;
  int iodepth_batch_complete_min = 1;
  // The parser fills this as fio's fixup_options(): max(given max, min), so the default is 1
  // (fio's default too); 0 only when min is 0.
  int iodepth_batch_complete_max = 0;

  int fsync_every = 0;      // fsync after every N writes
  int fdatasync_every = 0;  // fdatasync after every N writes
  bool end_fsync = false;
  bool sync_lat_log = false;  // kdio extension: report every sync's latency in order

  bool rand_repeat = true;    // true: seed from rand_seed (fio: randseed= implies this)
  uint64_t rand_seed = 0x89;  // false: seed from the system RNG
  bool norandommap = false;

  uint64_t rate_bytes_per_sec[2] = {0, 0};  // per Direction, 0 = unlimited
  uint64_t rate_iops[2] = {0, 0};

  std::string cgroup;         // cgroup v2 path relative to the mount, "" = none
  std::string cgroup_io_max;  // kdio extension: io.max line without the device, e.g. "wbps=1048576"

  // io_uring only
  bool hipri = false;
  bool fixedbufs = false;
  bool registerfiles = false;
  bool sqthread_poll = false;

  // kb_base: 1000 puts decimal units (MB/s) first in the normal output, as fio.
  int kb_base = 1024;

  bool use_threads = false;  // `thread`: pthreads instead of fork
  bool group_reporting = false;

  // The options exactly as given (after inheritance from [global]), for the JSON "kdio" object.
  std::map<std::string, std::string> given_options;
};

// Whether `job` is reported in one entry with `previous`, the job before it. As fio's stat.c:
// a job with group_reporting joins the entry before it when that is of the same group, even an
// entry begun by a job without group_reporting; a job without it always begins a new entry.
// The entry is named after its first job.
inline bool reported_with(const Job& previous, const Job& job) {
  return job.group_reporting && previous.group_id == job.group_id;
}

// Whether the job at `index` of the execution order waits for all jobs before it to finish:
// the jobs from one such job to the next run side by side (a wave).
inline bool starts_wave(const Job& job, size_t index) {
  return index > 0 && job.stonewall && job.clone_index == 0;
}

struct JobFile {
  std::vector<Job> jobs;  // in execution order, clones expanded (clone_index ascending)
  // Added by the parser: "FILE:LINE: warning: ..." for things fio accepts but does not do
  // (libaio without direct=1, iodepth>1 with psync). main prints them to stderr before running.
  std::vector<std::string> warnings;
};

}  // namespace kdio
