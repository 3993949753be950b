#include "kdio/jobfile.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "kdio/options.h"

extern char** environ;

namespace kdio {
namespace {

constexpr uint64_t kSectorSize = 512;
constexpr size_t kMaxJobs = 4096;    // fio's limit on jobs, clones included
constexpr size_t kMaxFiles = 65536;  // paths over all jobs, so a typo cannot exhaust memory
constexpr std::string_view kCommandLine = "<command line>";

[[noreturn]] void fail_at(const std::string& where, const std::string& message) {
  throw JobError(fmt::format("{}: {}", where, message));
}

bool is_sync_engine(Engine engine) {
  return engine == Engine::kPsync || engine == Engine::kSync;
}

// Where an option was set, or the job's own header if it was not.
std::string where_of(const JobState& state, const std::string& option, const std::string& job) {
  const auto found = state.where.find(option);
  return found == state.where.end() ? job : found->second;
}

// Turns the options of one job into its clones, numbering reporting groups as fio's add_job().
class Builder {
 public:
  void add_section(const IniSection& section, bool stonewall) {
    if (section.name == "global") {
      apply_all(global_, section.options);
      return;
    }
    JobState state = global_;
    apply_all(state, section.options);
    if (stonewall) state.job.stonewall = true;
    add_job(std::move(state), section.name, section.where);
  }

  JobState& global() { return global_; }

  // As fio: each job file starts from the defaults, not from an earlier file's [global] (whose
  // filename= could name another file's device).
  void start_file() { global_ = JobState{}; }

  void add_job(JobState state, const std::string& base_name, const std::string& where) {
    if (state.job.name.empty()) state.job.name = base_name;
    Job job = finish(state, where);
    job.directories = state.directories;
    if ((job.stonewall || state.new_group) && jobs_in_group_ > 0) {
      ++group_id_;
      jobs_in_group_ = 0;
    }
    if (out_.jobs.size() + static_cast<size_t>(state.numjobs) > kMaxJobs) {
      fail_at(where_of(state, "numjobs", where),
              fmt::format("more than {} jobs in all (fio's limit too)", kMaxJobs));
    }
    for (int clone = 0; clone < state.numjobs; ++clone) {
      Job copy = job;
      copy.clone_index = clone;
      copy.group_id = group_id_;
      copy.stonewall = clone == 0 && job.stonewall;  // fio clears it on clones
      copy.files = files_for(state, base_name, clone);
      files_ += copy.files.size();
      if (files_ > kMaxFiles) {
        fail_at(where_of(state, "nrfiles", where),
                fmt::format("more than {} files in all; use fewer jobs or files", kMaxFiles));
      }
      out_.jobs.push_back(std::move(copy));
      ++jobs_in_group_;
    }
  }

  JobFile take(const std::string& where) {
    if (out_.jobs.empty()) fail_at(where, "no jobs defined; add a [job] section (or --name=)");
    return std::move(out_);
  }

 private:
  static void apply_all(JobState& state, const std::vector<IniOption>& options) {
    for (const IniOption& option : options) {
      if (is_kb_base(option)) apply_option(state, option);
    }
    for (const IniOption& option : options) {
      if (!is_kb_base(option)) apply_option(state, option);
    }
  }

  // A [global] line shared by several jobs warns once.
  void warn(const std::string& where, const std::string& message) {
    std::string warning = fmt::format("{}: warning: {}", where, message);
    if (std::find(out_.warnings.begin(), out_.warnings.end(), warning) == out_.warnings.end()) {
      out_.warnings.push_back(std::move(warning));
    }
  }

  Job finish(JobState& state, const std::string& where) {
    Job& job = state.job;
    for (int direction = 0; direction < 2; ++direction) {
      job.block_size[direction] = state.bsrange[direction].value_or(
          BlockSizeRange{state.bs[direction], state.bs[direction]});
    }
    check_block_sizes(state, where);
    check_engine(state, where);
    check_timing_and_rates(state, where);
    size_files(state, where);
    // fio: a batch of 0 or above the depth means the depth; max completions at least min.
    if (job.iodepth_batch_submit == 0 || job.iodepth_batch_submit > job.iodepth) {
      job.iodepth_batch_submit = job.iodepth;
    }
    job.iodepth_batch_complete_max =
        std::max(job.iodepth_batch_complete_max, job.iodepth_batch_complete_min);
    if (state.randseed_given) job.rand_repeat = true;  // fio: randseed overrides randrepeat
    return job;
  }

