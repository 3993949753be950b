// kbisect run -c CONFIG --commit REF [--variant V]... [--samples N] [--timings] [--git-bisect-run]
#include <fmt/format.h>

#include <algorithm>

#include "bisect/statistics.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/git_bisect_run.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/json_text.h"
#include "pipeline/commit_measurer.h"
#include "report/format.h"
#include "store/metrics.h"
#include "tables/table.h"

namespace kbisect {
namespace {

struct RunOptions {
  std::filesystem::path config;
  std::string commit;
  std::vector<std::string> variants;  // --variant, each a name or a matrix's prefix
  int samples = 0;                    // 0: the scenario's
  bool timings = false;
  bool git_bisect_run = false;
};

void print_timings(const PhaseTimings& t) {
  fmt::print(
      "timings: checkout {:.1f} s, config {:.1f} s, build {:.1f} s, image {:.1f} s, boot {:.1f} s, "
      "workload {:.1f} s, teardown {:.1f} s ({} builds, {} cache hits, {} boots)\n",
      t.checkout, t.config, t.build, t.image, t.boot, t.workload, t.teardown, t.builds,
      t.cache_hits, t.boots);
}

// The values of one metric over the samples that were measured.
std::vector<double> values_of(const MetricSpec& metric,
                              const std::vector<MeasuredRun>& measurements) {
  std::vector<double> values;
  for (const auto& m : measurements) {
    if (auto it = m.metrics.find(metric_key(metric)); it != m.metrics.end()) {
      values.push_back(it->second);
    }
  }
  return values;
}

void print_summary(const Scenario& scenario, const std::vector<MeasuredRun>& measurements) {
  if (std::none_of(measurements.begin(), measurements.end(),
                   [](const MeasuredRun& m) { return m.outcome == Outcome::kOk; })) {
    fmt::print("no sample was measured: nothing to summarize (the lines above say why)\n");
    return;
  }
  fmt::print("{:<44} {:>6} {:>14} {:>14} {:>8}\n", "metric", "n", "median", "mean", "%stddev");
  for (const auto& metric : scenario.metrics) {
    std::vector<double> values = values_of(metric, measurements);
    if (values.empty()) continue;
    fmt::print("{:<44} {:>6} {:>14.2f} {:>14.2f} {:>8}\n", metric_key(metric), values.size(),
               median(values), mean(values), format_percent_stddev(values));
  }
}

// What was measured of one variant, in order.
struct VariantRuns {
  const Variant* variant = nullptr;
  std::vector<MeasuredRun> measurements;
};

std::string variant_name(const Variant* variant) {
  return variant ? variant->name : "";
}

// The scenario's table over the runs, read back from the database.
std::string scenario_table(CommandContext& context, const std::string& commit_label,
                           const std::vector<VariantRuns>& runs) {
  std::vector<SampleSet> sets;
  for (const auto& variant_runs : runs) {
    std::vector<int64_t> run_ids;
    for (const auto& m : variant_runs.measurements) run_ids.push_back(m.run_id);
    sets.push_back(
        load_sample_set(context.store, commit_label, variant_name(variant_runs.variant), run_ids));
  }
  return render_table(context.scenario.table, sets);
}

// --json's last line: each variant's outcomes and each metric over its samples.
nlohmann::json run_result(const Scenario& scenario, const std::string& commit,
                          const std::vector<VariantRuns>& runs) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& variant_runs : runs) {
    nlohmann::json outcomes = nlohmann::json::array();
    for (const auto& m : variant_runs.measurements) outcomes.push_back(outcome_name(m.outcome));
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& metric : scenario.metrics) {
      std::vector<double> values = values_of(metric, variant_runs.measurements);
      if (values.empty()) continue;
      metrics.push_back({{"metric", metric_key(metric)},
                         {"median", median(values)},
                         {"mean", mean(values)},
                         {"values", values}});
    }
    variants.push_back({{"variant", variant_name(variant_runs.variant)},
                        {"outcomes", outcomes},
                        {"metrics", metrics}});
  }
  return {{"commit", commit}, {"variants", variants}};
}

// Measures `count` samples of each variant, the variants in turn; stops at a build or boot
// failure, which would only repeat.
void measure_runs(CommandContext& context, CommitMeasurer& measurer, const std::string& commit,
                  std::vector<VariantRuns>& runs, int count, bool print_samples) {
  for (int i = 0; i < count; ++i) {
    for (auto& variant_runs : runs) {
      throw_if_interrupted();
      const Variant* variant = variant_runs.variant;
      MeasuredRun measured = measurer.measure(commit, variant, std::nullopt);
      const bool ok = measured.outcome == Outcome::kOk;
      if (print_samples) {
        fmt::print("{}{} sample {}/{}: {}{}\n", commit.substr(0, 12),
                   variant ? "@" + variant->name : "", i + 1, count, outcome_name(measured.outcome),
                   ok ? fmt::format(" {} = {:.2f}", metric_key(context.scenario.metrics.front()),
                                    *measured.value)
                      : " (" + measured.detail + ")");
      }
      context.events.emit("sample", {{"commit", commit},
                                     {"variant", variant_name(variant)},
                                     {"outcome", outcome_name(measured.outcome)},
                                     {"metrics", measured.metrics}});
      const bool final_answer =
          measured.outcome == Outcome::kBuildFailed || measured.outcome == Outcome::kBootFailed;
      variant_runs.measurements.push_back(std::move(measured));
      if (final_answer) return;
    }
  }
}

