#include "report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kdio {
namespace {

JobResult sample_result(uint64_t ios, uint64_t runtime_ms, uint64_t base_ns) {
  JobResult r;
  DirResult& d = r.dir[0];
  for (uint64_t i = 0; i < ios; ++i) {
    uint64_t v = base_ns + i * 1000;
    d.clat.add(v);
    d.clat_hist.add(v);
    d.lat.add(v + 100);
  }
  d.io_bytes = ios * 4096;
  d.total_ios = ios;
  d.runtime_ms = runtime_ms;
  r.sync.total_ios = 1;
  r.sync.fsyncs = 1;
  r.sync.lat.add(5000);
  r.sync.lat_hist.add(5000);
  r.job_runtime_ms = runtime_ms;
  r.usr_ns = runtime_ms * 1'000'000 / 10;  // 10% of the run time
  r.minf = 7;
  r.finished = true;
  return r;
}

std::vector<Job> two_jobs(bool group_reporting) {
  Job job;
  job.name = std::string(1, 'j');
  job.group_reporting = group_reporting;
  job.given_options = {{"rw", "randread"}, {"numjobs", "2"}};
  std::vector<Job> jobs = {job, job};
  jobs[1].clone_index = 1;
  return jobs;
}

Report make_report(const std::vector<Job>& jobs, const std::vector<JobResult>& results) {
  Report report;
  report.jobs = &jobs;
  report.entries = report_entries(jobs, results);
  report.timestamp_ms = 1'700'000'000'123;
  return report;
}

TEST(Report, GroupReportingSumsBytesAndTakesTheLongestRuntime) {
  std::vector<Job> jobs = two_jobs(true);
  std::vector<JobResult> results = {sample_result(100, 1000, 10'000),
                                    sample_result(300, 1500, 50'000)};
  auto entries = report_entries(jobs, results);
  ASSERT_EQ(entries.size(), 1u);
  const DirResult& d = entries[0].result.dir[0];
  EXPECT_EQ(d.total_ios, 400u);
  EXPECT_EQ(d.io_bytes, 400u * 4096);
  EXPECT_EQ(d.runtime_ms, 1500u);
  EXPECT_EQ(d.clat.samples, 400u);
  EXPECT_EQ(d.clat.min, 10'000u);
  EXPECT_EQ(d.clat.max, 50'000u + 299 * 1000);
  EXPECT_EQ(d.clat_hist.total(), 400u);
  EXPECT_EQ(entries[0].result.sync.total_ios, 2u);
  EXPECT_EQ(entries[0].result.sync.fsyncs, 2u);
}

TEST(Report, WithoutGroupReportingEveryJobIsReported) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(1, 10, 1), sample_result(1, 10, 1)};
  EXPECT_EQ(report_entries(jobs, results).size(), 2u);
}

TEST(Report, DifferentGroupsDoNotMerge) {
  std::vector<Job> jobs = two_jobs(true);
  jobs[1].group_id = 1;
  std::vector<JobResult> results = {sample_result(1, 10, 1), sample_result(1, 10, 1)};
  EXPECT_EQ(report_entries(jobs, results).size(), 2u);
}

// fio 3.33 reports [a] group_reporting numjobs=2, [b], [c] group_reporting, [d]
// group_reporting as two entries: "a: (groupid=0, jobs=2)" and "b: (groupid=0, jobs=3)".
std::vector<Job> mixed_group_reporting() {
  std::vector<Job> jobs = two_jobs(true);
  jobs[0].name = jobs[1].name = "a";
  for (const char* name : {"b", "c", "d"}) {
    Job job;
    job.name = name;
    job.group_reporting = job.name != "b";
    jobs.push_back(job);
  }
  return jobs;
}

TEST(Report, GroupReportingJoinsTheEntryBeforeEvenWithoutGroupReporting) {
  std::vector<Job> jobs = mixed_group_reporting();
  std::vector<JobResult> results(jobs.size(), sample_result(1, 10, 1));
  const Report report = make_report(jobs, results);
  ASSERT_EQ(report.entries.size(), 2u);
  EXPECT_EQ(report.entries[1].job->name, "b");
  EXPECT_EQ(report.entries[1].members, 3);
  EXPECT_EQ(report.entries[1].result.dir[0].total_ios, 3u);
  auto root = nlohmann::json::parse(render_json(report, false));
  ASSERT_EQ(root["jobs"].size(), 2u);
  EXPECT_EQ(root["jobs"][1]["jobname"], "b");
  EXPECT_EQ(root["jobs"][1]["read"]["io_bytes"], 3 * 4096);
  EXPECT_NE(render_normal(report).find("\nb: (groupid=0, jobs=3): err= 0\n"), std::string::npos);
}

TEST(Report, JsonHasFioFieldsAndUnits) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(1000, 2000, 100'000), sample_result(1, 10, 1)};
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  EXPECT_EQ(root["timestamp"], 1'700'000'000);
  ASSERT_EQ(root["jobs"].size(), 2u);
  const auto& job = root["jobs"][0];
  EXPECT_EQ(job["jobname"], "j");
  EXPECT_EQ(job["groupid"], 0);
  EXPECT_EQ(job["error"], 0);
  EXPECT_EQ(job["job options"]["rw"], "randread");
  const auto& read = job["read"];
  EXPECT_EQ(read["io_bytes"], 1000 * 4096);
  EXPECT_EQ(read["io_kbytes"], 4000);
  EXPECT_EQ(read["total_ios"], 1000);
  EXPECT_EQ(read["runtime"], 2000);
  EXPECT_EQ(read["bw_bytes"], 1000 * 4096 / 2);
  EXPECT_EQ(read["bw"], 1000 * 4096 / 2 / 1024);
  EXPECT_DOUBLE_EQ(read["iops"].get<double>(), 500.0);
  for (const char* key : {"slat_ns", "clat_ns", "lat_ns"}) {
    for (const char* field : {"min", "max", "mean", "stddev", "N"}) {
      EXPECT_TRUE(read[key].contains(field)) << key << "." << field;
    }
  }
  EXPECT_EQ(read["slat_ns"]["N"], 0);
  EXPECT_EQ(read["clat_ns"]["N"], 1000);
  EXPECT_EQ(read["clat_ns"]["min"], 100'000);
  EXPECT_EQ(read["lat_ns"]["min"], 100'100);
  const auto& pct = read["clat_ns"]["percentile"];
  EXPECT_EQ(pct.size(), 17u);
  EXPECT_TRUE(pct.contains("99.000000"));
  EXPECT_TRUE(pct.contains("99.990000"));
  EXPECT_FALSE(read["clat_ns"].contains("bins"));
  EXPECT_FALSE(read["lat_ns"].contains("percentile"));
  EXPECT_EQ(job["write"]["total_ios"], 0);
  EXPECT_EQ(job["write"]["clat_ns"]["min"], 0);
  EXPECT_FALSE(job["write"]["clat_ns"].contains("percentile"));
  EXPECT_EQ(job["trim"]["io_bytes"], 0);
  EXPECT_EQ(job["sync"]["total_ios"], 1);
  EXPECT_EQ(job["sync"]["lat_ns"]["N"], 1);
  EXPECT_TRUE(job["sync"]["lat_ns"].contains("percentile"));
  EXPECT_EQ(job["job_runtime"], 2000);
  EXPECT_NEAR(job["usr_cpu"].get<double>(), 10.0, 1e-9);
  EXPECT_EQ(job["majf"], 0);
  EXPECT_EQ(job["minf"], 7);
  EXPECT_EQ(root["kdio"]["version"], kVersion);
  EXPECT_EQ(root["kdio"]["interrupted"], false);
  EXPECT_EQ(root["kdio"]["jobs"].size(), 2u);
  EXPECT_EQ(root["kdio"]["jobs"][1]["options"]["numjobs"], "2");
}

TEST(Report, JsonHasFiosBandwidthAndIopsSamples) {
  // Two jobs of one group: 2 MiB/s and 6 MiB/s over 1 s, so the group moved 8 MiB/s.
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(512, 1000, 1000),
                                    sample_result(1536, 1000, 1000)};
  for (uint64_t kib : {2000, 2100}) results[0].dir[0].bw_samples.add(kib);
  for (uint64_t iops : {500, 525}) results[0].dir[0].iops_samples.add(iops);
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  const auto& read = root["jobs"][0]["read"];
  EXPECT_EQ(read["bw_min"], 2000);
  EXPECT_EQ(read["bw_max"], 2100);
  EXPECT_DOUBLE_EQ(read["bw_mean"].get<double>(), 2050.0);
  EXPECT_NEAR(read["bw_dev"].get<double>(), 70.710678, 1e-6);
  EXPECT_EQ(read["bw_samples"], 2);
  // fio: the mean, cut to 2050, in percent of 8192 KiB/s.
  EXPECT_DOUBLE_EQ(read["bw_agg"].get<double>(), 2050 * 100.0 / 8192);
  EXPECT_EQ(read["iops_min"], 500);
  EXPECT_EQ(read["iops_max"], 525);
  EXPECT_DOUBLE_EQ(read["iops_mean"].get<double>(), 512.5);
  EXPECT_NEAR(read["iops_stddev"].get<double>(), 17.677670, 1e-6);
  EXPECT_EQ(read["iops_samples"], 2);
  // Without samples (a job shorter than one window) fio writes zeros, bw_agg too.
  const auto& other = root["jobs"][1]["read"];
  for (const char* key : {"bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples",
                          "iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples"}) {
    EXPECT_EQ(other[key], 0) << key;
  }
}

TEST(Report, GroupReportingAddsTheMembersBandwidthSamples) {
  std::vector<Job> jobs = two_jobs(true);
  std::vector<JobResult> results = {sample_result(1, 1000, 1000), sample_result(1, 1000, 1000)};
  results[0].dir[0].bw_samples.add(4000);
  results[1].dir[0].bw_samples.add(1200);
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  EXPECT_EQ(root["jobs"][0]["read"]["bw_min"], 5200);
  EXPECT_EQ(root["jobs"][0]["read"]["bw_samples"], 2);
}

TEST(Report, JsonHasFiosVersionElapsedAndJobOptions) {
  std::vector<Job> jobs = two_jobs(false);
  jobs[0].given_options = {
      {"blocksize", "4k"}, {"readwrite", "randread"}, {"thread", ""}, {"group_reporting", ""}};
  std::vector<JobResult> results = {sample_result(1, 10, 1), sample_result(1, 10, 1)};
  Report report = make_report(jobs, results);
  report.elapsed_s = 3;
  auto root = nlohmann::json::parse(render_json(report, false));
  EXPECT_EQ(root.begin().key(), "fio version");
  EXPECT_EQ(root["fio version"], kVersion);
  EXPECT_EQ(root["jobs"][0]["elapsed"], 3);
  // As fio 3.33 (alias.fio): fio's names, no bare flags.
  EXPECT_EQ(root["jobs"][0]["job options"], nlohmann::json({{"bs", "4k"}, {"rw", "randread"}}));
  // kdio's own object keeps them as given.
  EXPECT_EQ(root["kdio"]["jobs"][0]["options"]["blocksize"], "4k");
  EXPECT_EQ(root["kdio"]["jobs"][0]["options"]["thread"], "");
}

TEST(Report, LatencyRangesInPercentOfTheJobsIos) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(10000, 1000, 1000), sample_result(1, 10, 1)};
  JobResult& r = results[0];
  r.clat_ranges.usec[0] = 9998;  // 1-2 us
  r.clat_ranges.usec[7] = 1;     // 250-500 us
  r.clat_ranges.msec[11] = 1;    // 2 s or more
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  const auto& job = root["jobs"][0];
  EXPECT_EQ(job["latency_ns"].size(), 10u);
  EXPECT_EQ(job["latency_ns"]["1000"], 0.0);
  EXPECT_DOUBLE_EQ(job["latency_us"]["2"].get<double>(), 99.98);
  EXPECT_DOUBLE_EQ(job["latency_us"]["500"].get<double>(), 0.01);
  EXPECT_EQ(job["latency_ms"].size(), 12u);
  EXPECT_DOUBLE_EQ(job["latency_ms"][">=2000"].get<double>(), 0.01);
  std::string text = render_normal(make_report(jobs, results));
  EXPECT_NE(text.find("  lat (usec)   : 2=99.98%, 500=0.01%\n  lat (msec)   : >=2000=0.01%\n"),
            std::string::npos)
      << text;
}

TEST(Report, DepthsForSynchronousEnginesAsFio) {
  // fio 3.33, psync randrw fsync=16 (n.fio): "IO depths    : 1=106.1%" (syncs count, over the
  // reads and writes), "submit    : 0=0.0%, 4=100.0%", "issued rwts: total=796,832,0,100".
  std::vector<Job> jobs = two_jobs(false);
  jobs[1].engine = Engine::kLibaio;
  jobs[1].iodepth = 8;
  std::vector<JobResult> results = {sample_result(1000, 1000, 1000), sample_result(10, 10, 1)};
  results[0].sync.total_ios = 61;
  results[0].sync.fsyncs = 50;
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  const auto& job = root["jobs"][0];
  EXPECT_DOUBLE_EQ(job["iodepth_level"]["1"].get<double>(), 106.1);
  EXPECT_EQ(job["iodepth_level"][">=64"], 0.0);
  EXPECT_EQ(job["iodepth_submit"]["0"], 0.0);
  EXPECT_EQ(job["iodepth_submit"]["4"], 100.0);
  EXPECT_EQ(job["iodepth_complete"]["4"], 100.0);
  EXPECT_EQ(job["latency_depth"], 1);
  EXPECT_EQ(job["latency_target"], 0);
  EXPECT_EQ(job["latency_percentile"], 100.0);
  EXPECT_EQ(job["latency_window"], 0);
  // kdio does not know libaio's depths.
  EXPECT_FALSE(root["jobs"][1].contains("iodepth_level"));
  EXPECT_EQ(root["jobs"][1]["latency_depth"], 8);
  std::string text = render_normal(make_report(jobs, results));
  EXPECT_NE(
      text.find("  IO depths    : 1=106.1%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%\n"
                "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
                "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
                "     issued rwts: total=1000,0,0,50 short=0,0,0,0 dropped=0,0,0,0\n"
                "     latency   : target=0, window=0, percentile=100.00%, depth=1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("  cpu          : usr=10.00%, sys=0.00%, ctx=0, majf=0, minf=7\n"
                      "     issued rwts: total=10,0,0,1 short=0,0,0,0 dropped=0,0,0,0\n"
                      "     latency   : target=0, window=0, percentile=100.00%, depth=8\n"),
            std::string::npos)
      << text;
}

// fio 3.33 with the 5th of 16 preads cut to 1 KiB: "short_ios" : 1, "issued rwts:
// total=17,0,0,0 short=1,0,0,0" (kdio wrote 0 always); group_reporting adds them up.
TEST(Report, ShortIosAsFio) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(17, 10, 1), sample_result(9, 10, 1)};
  results[0].dir[0].short_ios = 1;
  results[1].dir[1].short_ios = 2;
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  EXPECT_EQ(root["jobs"][0]["read"]["short_ios"], 1);
  EXPECT_EQ(root["jobs"][1]["write"]["short_ios"], 2);
  EXPECT_NE(render_normal(make_report(jobs, results))
                .find("     issued rwts: total=17,0,0,1 short=1,0,0,0 dropped=0,0,0,0\n"),
            std::string::npos);
  jobs = two_jobs(true);
  auto entries = report_entries(jobs, results);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].result.dir[0].short_ios, 1u);
  EXPECT_EQ(entries[0].result.dir[1].short_ios, 2u);
}

