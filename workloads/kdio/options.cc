#include "kdio/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <string_view>

#include "kdio/spelling.h"
#include "kdio/value.h"

namespace kdio {
namespace {

constexpr int64_t kMaxDepth = 65536;
constexpr int64_t kMaxJobs = 4096;  // fio's own limit on jobs
constexpr int64_t kMaxFilesPerJob = 4096;
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

using ApplyFn = void (*)(JobState&, std::string_view);

struct OptionSpec {
  std::string_view name;
  std::string_view alias;  // "" if none
  bool may_stand_alone;    // fio's "set" options: a bare `thread` means thread=1
  ApplyFn apply;
};

bool flag(std::string_view value) {
  return parse_bool(value);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// A blank by name: the message about it must show what the job file does not.
std::string_view blank_name(char blank) {
  switch (blank) {
    case ' ':
      return "a space";
    case '\t':
      return "a tab";
    case '\r':
      return "a carriage return (\\r)";
    case '\f':
      return "a form feed (\\f)";
    default:
      return "a vertical tab (\\v)";
  }
}

// fio reads a value with a unit after a blank as the bare number: ' 8k' is 8 bytes, which is
// never what was meant. `where_blank` says where the blank is when that is not plain.
void check_no_unit_after_blank(std::string_view value, char blank, std::string_view where_blank) {
  if (value.find_first_not_of("0123456789") == std::string_view::npos) return;
  throw JobError(
      fmt::format("'{}' follows {}{}, after which fio reads only the number and drops the unit; "
                  "remove that blank",
                  value, blank_name(blank), where_blank));
}

// One part of fio's "R[,W[,T]]" (or one end of a range in it), its blanks read as fio reads
// them: blanks alone are an empty part, which keeps the current value (bs=4k, ,8k is
// bs=4k,,8k); blanks after the value do not count (bs=4k ,8k). Blanks before it make fio drop
// the unit without a word (' 8k' is 8 bytes), which is never what was meant, so that is an
// error unless there is no unit.
std::string_view without_blanks(std::string_view part) {
  const size_t last = part.find_last_not_of(kBlanks);
  if (last == std::string_view::npos) return {};
  part = part.substr(0, last + 1);
  const size_t first = part.find_first_not_of(kBlanks);
  if (first != 0) check_no_unit_after_blank(part.substr(first), part[first - 1], "");
  return part.substr(first);
}

// fio's per-direction values "R[,W[,T]]": a value not ended by a comma applies to the
// directions after it too, an empty one keeps the current value. kdio has no trims, so the
// third value is only checked. fio refuses a value with no part given (`bs=`, `bs=,,`): most
// often a ${VAR} that expanded to nothing, which must not quietly run at the defaults.
// fio ignores what follows the third value: empty parts there (bs=4k,8k,16k, or bs=8k,,,) are
// accepted as fio accepts them, but a fourth value is refused, as fio would drop it unread.
template <typename Fn>
void for_each_direction(std::string_view value, Fn set) {
  std::vector<std::string_view> parts = split(value, ',');
  for (std::string_view& part : parts) part = without_blanks(part);
  while (parts.size() > 3 && parts.back().empty()) parts.pop_back();
  if (parts.size() > 3) {
    throw JobError(
        fmt::format("'{}' has more than three comma-separated values (read, write, trim), "
                    "and fio ignores the fourth; remove it",
                    value));
  }
  if (std::ranges::all_of(parts, [](std::string_view part) { return part.empty(); })) {
    throw JobError(
        fmt::format("'{}' gives no value for any direction; use R[,W[,T]] with at least one "
                    "of read, write, trim",
                    value));
  }
  for (size_t direction = 0; direction < 3; ++direction) {
    const std::string_view part = direction < parts.size() ? parts[direction] : parts.back();
    if (!part.empty()) set(direction, part);
  }
}

uint64_t positive_size(const JobState& state, std::string_view text) {
  const uint64_t size = parse_size(text, state.kb_base);
  if (size == 0) throw JobError(fmt::format("'{}' must be greater than zero", text));
  return size;
}

void set_block_size(JobState& state, std::string_view value) {
  for_each_direction(value, [&](size_t direction, std::string_view part) {
    const bool expression = part.front() == '(';
    if (!expression &&
        (part.find('-') != std::string_view::npos || part.find(':') != std::string_view::npos)) {
      // fio 3.33 reads bs=4k-8k as reads of 4k and writes of 8k, which is never what a range
      // was meant to be; refused, with both spellings that say what was meant.
      throw JobError(fmt::format(
          "'{}': fio takes '-' and ':' in bs= as the separator of the read and write sizes, not "
          "as a range; write bs=READ,WRITE for sizes per direction, or bsrange=MIN-MAX for a "
          "range",
          part));
    }
    const uint64_t size = positive_size(state, part);
    if (direction < 2) state.bs[direction] = size;
  });
}

void set_block_size_range(JobState& state, std::string_view value) {
  for_each_direction(value, [&](size_t direction, std::string_view part) {
    size_t separator = part.find('-');
    if (separator == std::string_view::npos) separator = part.find(':');
    if (separator == std::string_view::npos) {
      throw JobError(fmt::format("'{}' is not a range like 4k-64k", part));
    }
    BlockSizeRange range{positive_size(state, without_blanks(part.substr(0, separator))),
                         positive_size(state, without_blanks(part.substr(separator + 1)))};
    if (range.min > range.max) std::swap(range.min, range.max);  // as fio does
    if (direction < 2) state.bsrange[direction] = range;
  });
}

void set_pattern(JobState& state, std::string_view value) {
  if (value.find(':') != std::string_view::npos) {
    throw JobError(
        fmt::format("rw modifier in '{}' (the ':N' part) is not supported by kdio", value));
  }
  std::vector<std::string> names;
  for (const auto& [name, pattern] : kPatternNames) {
    if (value == name) {
      state.job.pattern = pattern;
      return;
    }
    names.emplace_back(name);
  }
  if (value.find("trim") != std::string_view::npos) {
    throw JobError(fmt::format("rw={} is not supported by kdio (no trims)", value));
  }
  const auto near = closest_match(value, names);
  throw JobError(
      fmt::format("unknown rw '{}'{}; use read, write, randread, randwrite, rw, "
                  "readwrite or randrw",
                  value, near ? fmt::format(" (did you mean '{}'?)", *near) : ""));
}

void set_engine(JobState& state, std::string_view value) {
  std::vector<std::string> names;
  for (const auto& [name, engine] : kEngineNames) {
    if (value == name) {
      state.job.engine = engine;
      return;
    }
    names.emplace_back(name);
  }
  const auto near = closest_match(value, names);
  throw JobError(
      fmt::format("ioengine '{}' is not supported by kdio{}; use psync, sync, libaio "
                  "or io_uring",
                  value, near ? fmt::format(" (did you mean '{}'?)", *near) : ""));
}

void set_fallocate(JobState& state, std::string_view value) {
  if (value == "none" || value == "0") {
    state.job.fallocate = false;
  } else if (value == "native" || value == "posix" || value == "1") {
    state.job.fallocate = true;
  } else if (value == "keep" || value == "truncate") {
    throw JobError(fmt::format("fallocate={} is not supported by kdio; use none or native", value));
  } else {
    throw JobError(fmt::format("unknown fallocate '{}'; use none, native, posix, 0 or 1", value));
  }
}

uint64_t parse_u64(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw JobError(fmt::format("'{}' is not a non-negative whole number", text));
  }
  return value;
}

int to_int(std::string_view text, int64_t min, int64_t max) {
  return static_cast<int>(parse_int(text, min, max));
}

void set_cgroup(JobState& state, std::string_view value) {
  if (value.empty() || value.front() == '/') {
    throw JobError(
        fmt::format("cgroup '{}' must be a path relative to the cgroup v2 mount", value));
  }
  for (const std::string_view part : split(value, '/')) {
    if (part == "..") throw JobError(fmt::format("cgroup '{}' must not contain '..'", value));
  }
  state.job.cgroup = std::string(value);
}

// io.max takes "KEY=VALUE ..." with KEY one of rbps, wbps, riops, wiops and VALUE a number
// or "max"; the device is the job's, so it is left out.
void set_cgroup_io_max(JobState& state, std::string_view value) {
  static constexpr std::string_view kKeys[] = {"rbps", "wbps", "riops", "wiops"};
  std::string normalized;
  for (const std::string_view item : split(value, ' ')) {
    if (item.empty()) continue;
    const size_t equals = item.find('=');
    const std::string_view key = item.substr(0, equals);
    if (equals == std::string_view::npos ||
        std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      throw JobError(
          fmt::format("cgroup_io_max item '{}' must be rbps=, wbps=, riops= or wiops= "
                      "followed by a number or 'max'",
                      item));
    }
    const std::string_view limit = item.substr(equals + 1);
    if (limit != "max" && parse_u64(limit) == 0) {
      throw JobError(fmt::format("cgroup_io_max item '{}': a limit of 0 would stop all I/O", item));
    }
    if (!normalized.empty()) normalized += ' ';
    normalized += item;
  }
  if (normalized.empty()) throw JobError("cgroup_io_max needs at least one KEY=VALUE limit");
  state.job.cgroup_io_max = normalized;
}

// fio's list of file or directory names: ':' separates them, except right after a '\', which
// is then dropped, so that a name with a colon (/dev/disk/by-path/pci-0000\:00\:1f.2-ata-1) can
// be given. Other backslashes are part of the name, as in fio.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> names(1);
  for (const char c : text) {
    if (c != ':') {
      names.back() += c;
    } else if (names.back().ends_with('\\')) {
      names.back().back() = ':';
    } else {
      names.emplace_back();
    }
  }
  return names;
}

void set_filename(JobState& state, std::string_view value) {
  state.filenames.clear();
  for (std::string& name : split_names(value)) {
    if (name.empty()) throw JobError(fmt::format("filename '{}' has an empty entry", value));
    state.filenames.push_back(std::move(name));
  }
}

void set_directory(JobState& state, std::string_view value) {
  if (value.empty()) throw JobError("directory needs a path");
  state.directories.clear();
  for (std::string& name : split_names(value)) {
    if (name.empty()) {
      throw JobError(fmt::format("directory '{}' has an empty entry; remove the extra ':'", value));
    }
    state.directories.push_back(std::move(name));
  }
}

void set_start_delay(JobState& state, std::string_view value) {
  if (value.find('-') != std::string_view::npos) {
    throw JobError(fmt::format("a startdelay range ('{}') is not supported by kdio", value));
  }
  state.job.start_delay_ns = parse_time_ns(value, true);
}

void set_file_size(JobState& state, std::string_view value) {
  if (!value.starts_with('(') && value.find('-') != std::string_view::npos) {
    throw JobError(fmt::format("a filesize range ('{}') is not supported by kdio", value));
  }
  state.filesize = parse_size(value, state.kb_base);
}

// fio takes these two spellings only: kb_base=0x400 "failed parsing".
void set_kb_base(JobState& state, std::string_view value) {
  if (value != "1000" && value != "1024") {
    throw JobError(fmt::format("kb_base must be 1000 or 1024, not {}", value));
  }
  state.kb_base = value == "1000" ? 1000 : 1024;
  state.job.kb_base = state.kb_base;
}

// clang-format off
constexpr OptionSpec kOptions[] = {
  {"name", "", false, [](JobState& s, std::string_view v) {
     if (v.empty()) throw JobError("name must not be empty");
     s.job.name = std::string(v);
   }},
  {"description", "", false, [](JobState&, std::string_view) {}},
  {"kb_base", "", false, set_kb_base},
  {"ioengine", "", false, set_engine},
  {"direct", "", false, [](JobState& s, std::string_view v) { s.job.direct = flag(v); }},
  {"buffered", "", false, [](JobState& s, std::string_view v) { s.job.direct = !flag(v); }},
  {"rw", "readwrite", false, set_pattern},
  {"rwmixread", "", false, [](JobState& s, std::string_view v) {
     s.job.rwmix_read_percent = to_int(v, 0, 100);
   }},
  {"rwmixwrite", "", false, [](JobState& s, std::string_view v) {
     s.job.rwmix_read_percent = 100 - to_int(v, 0, 100);
   }},
  {"bs", "blocksize", false, set_block_size},
  {"bsrange", "blocksize_range", false, set_block_size_range},
  {"size", "", false, [](JobState& s, std::string_view v) { s.size = parse_size(v, s.kb_base); }},
  {"filesize", "", false, set_file_size},
  {"io_size", "io_limit", false, [](JobState& s, std::string_view v) {
     s.job.io_size = parse_size(v, s.kb_base);
   }},
  {"filename", "", false, set_filename},
  {"directory", "", false, set_directory},
  {"nrfiles", "nr_files", false, [](JobState& s, std::string_view v) {
     s.nrfiles = to_int(v, 1, kMaxFilesPerJob);
   }},
  {"numjobs", "", false, [](JobState& s, std::string_view v) {
     s.numjobs = to_int(v, 1, kMaxJobs);
   }},
  {"thread", "", true, [](JobState& s, std::string_view v) { s.job.use_threads = flag(v); }},
  {"group_reporting", "", true, [](JobState& s, std::string_view v) {
     s.job.group_reporting = flag(v);
   }},
  {"new_group", "", true, [](JobState& s, std::string_view v) { s.new_group = flag(v); }},
  {"stonewall", "wait_for_previous", true, [](JobState& s, std::string_view v) {
     s.job.stonewall = flag(v);
   }},
  {"runtime", "timeout", false, [](JobState& s, std::string_view v) {
     s.job.runtime_ns = parse_time_ns(v, true);
   }},
  {"time_based", "", true, [](JobState& s, std::string_view v) { s.job.time_based = flag(v); }},
  {"ramp_time", "", false, [](JobState& s, std::string_view v) {
     s.job.ramp_time_ns = parse_time_ns(v, true);
   }},
  {"startdelay", "", false, set_start_delay},
  {"loops", "", false, [](JobState& s, std::string_view v) {
     s.job.loops = std::max(1, to_int(v, 0, kIntMax));  // fio runs loops=0 once
   }},
  {"iodepth", "", false, [](JobState& s, std::string_view v) {
     s.job.iodepth = to_int(v, 1, kMaxDepth);
   }},
  {"iodepth_batch", "iodepth_batch_submit", false, [](JobState& s, std::string_view v) {
     s.job.iodepth_batch_submit = to_int(v, 0, kMaxDepth);
   }},
  {"iodepth_batch_complete_min", "iodepth_batch_complete", false,
   [](JobState& s, std::string_view v) { s.job.iodepth_batch_complete_min = to_int(v, 0, kMaxDepth); }},
  {"iodepth_batch_complete_max", "", false, [](JobState& s, std::string_view v) {
     s.job.iodepth_batch_complete_max = to_int(v, 0, kMaxDepth);
   }},
  {"fsync", "", false, [](JobState& s, std::string_view v) {
     s.job.fsync_every = to_int(v, 0, kIntMax);
   }},
  {"fdatasync", "", false, [](JobState& s, std::string_view v) {
     s.job.fdatasync_every = to_int(v, 0, kIntMax);
   }},
  {"end_fsync", "", false, [](JobState& s, std::string_view v) { s.job.end_fsync = flag(v); }},
  {"fallocate", "", false, set_fallocate},
  {"randrepeat", "", false, [](JobState& s, std::string_view v) { s.job.rand_repeat = flag(v); }},
  {"randseed", "", false, [](JobState& s, std::string_view v) {
     s.job.rand_seed = parse_u64(v);
     s.randseed_given = true;
   }},
  {"norandommap", "", true, [](JobState& s, std::string_view v) { s.job.norandommap = flag(v); }},
  {"invalidate", "", false, [](JobState& s, std::string_view v) { s.job.invalidate = flag(v); }},
  {"rate", "", false, [](JobState& s, std::string_view v) {
     for_each_direction(v, [&](size_t d, std::string_view part) {
       const uint64_t rate = parse_size(part, s.kb_base);
       if (d < 2) s.job.rate_bytes_per_sec[d] = rate;
     });
   }},
  // fio reads an IOPS rate as it reads a size, with kb_base: rate_iops=1k is 1024 (or 1000).
  {"rate_iops", "", false, [](JobState& s, std::string_view v) {
     for_each_direction(v, [&](size_t d, std::string_view part) {
       const uint64_t rate = parse_size(part, s.kb_base);
       if (d < 2) s.job.rate_iops[d] = rate;
     });
   }},
  {"cgroup", "", false, set_cgroup},
  {"cgroup_io_max", "", false, set_cgroup_io_max},
  {"sync_lat_log", "", true, [](JobState& s, std::string_view v) { s.job.sync_lat_log = flag(v); }},
  {"hipri", "", true, [](JobState& s, std::string_view v) { s.job.hipri = flag(v); }},
  {"fixedbufs", "", true, [](JobState& s, std::string_view v) { s.job.fixedbufs = flag(v); }},
  {"registerfiles", "", true, [](JobState& s, std::string_view v) {
     s.job.registerfiles = flag(v);
   }},
  {"sqthread_poll", "", true, [](JobState& s, std::string_view v) {
     s.job.sqthread_poll = flag(v);
   }},
};
// clang-format on

// Options and aliases of fio 3.33 (`fio --cmdhelp=all`, `--enghelp=io_uring`, `--enghelp=libaio`)
// that kdio does not implement. They are refused by name rather than run with different
// semantics; OPTIONS.md lists them.
constexpr std::string_view kUnsupportedFioOptions[] = {
    "allow_file_create",
    "allow_mounted_write",
    "allrandrepeat",
    "atomic",
    "ba",
    "blockalign",
    "block_error_percentiles",
    "blocksize_unaligned",
    "bs_unaligned",
    "bssplit",
    "buffer_compress_chunk",
    "buffer_compress_percentage",
    "buffer_pattern",
    "bwavgtime",
    "cgroup_nodelete",
    "cgroup_weight",
    "clat_percentiles",
    "clocksource",
    "cmd_type",
    "cmdprio",
    "cmdprio_bssplit",
    "cmdprio_class",
    "cmdprio_percentage",
    "continue_on_error",
    "cpumask",
    "cpus_allowed",
    "cpus_allowed_policy",
    "create_fsync",
    "create_on_open",
    "create_only",
    "create_serialize",
    "dedupe_global",
    "dedupe_mode",
    "dedupe_percentage",
    "dedupe_working_set_percentage",
    "disable_bw",
    "disable_bw_measurement",
    "disable_clat",
    "disable_lat",
    "disable_slat",
    "disk_util",
    "do_verify",
    "error_dump",
    "exec_postrun",
    "exec_prerun",
    "exit_what",
    "exitall",
    "exitall_on_error",
    "experimental_verify",
    "fadvise_hint",
    "file_append",
    "file_service_type",
    "filename_format",
    "fileoffset",
    "fill_device",
    "fill_fs",
    "flow",
    "flow_id",
    "flow_sleep",
    "force_async",
    "fsync_on_close",
    "gid",
    "gtod_cpu",
    "gtod_reduce",
    "ignore_error",
    "ignore_zone_limits",
    "io_submit_mode",
    "iodepth_low",
    "iomem",
    "iopsavgtime",
    "ioscheduler",
    "job_max_open_zones",
    "lat_percentiles",
    "latency_percentile",
    "latency_run",
    "latency_target",
    "latency_window",
    "lockfile",
    "lockmem",
    "log_alternate_epoch",
    "log_alternate_epoch_clock_id",
    "log_avg_msec",
    "log_compression",
    "log_compression_cpus",
    "log_entries",
    "log_hist_coarseness",
    "log_hist_msec",
    "log_max_value",
    "log_offset",
    "log_prio",
    "log_store_compressed",
    "log_unix_epoch",
    "max_latency",
    "max_open_zones",
    "mem",
    "merge_blktrace_file",
    "merge_blktrace_iters",
    "merge_blktrace_scalars",
    "nice",
    "nonvectored",
    "nowait",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "number_ios",
    "offset",
    "offset_align",
    "offset_increment",
    "opendir",
    "openfiles",
    "overwrite",
    "per_job_logs",
    "percentage_random",
    "percentile_list",
    "pre_read",
    "prio",
    "prioclass",
    "profile",
    "random_distribution",
    "random_generator",
    "rate_cycle",
    "rate_ignore_thinktime",
    "rate_iops_min",
    "rate_min",
    "rate_process",
    "ratecycle",
    "ratemin",
    "read_beyond_wp",
    "read_iolog",
    "read_iolog_chunked",
    "refill_buffers",
    "replay_align",
    "replay_no_stall",
    "replay_redirect",
    "replay_scale",
    "replay_skip",
    "replay_time_scale",
    "rw_sequencer",
    "scramble_buffers",
    "serialize_overlap",
    "significant_figures",
    "slat_percentiles",
    "sqthread_poll_cpu",
    "ss",
    "ss_dur",
    "ss_ramp",
    "stats",
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
    "sync",
    "sync_file_range",
    "thinktime",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "thinktime_iotime",
    "thinktime_spin",
    "trim_backlog",
    "trim_backlog_batch",
    "trim_percentage",
    "trim_verify_zero",
    "uid",
    "uncached",
    "unified_rw_reporting",
    "unique_filename",
    "unit_base",
    "unlink",
    "unlink_each_loop",
    "userspace_reap",
    "verify",
    "verify_async",
    "verify_backlog",
    "verify_backlog_batch",
    "verify_dump",
    "verify_fatal",
    "verify_interval",
    "verify_offset",
    "verify_only",
    "verify_pattern",
    "verify_state_load",
    "verify_state_save",
    "wait_for",
    "write_barrier",
    "write_bw_log",
    "write_hint",
    "write_hist_log",
    "write_iolog",
    "write_iops_log",
    "write_lat_log",
    "zero_buffers",
    "zone_reset_frequency",
    "zone_reset_threshold",
    "zonecapacity",
    "zonemode",
    "zonerange",
    "zonesize",
    "zoneskip",
};

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& spec : kOptions) {
    if (name == spec.name || (!spec.alias.empty() && name == spec.alias)) return &spec;
  }
  return nullptr;
}