  void check_block_sizes(const JobState& state, const std::string& where) {
    const Job& job = state.job;
    const std::string bs_where =
        where_of(state, state.bsrange[0] || state.bsrange[1] ? "bsrange" : "bs", where);
    for (int direction = 0; direction < 2; ++direction) {
      const bool used = direction == 0 ? reads(job.pattern) : writes(job.pattern);
      const BlockSizeRange& range = job.block_size[direction];
      if (!used) continue;
      if (range.max > kMaxBlockSize) {
        fail_at(bs_where, fmt::format("{} block size {} is above kdio's limit of 1g ({} bytes)",
                                      direction == 0 ? "read" : "write", range.max, kMaxBlockSize));
      }
      if (!job.direct) continue;
      for (const uint64_t size : {range.min, range.max}) {
        if (size % kSectorSize != 0) {
          fail_at(bs_where,
                  fmt::format("{} block size {} is not a multiple of {}, which direct=1 (O_DIRECT) "
                              "needs{}",
                              direction == 0 ? "read" : "write", size, kSectorSize,
                              size % 1000 != 0        ? ""
                              : state.kb_base == 1000 ? " (note: with kb_base=1000, k means 1000 "
                                                        "bytes; write 4KiB for 4096)"
                                                      : " (note: with kb_base=1024, KiB means 1000 "
                                                        "bytes in fio; write 4k for 4096)"));
        }
      }
    }
  }

  void check_engine(JobState& state, const std::string& where) {
    Job& job = state.job;
    if (job.engine != Engine::kIoUring) {
      for (const char* option : {"hipri", "fixedbufs", "registerfiles", "sqthread_poll"}) {
        if (state.where.contains(option)) {
          fail_at(state.where[option],
                  fmt::format("option '{}' is only valid with ioengine=io_uring", option));
        }
      }
    }
    if (job.engine == Engine::kLibaio && !job.direct) {
      warn(where_of(state, "ioengine", where),
           "ioengine=libaio without direct=1 does buffered I/O, which completes synchronously "
           "(as in fio)");
    }
    if (is_sync_engine(job.engine) && job.iodepth > 1) {
      warn(where_of(state, "iodepth", where),
           fmt::format("iodepth={} has no effect with a synchronous ioengine; running at depth 1 "
                       "(fio ignores it too)",
                       job.iodepth));
      job.iodepth = 1;
    }
  }

  static void check_timing_and_rates(const JobState& state, const std::string& where) {
    const Job& job = state.job;
    if (job.time_based && job.runtime_ns == 0) {
      fail_at(where_of(state, "time_based", where), "time_based needs runtime= as well");
    }
    const bool by_bytes = job.rate_bytes_per_sec[0] != 0 || job.rate_bytes_per_sec[1] != 0;
    const bool by_iops = job.rate_iops[0] != 0 || job.rate_iops[1] != 0;
    if (by_bytes && by_iops) {
      fail_at(where_of(state, "rate_iops", where), "rate and rate_iops are mutually exclusive");
    }
  }

  void size_files(JobState& state, const std::string& where) {
    Job& job = state.job;
    if (!state.directories.empty()) {
      for (const std::string& name : state.filenames) {
        if (name.front() == '/') {
          fail_at(where_of(state, "filename", where),
                  fmt::format("filename '{}' is absolute, so directory={} would not apply; drop "
                              "one of them",
                              name, state.directories.front()));
        }
      }
    }
    if (!state.filenames.empty() && state.where.contains("nrfiles") &&
        static_cast<size_t>(state.nrfiles) != state.filenames.size()) {
      warn(where_of(state, "nrfiles", where),
           fmt::format("nrfiles={} but filename= lists {} file(s); using the listed files (as "
                       "fio does)",
                       state.nrfiles, state.filenames.size()));
    }
    const uint64_t files =
        state.filenames.empty() ? static_cast<uint64_t>(state.nrfiles) : state.filenames.size();
    if (state.filesize != 0) {
      job.file_size = state.filesize;
      // As in fio: size stays the amount of I/O, filesize only sizes the files; but no more
      // than the files hold (fio's setup_files() cuts size to their total).
      if (state.size != 0 && job.io_size == 0) {
        job.io_size = state.filesize > UINT64_MAX / files
                          ? state.size
                          : std::min(state.size, files * state.filesize);
      }
    } else {
      job.file_size = state.size / files;
    }
    if (job.file_size == 0 && state.filenames.empty()) {
      fail_at(where,
              fmt::format("job '{}' needs size= (or filesize=) to create its files", job.name));
    }
    const uint64_t min_bs = std::min(job.block_size[0].min, job.block_size[1].min);
    if (state.size != 0 && state.size < min_bs) {
      fail_at(where_of(state, "size", where),
              fmt::format("size {} is smaller than the block size {}", state.size, min_bs));
    }
    if (job.file_size != 0 && job.file_size < min_bs) {
      fail_at(
          where_of(state, state.filesize != 0 ? "filesize" : "size", where),
          fmt::format("each of the {} file(s) would be {} bytes, smaller than the block size {}",
                      files, job.file_size, min_bs));
    }
  }