TEST(Report, SyncLatencyLogIsInTheJsonOnlyWhenAsked) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(1, 10, 1), sample_result(1, 10, 1)};
  results[0].sync.log.add(12, 15'000'000);
  results[0].sync.log.add(1012, 1'000'000'000);
  jobs[0].sync_lat_log = true;
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  const auto& log = root["jobs"][0]["sync"]["lat_log"];
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["time_ms"], 12);
  EXPECT_EQ(log[0]["lat_ns"], 15'000'000);
  EXPECT_EQ(log[1]["time_ms"], 1012);
  EXPECT_EQ(log[1]["lat_ns"], 1'000'000'000);
  EXPECT_EQ(root["jobs"][0]["sync"]["lat_log_dropped"], 0);
  EXPECT_FALSE(root["jobs"][1]["sync"].contains("lat_log"));
}

TEST(Report, SyncLatencyLogsOfAGroupFollowEachOtherUpToTheCapacity) {
  JobResult first;
  JobResult second;
  first.sync.log.add(1, 100);
  for (uint32_t i = 0; i < SyncLog::kCapacity; ++i) second.sync.log.add(i, 200 + i);
  first.merge(second);
  EXPECT_EQ(first.sync.log.count, SyncLog::kCapacity);
  EXPECT_EQ(first.sync.log.entries[0].lat_ns, 100u);
  EXPECT_EQ(first.sync.log.entries[1].lat_ns, 200u);
  EXPECT_EQ(first.sync.log.dropped, 1u);
}