[[noreturn]] void unknown_option(const IniOption& option) {
  if (std::find(std::begin(kUnsupportedFioOptions), std::end(kUnsupportedFioOptions), option.key) !=
      std::end(kUnsupportedFioOptions)) {
    throw JobError(
        fmt::format("{}: fio option '{}' is not supported by kdio (see "
                    "workloads/kdio/OPTIONS.md)",
                    option.where, option.key));
  }
  const auto near = closest_match(option.key, supported_option_names());
  throw JobError(fmt::format("{}: unknown option '{}'{}", option.where, option.key,
                             near ? fmt::format("; did you mean '{}'?", *near) : ""));
}

// The options whose values take units (sizes, times, rates): fio reads such a value after a
// blank (`bs= 8k`, `size = 1g`) as the bare number, 8 bytes and 1 byte.
bool takes_units(const OptionSpec& spec) {
  static constexpr std::string_view kWithUnits[] = {
      "bs",      "bsrange",   "size",       "filesize", "io_size",
      "runtime", "ramp_time", "startdelay", "rate",     "rate_iops"};
  return std::ranges::find(kWithUnits, spec.name) != std::end(kWithUnits);
}

}  // namespace

void apply_option(JobState& state, const IniOption& option) {
  const OptionSpec* spec = find_option(option.key);
  if (spec == nullptr) unknown_option(option);
  if (!option.value && !spec->may_stand_alone) {
    throw JobError(fmt::format("{}: option '{}' needs a value: {}=VALUE", option.where, option.key,
                               option.key));
  }
  try {
    if (option.blank_after_equals != 0 && takes_units(*spec)) {
      check_no_unit_after_blank(*option.value, option.blank_after_equals, " after '='");
    }
    spec->apply(state, option.value ? *option.value : "1");
  } catch (const JobError& e) {
    throw JobError(fmt::format("{}: option '{}': {}", option.where, option.key, e.what()));
  }
  state.where[std::string(spec->name)] = option.where;
  state.job.given_options[option.key] = option.value.value_or("");
}

bool option_needs_value(std::string_view key) {
  const OptionSpec* spec = find_option(key);
  return spec != nullptr && !spec->may_stand_alone;
}

bool is_kb_base(const IniOption& option) {
  return option.key == "kb_base";
}

std::string canonical_option_name(std::string_view key) {
  const OptionSpec* spec = find_option(key);
  return std::string(spec != nullptr ? spec->name : key);
}

std::vector<std::string> supported_option_names() {
  std::vector<std::string> names;
  for (const OptionSpec& spec : kOptions) {
    names.emplace_back(spec.name);
    if (!spec.alias.empty()) names.emplace_back(spec.alias);
  }
  return names;
}

std::vector<std::string> unsupported_fio_option_names() {
  return {std::begin(kUnsupportedFioOptions), std::end(kUnsupportedFioOptions)};
}

}  // namespace kdio
