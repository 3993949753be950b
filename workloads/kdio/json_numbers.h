// The numbers kdio's JSON report (report_json.cc) writes for a job, by where they sit. The
// harness checks a config's metric paths against them, before a kernel build and a boot.
#pragma once

#include <optional>
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

// The key a metric path's percentile names: fio's spelling or a shorter one ("99", "99.9",
// "99.000000"); nullopt when `text` is not a finite decimal number. The config checks metric
// paths with it, and the store reads samples with it.
std::optional<std::string> percentile_key(std::string_view text);

}  // namespace kdio