TEST(Report, JsonPlusAddsBinsThatSumToN) {
  std::vector<Job> jobs = two_jobs(true);
  std::vector<JobResult> results = {sample_result(500, 1000, 1'000),
                                    sample_result(500, 1000, 9'000'000)};
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), true));
  const auto& clat = root["jobs"][0]["read"]["clat_ns"];
  uint64_t sum = 0;
  for (auto& [value, count] : clat["bins"].items()) {
    unsigned long long v = std::stoull(value);
    EXPECT_EQ(plat_idx_to_val(plat_val_to_idx(v)), v) << "bins are keyed by bucket values";
    sum += count.get<uint64_t>();
  }
  EXPECT_EQ(sum, 1000u);
  EXPECT_EQ(clat["N"], 1000);
}

TEST(Report, InterruptedIsMarked) {
  std::vector<Job> jobs = two_jobs(true);
  std::vector<JobResult> results = {sample_result(1, 10, 1), sample_result(1, 10, 1)};
  Report report = make_report(jobs, results);
  report.interrupted = true;
  EXPECT_EQ(nlohmann::json::parse(render_json(report, false))["kdio"]["interrupted"], true);
  EXPECT_NE(render_normal(report).find("interrupted"), std::string::npos);
}

TEST(Report, NumbersHaveFiosFourDigits) {
  // Values from fio 3.33's output: "IOPS=17.2k, BW=67.1MiB/s (70.4MB/s)(80.9MiB/1205msec)".
  EXPECT_EQ(num2str(17176, false, NumberUnit::kNone), "17.2k");
  EXPECT_EQ(num2str(662, false, NumberUnit::kNone), "662");
  EXPECT_EQ(num2str(70364564, true, NumberUnit::kBytesPerSecond), "67.1MiB/s");
  EXPECT_EQ(num2str(70364564, false, NumberUnit::kBytesPerSecond), "70.4MB/s");
  EXPECT_EQ(num2str(84828160, true, NumberUnit::kBytes), "80.9MiB");
  EXPECT_EQ(num2str(2715000, true, NumberUnit::kBytesPerSecond), "2651KiB/s");
  EXPECT_EQ(num2str(3260416, true, NumberUnit::kBytes), "3184KiB");
  EXPECT_EQ(num2str(4096, false, NumberUnit::kBytes), "4096B");
  EXPECT_EQ(num2str(40960, false, NumberUnit::kBytes), "40.0kB");   // fio: 0.96 prints as ".0"
  EXPECT_EQ(num2str(99999, false, NumberUnit::kNone), "99.0k");     // fio's rounding
  EXPECT_EQ(num2str(123456789, false, NumberUnit::kNone), "123M");  // no room for decimals
  EXPECT_EQ(num2str(123567890, false, NumberUnit::kNone), "124M");
}

