#include "kdio/options.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kdio/jobfile.h"
#include "kdio/value.h"

namespace kdio {
namespace {

JobState apply(std::initializer_list<std::pair<std::string, std::optional<std::string>>> options) {
  JobState state;
  int line = 0;
  for (const auto& [key, value] : options) {
    apply_option(state, IniOption{key, value, "t.fio:" + std::to_string(++line)});
  }
  return state;
}

std::string error_of(const std::string& key, std::optional<std::string> value) {
  try {
    apply({{key, value}});
  } catch (const JobError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ApplyOption, BlockSizePerDirection) {
  JobState state = apply({{"bs", "8k"}});
  EXPECT_EQ(state.bs[0], 8192u);
  EXPECT_EQ(state.bs[1], 8192u);
  state = apply({{"bs", "4k,64k"}});
  EXPECT_EQ(state.bs[0], 4096u);
  EXPECT_EQ(state.bs[1], 65536u);
  state = apply({{"bs", "16k"}, {"blocksize", ",8k"}});
  EXPECT_EQ(state.bs[0], 16384u);
  EXPECT_EQ(state.bs[1], 8192u);
  state = apply({{"bs", "8k,32k,"}});  // trailing comma: trims keep the default
  EXPECT_EQ(state.bs[1], 32768u);
  EXPECT_EQ(error_of("bs", "4k,4k,4k,4k"),
            "t.fio:1: option 'bs': '4k,4k,4k,4k' has more than three comma-separated values "
            "(read, write, trim), and fio ignores the fourth; remove it");
  EXPECT_EQ(error_of("bs", "4k,,,8k"),
            "t.fio:1: option 'bs': '4k,,,8k' has more than three comma-separated values "
            "(read, write, trim), and fio ignores the fourth; remove it");
  EXPECT_EQ(error_of("bs", "4k-8k"),
            "t.fio:1: option 'bs': '4k-8k': fio takes '-' and ':' in bs= as the separator of the "
            "read and write sizes, not as a range; write bs=READ,WRITE for sizes per direction, "
            "or bsrange=MIN-MAX for a range");
  EXPECT_EQ(error_of("bs", "0"), "t.fio:1: option 'bs': '0' must be greater than zero");
  EXPECT_EQ(apply({{"bs", "(1m-512k)"}}).bs[1], 512u << 10) << "an expression is not a range";
}

// fio 3.33 runs bs=2k,,4k, bs=8k,,, bs=4k,8k,16k, and bs=4k,8k,16k,, as if the commas after
// the third value were not there ("bs=(R) 4096B-4096B, (W) 8192B-8192B, (T) 16.0KiB-16.0KiB").
TEST(ApplyOption, EmptyPartsAfterTheThirdValueAreIgnored) {
  JobState state = apply({{"bs", "2k,,4k,"}});
  EXPECT_EQ(state.bs[0], 2048u);
  EXPECT_EQ(state.bs[1], 4096u);
  state = apply({{"bs", "8k,,,"}});
  EXPECT_EQ(state.bs[0], 8192u);
  EXPECT_EQ(state.bs[1], 4096u);
  state = apply({{"bs", "4k,8k,16k,"}});
  EXPECT_EQ(state.bs[1], 8192u);
  EXPECT_EQ(apply({{"bs", "4k,8k,16k, ,"}}).bs[1], 8192u);
  state = apply({{"rate_iops", "100k,100k,100k,"}});
  EXPECT_EQ(state.job.rate_iops[0], 102400u);
  EXPECT_EQ(state.job.rate_iops[1], 102400u);
  EXPECT_EQ(error_of("bs", ",,,"),
            "t.fio:1: option 'bs': ',,,' gives no value for any direction; use R[,W[,T]] with at "
            "least one of read, write, trim");
}

TEST(ApplyOption, BlockSizeRange) {
  JobState state = apply({{"bsrange", "64k-4k,8k:16k"}});
  ASSERT_TRUE(state.bsrange[0] && state.bsrange[1]);
  EXPECT_EQ(state.bsrange[0]->min, 4096u);  // swapped, as fio does
  EXPECT_EQ(state.bsrange[0]->max, 65536u);
  EXPECT_EQ(state.bsrange[1]->min, 8192u);
  EXPECT_EQ(state.bsrange[1]->max, 16384u);
  EXPECT_EQ(error_of("bsrange", "4k"),
            "t.fio:1: option 'bsrange': '4k' is not a range like "
            "4k-64k");
}

// fio 3.33 refuses these ("failed parsing bs="); running at the defaults would hide a ${VAR}
// that expanded to nothing.
TEST(ApplyOption, PerDirectionValueWithNoPartIsAnError) {
  for (const char* key : {"bs", "blocksize", "bsrange", "rate", "rate_iops"}) {
    for (const char* value : {"", ",", ",,"}) {
      EXPECT_EQ(error_of(key, value),
                fmt::format("t.fio:1: option '{}': '{}' gives no value for any direction; use "
                            "R[,W[,T]] with at least one of read, write, trim",
                            key, value));
    }
  }
  // As in fio, a list with one part given is fine; the empty parts keep the current value.
  EXPECT_EQ(apply({{"bs", "8k"}, {"bs", ",,16k"}}).bs[1], 8192u);
  EXPECT_EQ(apply({{"rate", ",1m,"}}).job.rate_bytes_per_sec[1], 1u << 20);
  EXPECT_TRUE(apply({{"bsrange", ",4k-8k"}}).bsrange[1]);
}

// fio 3.33 reads a part of blanks alone as an empty part, which keeps the current value:
// `fio --debug=parse --parse-only ... --rate='1m, ,2m'` parses 1m, fails ' ' and goes on, and
// --bs='8k, ,16k' runs at "(R) 8192B-8192B, (W) 4096B-4096B, (T) 16.0KiB-16.0KiB".
TEST(ApplyOption, ABlankPerDirectionPartKeepsTheValue) {
  JobState state = apply({{"bs", "8k, ,16k"}});
  EXPECT_EQ(state.bs[0], 8192u);
  EXPECT_EQ(state.bs[1], 4096u);
  state = apply({{"bs", "16k"}, {"bs", " ,8k"}});
  EXPECT_EQ(state.bs[0], 16384u);
  EXPECT_EQ(state.bs[1], 8192u);
  EXPECT_EQ(apply({{"bs", "8k,\t"}}).bs[1], 4096u);
  state = apply({{"rate", "1m, ,2m"}});
  EXPECT_EQ(state.job.rate_bytes_per_sec[0], 1u << 20);
  EXPECT_EQ(state.job.rate_bytes_per_sec[1], 0u);
  EXPECT_EQ(apply({{"rate_iops", "10, ,20"}}).job.rate_iops[1], 0u);
  EXPECT_TRUE(apply({{"bsrange", "4k-8k, ,16k-32k"}}).bsrange[0]);
  // fio: "failed parsing bs=, ".
  EXPECT_EQ(error_of("bs", ", "),
            "t.fio:1: option 'bs': ', ' gives no value for any direction; use R[,W[,T]] with at "
            "least one of read, write, trim");
}

// fio 3.33 on blanks around a per-direction value: after it they do not count (--bs='8k ,16k'
// and --bsrange='4k -8k' run at 8k and 4k-8k); before it fio drops the unit (--bs='8k, 16k'
// runs at "(W) 16B-16B", --bsrange='4k-8k, 16k-32k' at "(W) 16B-32.0KiB"), unless there is
// none (--debug=parse shows rate_iops='10, 20' as "ptr= 20 ... out=20").
TEST(ApplyOption, BlanksAroundAPerDirectionValue) {
  JobState state = apply({{"bs", "8k \t,16k"}});
  EXPECT_EQ(state.bs[0], 8192u);
  EXPECT_EQ(state.bs[1], 16384u);
  state = apply({{"bsrange", "4k -8k,16k- 32768"}});
  ASSERT_TRUE(state.bsrange[0] && state.bsrange[1]);
  EXPECT_EQ(state.bsrange[0]->max, 8192u);
  EXPECT_EQ(state.bsrange[1]->max, 32768u);
  EXPECT_EQ(apply({{"rate_iops", "10, 20"}}).job.rate_iops[1], 20u);
  EXPECT_EQ(error_of("bs", "8k, 16k"),
            "t.fio:1: option 'bs': '16k' follows a space, after which fio reads only the number "
            "and drops the unit; remove that blank");
  EXPECT_EQ(error_of("bsrange", "4k-8k,16k- 32k"),
            "t.fio:1: option 'bsrange': '32k' follows a space, after which fio reads only the "
            "number and drops the unit; remove that blank");
}

// fio's blanks are isspace(): in a job file bs=8k,<VT>16k runs at "(W) 16B-16B" as bs=8k, 16k
// does, and bs=8k<VT>,16k and bs=4k,8k,16k,<VT> as if the vertical tab were not there.
TEST(ApplyOption, CarriageReturnFormFeedAndVerticalTabAreBlanks) {
  JobState state = apply({{"bs", "8k\v,16k\f"}});
  EXPECT_EQ(state.bs[0], 8192u);
  EXPECT_EQ(state.bs[1], 16384u);
  EXPECT_EQ(apply({{"bs", "4k,8k,16k,\v"}}).bs[1], 8192u);
  EXPECT_EQ(apply({{"bs", "4k,\r,16k"}}).bs[1], 4096u);
  EXPECT_EQ(apply({{"rate_iops", "10,\f20"}}).job.rate_iops[1], 20u);
  EXPECT_EQ(error_of("bs", "8k,\v16k"),
            "t.fio:1: option 'bs': '16k' follows a vertical tab (\\v), after which fio reads "
            "only the number and drops the unit; remove that blank");
  EXPECT_EQ(error_of("bs", "8k,\f16k"),
            "t.fio:1: option 'bs': '16k' follows a form feed (\\f), after which fio reads only "
            "the number and drops the unit; remove that blank");
  EXPECT_EQ(error_of("bs", "8k,\r16k"),
            "t.fio:1: option 'bs': '16k' follows a carriage return (\\r), after which fio reads "
            "only the number and drops the unit; remove that blank");
  EXPECT_EQ(error_of("bs", "8k,\t16k"),
            "t.fio:1: option 'bs': '16k' follows a tab, after which fio reads only the number and "
            "drops the unit; remove that blank");
}

TEST(ApplyOption, KbBaseChangesSuffixes) {
  JobState state = apply({{"kb_base", "1000"}, {"size", "1m"}, {"bs", "4KiB"}});
  EXPECT_EQ(state.size, 1000000u);
  EXPECT_EQ(state.bs[0], 4096u);
  EXPECT_EQ(state.job.kb_base, 1000);  // for the units of the normal output
  EXPECT_EQ(error_of("kb_base", "0x400"),
            "t.fio:1: option 'kb_base': kb_base must be 1000 or 1024, not 0x400");
  EXPECT_EQ(error_of("kb_base", "1010"),
            "t.fio:1: option 'kb_base': kb_base must be 1000 or "
            "1024, not 1010");
}

TEST(ApplyOption, DirectAndBufferedAreOneSetting) {
  EXPECT_TRUE(apply({{"direct", "1"}}).job.direct);
  EXPECT_FALSE(apply({{"direct", "1"}, {"buffered", "1"}}).job.direct);
  EXPECT_TRUE(apply({{"buffered", "0"}}).job.direct);
}

TEST(ApplyOption, RwMixLastOneWins) {
  EXPECT_EQ(apply({}).job.rwmix_read_percent, 50);
  EXPECT_EQ(apply({{"rwmixread", "70"}}).job.rwmix_read_percent, 70);
  EXPECT_EQ(apply({{"rwmixread", "70"}, {"rwmixwrite", "10"}}).job.rwmix_read_percent, 90);
  EXPECT_EQ(error_of("rwmixread", "101"),
            "t.fio:1: option 'rwmixread': 101 is out of range; "
            "allowed 0..100");
}

TEST(ApplyOption, PatternsAndEngines) {
  EXPECT_EQ(apply({{"rw", "randrw"}}).job.pattern, Pattern::kRandReadWrite);
  EXPECT_EQ(apply({{"readwrite", "rw"}}).job.pattern, Pattern::kReadWrite);
  EXPECT_EQ(apply({{"rw", "readwrite"}}).job.pattern, Pattern::kReadWrite);
  EXPECT_EQ(apply({{"rw", "randwrite"}}).job.pattern, Pattern::kRandWrite);
  EXPECT_EQ(apply({{"ioengine", "io_uring"}}).job.engine, Engine::kIoUring);
  EXPECT_EQ(apply({{"ioengine", "sync"}}).job.engine, Engine::kSync);
  EXPECT_EQ(apply({{"ioengine", "libaio"}}).job.engine, Engine::kLibaio);
  EXPECT_EQ(error_of("rw", "randreed"),
            "t.fio:1: option 'rw': unknown rw 'randreed' (did you "
            "mean 'randread'?); use read, write, randread, randwrite, "
            "rw, readwrite or randrw");
  EXPECT_EQ(error_of("rw", "randtrim"),
            "t.fio:1: option 'rw': rw=randtrim is not supported by "
            "kdio (no trims)");
  EXPECT_EQ(error_of("rw", "randread:8"),
            "t.fio:1: option 'rw': rw modifier in 'randread:8' "
            "(the ':N' part) is not supported by kdio");
  EXPECT_EQ(error_of("ioengine", "iouring"),
            "t.fio:1: option 'ioengine': ioengine 'iouring' is "
            "not supported by kdio (did you mean 'io_uring'?); "
            "use psync, sync, libaio or io_uring");
  EXPECT_EQ(error_of("ioengine", "mmap"),
            "t.fio:1: option 'ioengine': ioengine 'mmap' is not "
            "supported by kdio; use psync, sync, libaio or "
            "io_uring");
}

TEST(ApplyOption, BooleansNeedAValueUnlessFioAllowsBare) {
  EXPECT_EQ(error_of("direct", std::nullopt),
            "t.fio:1: option 'direct' needs a value: direct=VALUE");
  EXPECT_EQ(error_of("end_fsync", std::nullopt),
            "t.fio:1: option 'end_fsync' needs a value: end_fsync=VALUE");
  EXPECT_EQ(error_of("rw", std::nullopt), "t.fio:1: option 'rw' needs a value: rw=VALUE");
  EXPECT_EQ(error_of("direct", "yes"),
            "t.fio:1: option 'direct': 'yes' is not a boolean; use 0 "
            "or 1");
  const JobState state = apply({{"thread", std::nullopt},
                                {"time_based", std::nullopt},
                                {"group_reporting", std::nullopt},
                                {"norandommap", std::nullopt},
                                {"stonewall", std::nullopt},
                                {"new_group", std::nullopt}});
  EXPECT_TRUE(state.job.use_threads);
  EXPECT_TRUE(state.job.time_based);
  EXPECT_TRUE(state.job.group_reporting);
  EXPECT_TRUE(state.job.norandommap);
  EXPECT_TRUE(state.job.stonewall);
  EXPECT_TRUE(state.new_group);
  EXPECT_FALSE(apply({{"thread", "0"}}).job.use_threads);
}

TEST(ApplyOption, Times) {
  const JobState state = apply({{"runtime", "30"}, {"ramp_time", "500ms"}, {"startdelay", "2m"}});
  EXPECT_EQ(state.job.runtime_ns, 30'000'000'000u);
  EXPECT_EQ(state.job.ramp_time_ns, 500'000'000u);
  EXPECT_EQ(state.job.start_delay_ns, 120'000'000'000u);
  EXPECT_EQ(apply({{"timeout", "1h"}}).job.runtime_ns, 3'600'000'000'000u);
  EXPECT_EQ(error_of("runtime", "10sec"),
            "t.fio:1: option 'runtime': time '10sec': fio silently reads the suffix 'sec' as "
            "microseconds; write '10s' instead");
  EXPECT_EQ(error_of("ramp_time", "10min"),
            "t.fio:1: option 'ramp_time': time '10min': fio silently reads the suffix 'min' as "
            "microseconds; write '10m' instead");
  EXPECT_EQ(error_of("startdelay", "1-5"),
            "t.fio:1: option 'startdelay': a startdelay range "
            "('1-5') is not supported by kdio");
}

TEST(ApplyOption, DepthsAndSyncs) {
  const JobState state = apply({{"iodepth", "32"},
                                {"iodepth_batch", "8"},
                                {"iodepth_batch_complete", "4"},
                                {"iodepth_batch_complete_max", "16"},
                                {"fsync", "1"},
                                {"fdatasync", "4"},
                                {"end_fsync", "1"},
                                {"loops", "3"}});
  EXPECT_EQ(state.job.iodepth, 32);
  EXPECT_EQ(state.job.iodepth_batch_submit, 8);
  EXPECT_EQ(state.job.iodepth_batch_complete_min, 4);
  EXPECT_EQ(state.job.iodepth_batch_complete_max, 16);
  EXPECT_EQ(state.job.fsync_every, 1);
  EXPECT_EQ(state.job.fdatasync_every, 4);
  EXPECT_TRUE(state.job.end_fsync);
  EXPECT_EQ(state.job.loops, 3);
  EXPECT_EQ(apply({{"iodepth_batch_submit", "2"}}).job.iodepth_batch_submit, 2);
  EXPECT_EQ(apply({{"loops", "0"}}).job.loops, 1);
  EXPECT_EQ(error_of("iodepth", "0"),
            "t.fio:1: option 'iodepth': 0 is out of range; allowed "
            "1..65536");
  EXPECT_EQ(error_of("numjobs", "four"),
            "t.fio:1: option 'numjobs': 'four' is not a whole "
            "number");
}

TEST(ApplyOption, FilesAndSizes) {
  const JobState state = apply({{"filename", "/dev/nvme0n1:/tmp/a"},
                                {"directory", "/mnt"},
                                {"nr_files", "2"},
                                {"size", "1g"},
                                {"filesize", "64m"},
                                {"io_limit", "10m"}});
  EXPECT_EQ(state.filenames, (std::vector<std::string>{"/dev/nvme0n1", "/tmp/a"}));
  EXPECT_EQ(state.directories, std::vector<std::string>{"/mnt"});
  EXPECT_EQ(state.nrfiles, 2);
  EXPECT_EQ(state.size, 1ull << 30);
  EXPECT_EQ(state.filesize, 64ull << 20);
  EXPECT_EQ(state.job.io_size, 10ull << 20);
  EXPECT_EQ(error_of("filename", "a::b"),
            "t.fio:1: option 'filename': filename 'a::b' has an "
            "empty entry");
  EXPECT_EQ(error_of("filesize", "1m-2m"),
            "t.fio:1: option 'filesize': a filesize range "
            "('1m-2m') is not supported by kdio");
  EXPECT_EQ(apply({{"filesize", "(1g-64m)"}}).filesize, (1ull << 30) - (64ull << 20));
  EXPECT_EQ(apply({{"io_size", "(1g/16)"}}).job.io_size, 64ull << 20);
  EXPECT_EQ(error_of("size", "50%"),
            "t.fio:1: option 'size': size '50%': percentages are not "
            "supported by kdio");
}

// fio's rule, checked against fio 3.33 (the files it creates): "\:" is a colon in the name,
// any other backslash is kept.
TEST(ApplyOption, FilenameBackslashEscapesAColon) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(apply({{"filename", R"(a\:b)"}}).filenames, Names{"a:b"});
  EXPECT_EQ(apply({{"filename", R"(x\:y:z)"}}).filenames, (Names{"x:y", "z"}));
  EXPECT_EQ(apply({{"filename", R"(a\::b)"}}).filenames, (Names{"a:", "b"}));
  EXPECT_EQ(apply({{"filename", R"(\:q)"}}).filenames, Names{":q"});
  EXPECT_EQ(apply({{"filename", R"(a\b)"}}).filenames, Names{R"(a\b)"});
  EXPECT_EQ(apply({{"filename", R"(a\\:b)"}}).filenames, Names{R"(a\:b)"});
  EXPECT_EQ(apply({{"filename", "/dev/disk/by-path/pci-0000\\:00\\:1f.2-ata-1"}}).filenames,
            Names{"/dev/disk/by-path/pci-0000:00:1f.2-ata-1"});
}

// fio 3.33 reads directory= as it reads filename= (checked where it lays out its files):
// directory=/tmp/x\:y is the one directory /tmp/x:y, directory=a:b two directories.
TEST(ApplyOption, DirectoryIsAListWithTheColonEscape) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(apply({{"directory", R"(/tmp/x\:y)"}}).directories, Names{"/tmp/x:y"});
  EXPECT_EQ(apply({{"directory", R"(/a:/b\:c)"}}).directories, (Names{"/a", "/b:c"}));
  EXPECT_EQ(apply({{"directory", R"(a\b)"}}).directories, Names{R"(a\b)"});
  EXPECT_EQ(error_of("directory", "/a::/b"),
            "t.fio:1: option 'directory': directory '/a::/b' has an empty entry; remove the "
            "extra ':'");
}

TEST(ApplyOption, RandomAndCache) {
  const JobState state = apply(
      {{"randrepeat", "0"}, {"randseed", "1234"}, {"invalidate", "0"}, {"fallocate", "none"}});
  EXPECT_FALSE(state.job.rand_repeat);
  EXPECT_EQ(state.job.rand_seed, 1234u);
  EXPECT_TRUE(state.randseed_given);
  EXPECT_FALSE(state.job.invalidate);
  EXPECT_FALSE(state.job.fallocate);
  EXPECT_TRUE(apply({{"fallocate", "posix"}}).job.fallocate);
  EXPECT_EQ(error_of("fallocate", "keep"),
            "t.fio:1: option 'fallocate': fallocate=keep is not "
            "supported by kdio; use none or native");
}

TEST(ApplyOption, Rates) {
  JobState state = apply({{"rate", "1m,512k"}});
  EXPECT_EQ(state.job.rate_bytes_per_sec[0], 1u << 20);
  EXPECT_EQ(state.job.rate_bytes_per_sec[1], 512u << 10);
  state = apply({{"rate_iops", ",200"}});
  EXPECT_EQ(state.job.rate_iops[0], 0u);
  EXPECT_EQ(state.job.rate_iops[1], 200u);
}

// fio 3.33 reads rate_iops with the size suffixes and kb_base (`fio --debug=parse --parse-only
// --name=t --rate_iops=2m,3k`: "out=2097152", "out=3072"; 1kib is 1000; with --kb_base=1000 1k
// is 1000).
TEST(ApplyOption, RateIopsTakesSizeSuffixes) {
  JobState state = apply({{"rate_iops", "2m,3k"}});
  EXPECT_EQ(state.job.rate_iops[0], 2u << 20);
  EXPECT_EQ(state.job.rate_iops[1], 3072u);
  EXPECT_EQ(apply({{"rate_iops", "1kib"}}).job.rate_iops[0], 1000u);
  EXPECT_EQ(apply({{"kb_base", "1000"}, {"rate_iops", "1k"}}).job.rate_iops[0], 1000u);
}

TEST(ApplyOption, CgroupAndIoMax) {
  const JobState state = apply({{"cgroup", "kdio/slow"}, {"cgroup_io_max", "wbps=1048576"}});
  EXPECT_EQ(state.job.cgroup, "kdio/slow");
  EXPECT_EQ(state.job.cgroup_io_max, "wbps=1048576");
  EXPECT_EQ(apply({{"cgroup_io_max", "rbps=max  wiops=100"}}).job.cgroup_io_max,
            "rbps=max wiops=100");
  EXPECT_EQ(error_of("cgroup", "/sys/fs/cgroup/x"),
            "t.fio:1: option 'cgroup': cgroup '/sys/fs/cgroup/x' must be a path relative to the "
            "cgroup v2 mount");
  EXPECT_EQ(error_of("cgroup", "a/../b"),
            "t.fio:1: option 'cgroup': cgroup 'a/../b' must not "
            "contain '..'");
  EXPECT_EQ(error_of("cgroup_io_max", "wbs=1"),
            "t.fio:1: option 'cgroup_io_max': cgroup_io_max item 'wbs=1' must be rbps=, wbps=, "
            "riops= or wiops= followed by a number or 'max'");
  EXPECT_EQ(error_of("cgroup_io_max", "wbps=0"),
            "t.fio:1: option 'cgroup_io_max': cgroup_io_max "
            "item 'wbps=0': a limit of 0 would stop all I/O");
  EXPECT_EQ(error_of("cgroup_io_max", "wbps=1m"),
            "t.fio:1: option 'cgroup_io_max': '1m' is not "
            "a non-negative whole number");
}

TEST(ApplyOption, SyncLatencyLog) {
  EXPECT_FALSE(apply({}).job.sync_lat_log);
  EXPECT_TRUE(apply({{"sync_lat_log", std::nullopt}}).job.sync_lat_log);
  EXPECT_FALSE(apply({{"sync_lat_log", "0"}}).job.sync_lat_log);
}

TEST(ApplyOption, IoUringFlags) {
  const JobState state = apply({{"hipri", std::nullopt},
                                {"fixedbufs", std::nullopt},
                                {"registerfiles", "1"},
                                {"sqthread_poll", std::nullopt}});
  EXPECT_TRUE(state.job.hipri);
  EXPECT_TRUE(state.job.fixedbufs);
  EXPECT_TRUE(state.job.registerfiles);
  EXPECT_TRUE(state.job.sqthread_poll);
}

TEST(ApplyOption, MoreValueErrors) {
  EXPECT_EQ(error_of("name", ""), "t.fio:1: option 'name': name must not be empty");
  EXPECT_EQ(error_of("fallocate", "yes"),
            "t.fio:1: option 'fallocate': unknown fallocate 'yes'; "
            "use none, native, posix, 0 or 1");
  EXPECT_EQ(error_of("cgroup_io_max", " "),
            "t.fio:1: option 'cgroup_io_max': cgroup_io_max needs "
            "at least one KEY=VALUE limit");
  EXPECT_EQ(error_of("rate_iops", "fast"),
            "t.fio:1: option 'rate_iops': size 'fast' must start with a non-negative whole "
            "number");
  EXPECT_EQ(error_of("directory", ""), "t.fio:1: option 'directory': directory needs a path");
  EXPECT_EQ(error_of("numjobs", "4097"),
            "t.fio:1: option 'numjobs': 4097 is out of range; "
            "allowed 1..4096");
  EXPECT_EQ(error_of("nrfiles", "0"),
            "t.fio:1: option 'nrfiles': 0 is out of range; allowed "
            "1..4096");
}

TEST(ApplyOption, UnknownAndUnsupported) {
  EXPECT_EQ(error_of("iodeth", "4"), "t.fio:1: unknown option 'iodeth'; did you mean 'iodepth'?");
  EXPECT_EQ(error_of("rwmixred", "4"),
            "t.fio:1: unknown option 'rwmixred'; did you mean "
            "'rwmixread'?");
  EXPECT_EQ(error_of("frobnicate", "4"), "t.fio:1: unknown option 'frobnicate'");
  EXPECT_EQ(error_of("verify", "md5"),
            "t.fio:1: fio option 'verify' is not supported by kdio "
            "(see workloads/kdio/OPTIONS.md)");
  EXPECT_EQ(error_of("offset", "0"),
            "t.fio:1: fio option 'offset' is not supported by kdio "
            "(see workloads/kdio/OPTIONS.md)");
  EXPECT_EQ(error_of("Direct", "1"), "t.fio:1: unknown option 'Direct'; did you mean 'direct'?");
}

TEST(ApplyOption, GivenOptionsKeepTheSpellingAndWhere) {
  const JobState state = apply({{"blocksize", "4k"}, {"thread", std::nullopt}});
  EXPECT_EQ(state.job.given_options.at("blocksize"), "4k");
  EXPECT_EQ(state.job.given_options.at("thread"), "");
  EXPECT_EQ(state.where.at("bs"), "t.fio:1");
}

TEST(OptionsDoc, NamesEverySupportedAndUnsupportedOption) {
  const std::string doc = read_file_from_disk(KBISECT_SOURCE_DIR "/workloads/kdio/OPTIONS.md");
  for (const std::string& name : supported_option_names()) {
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name;
  }
  for (const std::string& name : unsupported_fio_option_names()) {
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name;
  }
}

TEST(OptionsDoc, SupportedAndUnsupportedDoNotOverlap) {
  const std::vector<std::string> supported = supported_option_names();
  for (const std::string& name : unsupported_fio_option_names()) {
    EXPECT_EQ(std::find(supported.begin(), supported.end(), name), supported.end()) << name;
  }
}

TEST(CanonicalOptionName, AliasesGiveFiosName) {
  EXPECT_EQ(canonical_option_name("blocksize"), "bs");
  EXPECT_EQ(canonical_option_name("readwrite"), "rw");
  EXPECT_EQ(canonical_option_name("timeout"), "runtime");
  EXPECT_EQ(canonical_option_name("io_limit"), "io_size");
  EXPECT_EQ(canonical_option_name("nr_files"), "nrfiles");
  EXPECT_EQ(canonical_option_name("blocksize_range"), "bsrange");
  EXPECT_EQ(canonical_option_name("wait_for_previous"), "stonewall");
  EXPECT_EQ(canonical_option_name("bs"), "bs");
  EXPECT_EQ(canonical_option_name("no_such_option"), "no_such_option");
}

}  // namespace
}  // namespace kdio
