// The numbers kdio's JSON report (report_json.cc) writes for a job, by where they sit. The
// harness checks a config's metric paths against them, before a kernel build and a boot.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace kdio {

// In each direction object (read, write, trim), besides its latency objects.
std::span<const std::string_view> direction_numbers();

// A direction's latency objects; of them only clat_ns has percentiles.
std::span<const std::string_view> direction_latencies();

// In every latency object (a direction's and sync.lat_ns), besides its percentiles.
std::span<const std::string_view> latency_numbers();

// fio's default percentile list: clat_ns and sync.lat_ns report these once they have samples.
std::span<const double> default_percentiles();

// A percentile's key in a latency object's "percentile", as fio spells it: "99.000000".
std::string percentile_key(double percentile);

}  // namespace kdio