TEST(Report, NormalOutputReadsLikeFio) {
  std::vector<Job> jobs = two_jobs(true);
  std::vector<JobResult> results = {sample_result(1000, 1000, 100'000),
                                    sample_result(1000, 1000, 100'000)};
  std::string text = render_normal(make_report(jobs, results));
  EXPECT_NE(text.find("j: (groupid=0, jobs=2): err= 0"), std::string::npos) << text;
  EXPECT_NE(text.find("  read: IOPS=2000, BW=8000KiB/s (8192kB/s)(8000KiB/1000msec)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   READ: bw=8000KiB/s (8192kB/s), 8000KiB/s-8000KiB/s "
                      "(8192kB/s-8192kB/s), io=8000KiB (8192kB), run=1000-1000msec\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("clat percentiles (usec):"), std::string::npos) << text;
  EXPECT_NE(text.find("99.00th=["), std::string::npos) << text;
  EXPECT_NE(text.find("Run status group 0 (all jobs):"), std::string::npos) << text;
}

TEST(Report, NormalOutputStartsWithFiosJobLines) {
  // fio 3.33: "b: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B,
  // ioengine=libaio, iodepth=8", "...", "fio-3.33", "Starting 2 processes".
  std::vector<Job> jobs = two_jobs(false);
  jobs[0].pattern = jobs[1].pattern = Pattern::kRandRead;
  Job other = jobs[0];
  other.name = "w";
  other.group_id = 1;
  other.pattern = Pattern::kReadWrite;
  other.block_size[1] = {65536, 131072};
  other.engine = Engine::kLibaio;
  other.iodepth = 8;
  other.use_threads = true;
  jobs.push_back(other);
  std::vector<JobResult> results(3, sample_result(1, 10, 1));
  std::string text = render_normal(make_report(jobs, results));
  EXPECT_EQ(text.substr(0, text.find("\n\n") + 2),
            "j: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
            "ioengine=psync, iodepth=1\n"
            "...\n"
            "w: (g=1): rw=rw, bs=(R) 4096B-4096B, (W) 64.0KiB-128KiB, (T) 64.0KiB-128KiB, "
            "ioengine=libaio, iodepth=8\n" +
                std::string(kVersion) + "\nStarting 1 thread and 2 processes\n\n")
      << text;
}

TEST(Report, NormalOutputHasDecimalUnitsFirstWithKbBase1000) {
  std::vector<Job> jobs = two_jobs(false);
  for (Job& job : jobs) job.kb_base = 1000;
  std::vector<JobResult> results = {sample_result(21600, 1000, 100'000),
                                    sample_result(1000, 2000, 100'000)};
  std::string text = render_normal(make_report(jobs, results));
  EXPECT_NE(text.find("  read: IOPS=21.6k, BW=88.5MB/s (84.4MiB/s)(88.5MB/1000msec)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   READ: bw=46.3MB/s (44.1MiB/s), 2048kB/s-88.5MB/s "
                      "(2000KiB/s-84.4MiB/s), io=92.6MB (88.3MiB), run=1000-2000msec\n"),
            std::string::npos)
      << text;
}

// fio 3.33's JSON "total_ios" of "sync" counts fsyncs alone: a job with fdatasync=N reports 0
// there and its syncs in "lat_ns" (kdio reported them in both).
TEST(Report, JsonSyncTotalIosCountsFsyncsAlone) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(1, 10, 1), sample_result(1, 10, 1)};
  results[0].sync.fsyncs = 0;  // its sync was an fdatasync
  auto root = nlohmann::json::parse(render_json(make_report(jobs, results), false));
  EXPECT_EQ(root["jobs"][0]["sync"]["total_ios"], 0);
  EXPECT_EQ(root["jobs"][0]["sync"]["lat_ns"]["N"], 1);
  EXPECT_EQ(root["jobs"][1]["sync"]["total_ios"], 1);
  EXPECT_NE(render_normal(make_report(jobs, results))
                .find("  fsync/fdatasync/sync_file_range:\n    sync (nsec): min=5000, max=5000"),
            std::string::npos);
}

TEST(Report, NormalOutputPicksFiosLatencyUnits) {
  // fio 3.33: "clat (usec): min=15, max=7273, avg=423.93, stdev=1020.68" and nsec when the
  // spread is small.
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(1000, 1000, 100'000), sample_result(3, 10, 1)};
  std::string text = render_normal(make_report(jobs, results));
  EXPECT_NE(text.find("    clat (usec): min=100, max=1099, avg=599.50, stdev=288.82\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    clat (nsec): min=1, max=2001, avg=1001.00, stdev=1000.00\n"),
            std::string::npos)
      << text;
  // Percentile values rounded up into the unit, 5 wide, 4 to a line.
  EXPECT_NE(text.find("    clat percentiles (usec):\n     |  1.00th=[  110],  5.00th=[  149],"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    clat percentiles (nsec):\n     |  1.00th=[    1],"), std::string::npos)
      << text;
}

TEST(Report, NormalOutputHasFiosBandwidthAndIopsSampleLines) {
  std::vector<Job> jobs = two_jobs(false);
  std::vector<JobResult> results = {sample_result(1000, 1000, 100'000), sample_result(1, 10, 1)};
  for (uint64_t kib : {3984, 4008, 4000, 4008}) results[0].dir[0].bw_samples.add(kib);
  for (uint64_t iops : {996, 1002, 1000, 1002}) results[0].dir[0].iops_samples.add(iops);
  std::string text = render_normal(make_report(jobs, results));
  // The group moved 4000 KiB/s + 4 KiB/s.
  EXPECT_NE(text.find("   bw (  KiB/s): min= 3984, max= 4008, per=99.90%, avg=4000.00, "
                      "stdev=11.31, samples=4\n"
                      "   iops        : min=  996, max= 1002, avg=1000.00, stdev= 2.83, "
                      "samples=4\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace kdio
