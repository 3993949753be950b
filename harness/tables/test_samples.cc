#include "tables/test_samples.h"

#include "git/test_repo.h"
#include "store/store.h"

namespace kbisect {
namespace {

nlohmann::json latency_json(const Latency& stats) {
  return {{"min", stats.min},
          {"max", stats.max},
          {"mean", stats.mean},
          {"stddev", stats.stddev},
          {"N", stats.n}};
}

}  // namespace

nlohmann::json direction_json(uint64_t io_bytes, uint64_t total_ios, uint64_t runtime_ms,
                              Latency clat, Latency lat, Latency slat) {
  uint64_t bw_bytes = runtime_ms ? io_bytes * 1000 / runtime_ms : 0;
  return {{"io_bytes", io_bytes},
          {"io_kbytes", io_bytes >> 10},
          {"bw_bytes", bw_bytes},
          {"bw", bw_bytes / 1024},
          {"iops", runtime_ms ? 1000.0 * static_cast<double>(total_ios) / runtime_ms : 0.0},
          {"runtime", runtime_ms},
          {"total_ios", total_ios},
          {"slat_ns", latency_json(slat)},
          {"clat_ns", latency_json(clat)},
          {"lat_ns", latency_json(lat)}};
}

nlohmann::json job_json(const std::string& name, int group_id, nlohmann::json options,
                        nlohmann::json read, nlohmann::json write) {
  nlohmann::json none = direction_json(0, 0, 0, {}, {});
  return {{"jobname", name},
          {"groupid", group_id},
          {"error", 0},
          {"job options", std::move(options)},
          {"read", read.is_null() ? none : std::move(read)},
          {"write", write.is_null() ? none : std::move(write)},
          {"trim", none},
          {"sync", {{"total_ios", 0}, {"lat_ns", latency_json({})}}},
          {"job_runtime", 0}};
}

nlohmann::json kdio_json(std::vector<nlohmann::json> jobs) {
  return {{"kdio version", "kdio-0.1.0"}, {"jobs", std::move(jobs)}};
}

StoredSamples::StoredSamples()
    : dir_(std::make_unique<TempDir>()), store_(std::make_unique<Store>(dir_->path() / "t.db")) {}

StoredSamples::~StoredSamples() = default;

int64_t StoredSamples::run(const std::string& variant, const std::vector<nlohmann::json>& samples) {
  RunRecord run;
  run.commit = std::string(40, 'a');
  run.variant = variant;
  run.host = "test";
  run.accel = "tcg";
  std::vector<SampleRecord> records;
  for (const auto& sample : samples) {
    SampleRecord record;
    record.commit = run.commit;
    record.variant = variant;
    record.config_hash = "cfg";
    record.kdio_json = sample.dump();
    records.push_back(std::move(record));
  }
  return store_->insert_run(run, records);
}

SampleSet StoredSamples::set(const std::string& side, const std::string& variant,
                             const std::vector<nlohmann::json>& samples) {
  return load_sample_set(*store_, side, variant, {run(variant, samples)});
}

}  // namespace kbisect
