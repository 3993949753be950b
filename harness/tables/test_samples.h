// Test support for the tables: kdio-shaped JSON built from round numbers, stored as samples in
// a real results database and read back the way the commands read them.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tables/sample_set.h"

namespace kbisect {

class Store;
class TempDir;

struct Latency {
  double min = 0, max = 0, mean = 0, stddev = 0;
  uint64_t n = 0;
};

// One direction of a kdio job ("read"/"write"), with bw_bytes and iops derived as kdio does.
nlohmann::json direction_json(uint64_t io_bytes, uint64_t total_ios, uint64_t runtime_ms,
                              Latency clat, Latency lat, Latency slat = {});

// A job entry: name, group, "job options", and the given directions (others all zero).
nlohmann::json job_json(const std::string& name, int group_id, nlohmann::json options,
                        nlohmann::json read, nlohmann::json write);

// A kdio output with these job entries.
nlohmann::json kdio_json(std::vector<nlohmann::json> jobs);

// A results database in a temporary directory.
class StoredSamples {
 public:
  StoredSamples();
  ~StoredSamples();

  // Stores one run of `commit`/`variant` with one sample per JSON; returns the run's id.
  int64_t run(const std::string& variant, const std::vector<nlohmann::json>& samples);
  // The set of one side, read back from the database.
  SampleSet set(const std::string& side, const std::string& variant,
                const std::vector<nlohmann::json>& samples);

 private:
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<Store> store_;
};

}  // namespace kbisect