// The summary (or --json's result line) and the scenario's table; exit 1 when a run failed.
int report_runs(CommandContext& context, const RunOptions& options, const std::string& commit,
                const std::vector<VariantRuns>& runs, const PhaseTimings& timings) {
  const Scenario& scenario = context.scenario;
  const std::string table =
      scenario.table == ReportTable::kNone ? "" : scenario_table(context, options.commit, runs);
  if (context.events.mode() == Events::Mode::kJsonLines) {
    nlohmann::json result = run_result(scenario, commit, runs);
    if (!table.empty()) result["table"] = table;
    fmt::print("{}\n", json_text(result));
  } else {
    for (const auto& variant_runs : runs) {
      if (runs.size() > 1) fmt::print("variant {}:\n", variant_name(variant_runs.variant));
      print_summary(scenario, variant_runs.measurements);
    }
    if (!table.empty()) fmt::print("\n{}", table);
    if (options.timings) print_timings(timings);
  }
  for (const auto& variant_runs : runs) {
    for (const auto& m : variant_runs.measurements) {
      if (m.outcome != Outcome::kOk) return 1;
    }
  }
  return 0;
}

int run(const GlobalOptions& globals, const RunOptions& options) {
  CommandContext context(globals, options.config);
  const Scenario& scenario = context.scenario;
  std::vector<VariantRuns> runs;
  for (const Variant* variant : context.variants(options.variants)) {
    runs.push_back({variant, {}});
  }
  if (options.git_bisect_run && runs.size() > 1) {
    fail("--git-bisect-run judges one variant; give at most one --variant that names one");
  }
  CommitMeasurer measurer(scenario, context.store, context.events, scenario.workdir);
  const std::string commit = measurer.repository().resolve(options.commit);
  std::optional<GitBisectEndpoints> endpoints;
  if (options.git_bisect_run) endpoints = git_bisect_endpoints(measurer.repository());
  // The arguments hold: the database the samples go to is made now, not after a kernel build.
  context.store.open();
  const int samples = options.samples > 0 ? options.samples : scenario.samples;
  std::vector<double> stored;
  if (options.git_bisect_run) {
    stored = stored_samples_of_kernel(context, measurer, commit, runs.front().variant);
    if (!stored.empty()) {
      fmt::print(stderr, "kbisect: {}: {} samples stored for this kernel image\n",
                 commit.substr(0, 12), stored.size());
    }
  }
  const int to_measure = std::max(0, samples - static_cast<int>(stored.size()));
  const bool json = context.events.mode() == Events::Mode::kJsonLines;
  measure_runs(context, measurer, commit, runs, to_measure, !options.git_bisect_run && !json);
  if (options.git_bisect_run) {
    return git_bisect_run_verdict(context, measurer, *endpoints, commit, runs.front().variant,
                                  stored, runs.front().measurements);
  }
  return report_runs(context, options, commit, runs, measurer.timings());
}

}  // namespace

void add_run_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand("run", "build, boot and measure one commit");
  auto options = std::make_shared<RunOptions>();
  command->add_option("-c,--config", options->config, "scenario YAML")->required();
  command->add_option("--commit", options->commit, "commit, branch or tag")->required();
  command->add_option("--variant", options->variants,
                      "workload variant; repeat for several; a name that a matrix extends "
                      "(\"short\" of \"short,BS=4k\") selects all its cells (default: none)");
  command
      ->add_option("--samples", options->samples,
                   "samples (default: the config's); with --git-bisect-run the samples stored "
                   "for the same kernel image count, and an undecided commit gets more, up to "
                   "bisect.max_samples")
      ->check(sample_count_check());
  command->add_flag("--timings", options->timings, "print the time of each phase");
  command->add_flag("--git-bisect-run", options->git_bisect_run,
                    "for `git bisect run`: exit 0 good, 1 bad, 125 skip, 128 abort, judged "
                    "against the samples of refs/bisect/good-* and refs/bisect/bad");
  command->callback([&globals, &action, options] {
    action = [&globals, options] {
      if (!options->git_bisect_run) return run(globals, *options);
      // git bisect run reads exit codes 1-127 as bad or skip: an error must abort instead.
      try {
        return run(globals, *options);
      } catch (const Error& error) {
        fmt::print(stderr, "kbisect: error: {}\n", error.what());
        return kGitBisectAbort;
      } catch (const std::exception& error) {
        fmt::print(stderr, "kbisect: internal error: {}; please report it\n", error.what());
        return kGitBisectAbort;
      }
    };
  });
}

}  // namespace kbisect