  // As fio: with several directories the clones take turns, clone N using directory N modulo
  // their number; filename= files, which all clones share, are in the first directory.
  static std::string directory_for(const JobState& state, int clone) {
    if (state.directories.empty()) return "";
    return state.directories[static_cast<size_t>(clone) % state.directories.size()];
  }

  static std::string in_directory(const std::string& directory, const std::string& name) {
    if (directory.empty()) return name;
    return directory.back() == '/' ? directory + name : directory + '/' + name;
  }

  static std::vector<std::string> files_for(const JobState& state, const std::string& base_name,
                                            int clone) {
    std::vector<std::string> files;
    if (!state.filenames.empty()) {
      const std::string directory = directory_for(state, 0);
      for (const std::string& name : state.filenames) {
        files.push_back(in_directory(directory, name));
      }
      return files;
    }
    const std::string directory = directory_for(state, clone);
    // fio's default filename_format, $jobname.$jobnum.$filenum
    for (int index = 0; index < state.nrfiles; ++index) {
      files.push_back(in_directory(directory, fmt::format("{}.{}.{}", base_name, clone, index)));
    }
    return files;
  }

  JobState global_;
  JobFile out_;
  int group_id_ = 0;
  int jobs_in_group_ = 0;
  size_t files_ = 0;
};

std::string strip_dashes(std::string_view arg) {
  while (arg.starts_with('-')) arg.remove_prefix(1);
  return std::string(arg);
}

void parse_sections(Builder& builder, const std::vector<IniSection>& sections,
                    bool stonewall_first) {
  for (const IniSection& section : sections) {
    const bool is_job = section.name != "global";
    builder.add_section(section, stonewall_first && is_job);
    if (is_job) stonewall_first = false;
  }
}

}  // namespace

JobFile parse_job_text(std::string_view text, const std::string& file_name, const Environment& env,
                       const FileReader& read_file) {
  Builder builder;
  parse_sections(builder, read_ini(IniText{text, file_name}, env, read_file), false);
  return builder.take(file_name);
}

JobFile parse_job_files(const std::vector<std::string>& paths, const Environment& env,
                        const FileReader& read_include) {
  Builder builder;
  for (size_t i = 0; i < paths.size(); ++i) {
    builder.start_file();
    const std::string text = read_file_from_disk(paths[i]);
    parse_sections(builder, read_ini(IniText{text, paths[i]}, env, read_include), i > 0);
  }
  return builder.take(paths.empty() ? std::string(kCommandLine) : paths.back());
}

JobFile parse_command_line_jobs(const std::vector<std::string>& args) {
  Builder builder;
  struct Pending {
    JobState state;
    std::string name;
    std::string where;
  };
  std::optional<Pending> job;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string where = fmt::format("{}: {}", kCommandLine, arg);
    check_utf8(arg, where);
    if (!arg.starts_with('-') || arg == "-" || arg == "--") {
      fail_at(where, "expected a job option like --rw=randread (job files are read separately)");
    }
    const std::string text = strip_dashes(arg);
    const size_t equals = text.find('=');
    IniOption option{text.substr(0, equals), std::nullopt, where};
    if (equals != std::string::npos) {
      option.value = text.substr(equals + 1);
    } else if (option_needs_value(option.key) && i + 1 < args.size() &&
               !args[i + 1].starts_with("--")) {
      option.value = args[++i];
      option.where = fmt::format("{} {}", where, *option.value);
      check_utf8(*option.value, option.where);
    }
    if (option.key == "name") {
      if (!option.value || option.value->empty()) fail_at(where, "--name needs a job name");
      if (job) builder.add_job(std::move(job->state), job->name, job->where);
      job = Pending{builder.global(), *option.value, option.where};
    }
    apply_option(job ? job->state : builder.global(), option);
  }
  if (job) builder.add_job(std::move(job->state), job->name, job->where);
  return builder.take(std::string(kCommandLine));
}

Environment process_environment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

std::string read_file_from_disk(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw JobError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::string text;
  char buffer[65536];
  size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) text.append(buffer, got);
  if (std::ferror(file.get())) {
    throw JobError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  return text;
}

}  // namespace kdio
