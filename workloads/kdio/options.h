// The table of fio options kdio understands, and the per-job state they are applied to. A
// JobState is what fio calls a job's options before add_job(): [global] sections build one up,
// and each [job] section starts from a copy of it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kdio/ini.h"
#include "kdio/job.h"

namespace kdio {

struct JobState {
  Job job;  // the options that map one to one onto Job
  int kb_base = 1024;
  uint64_t bs[2] = {4096, 4096};             // per Direction, from bs=
  std::optional<BlockSizeRange> bsrange[2];  // per Direction, from bsrange= (wins over bs)
  uint64_t size = 0;                         // per job, 0 = not given
  uint64_t filesize = 0;                     // per file, 0 = not given
  int numjobs = 1;
  int nrfiles = 1;
  std::vector<std::string> filenames;    // from filename=, ':' separated, '\:' unescaped
  std::vector<std::string> directories;  // from directory=, the same way
  bool new_group = false;
  bool randseed_given = false;
  // Where each option (canonical name) was last set, "FILE:LINE", for errors that combine them.
  std::map<std::string, std::string> where;
};

// Applies one `key[=value]` to `state`. Unknown options, options fio has but kdio does not
// implement, and bad values are errors at option.where.
void apply_option(JobState& state, const IniOption& option);

// True for a known option that cannot stand alone (so `--bs 4k` takes the next argument).
bool option_needs_value(std::string_view key);

// kb_base changes how every size in its section is read, so fio applies it first; so do we.
bool is_kb_base(const IniOption& option);

// The name fio stores an option under (its JSON "job options"): "bs" for "blocksize"; an
// unknown name is returned as it is.
std::string canonical_option_name(std::string_view key);

// Every option name (and alias) kdio accepts, for "did you mean" and the documentation test.
std::vector<std::string> supported_option_names();

// The fio options and aliases kdio refuses by name, for the documentation test.
std::vector<std::string> unsupported_fio_option_names();

}  // namespace kdio
