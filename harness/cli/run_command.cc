// kbisect run -c CONFIG --commit REF [--variant V] [--samples N] [--timings] [--git-bisect-run]
#include <fmt/format.h>

#include <iostream>

#include "bisect/statistics.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/git_bisect_run.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "pipeline/measure.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

struct RunOptions {
  std::filesystem::path config;
  std::string commit;
  std::string variant;
  int samples = 0;  // 0: the scenario's
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

void print_summary(const Scenario& scenario, const std::vector<MeasuredRun>& measurements) {
  fmt::print("{:<44} {:>6} {:>14} {:>14} {:>8}\n", "metric", "n", "median", "mean", "%stddev");
  for (const auto& metric : scenario.metrics) {
    std::vector<double> values;
    for (const auto& m : measurements) {
      if (auto it = m.metrics.find(metric_key(metric)); it != m.metrics.end()) {
        values.push_back(it->second);
      }
    }
    if (values.empty()) continue;
    double center = mean(values);
    double spread = values.size() > 1 ? stddev(values) : 0.0;
    fmt::print("{:<44} {:>6} {:>14.2f} {:>14.2f} {:>7.1f}%\n", metric_key(metric), values.size(),
               median(values), center, center != 0 ? 100 * spread / center : 0.0);
  }
}

int run(const GlobalOptions& globals, const RunOptions& options) {
  CommandContext context(globals, options.config);
  const Scenario& scenario = context.scenario;
  const Variant* variant = find_variant(scenario, options.variant);
  CommitMeasurer measurer(scenario, context.store, context.events, scenario.workdir);
  const std::string commit = measurer.repository().resolve(options.commit);
  const int samples = options.samples > 0 ? options.samples : scenario.samples;

  std::vector<MeasuredRun> measurements;
  for (int i = 0; i < samples; ++i) {
    throw_if_interrupted();
    MeasuredRun measured = measurer.measure(commit, variant, std::nullopt);
    const bool ok = measured.outcome == Outcome::kOk;
    if (!options.git_bisect_run) {
      fmt::print(
          "{} sample {}/{}: {}{}\n", commit.substr(0, 12), i + 1, samples,
          outcome_name(measured.outcome),
          ok ? fmt::format(" {} = {:.2f}", metric_key(scenario.metrics.front()), *measured.value)
             : " (" + measured.detail + ")");
    }
    context.events.emit("sample", {{"commit", commit},
                                   {"outcome", outcome_name(measured.outcome)},
                                   {"metrics", measured.metrics}});
    // A kernel that does not build or boot gives the same answer every time.
    const bool final_answer =
        measured.outcome == Outcome::kBuildFailed || measured.outcome == Outcome::kBootFailed;
    measurements.push_back(std::move(measured));
    if (final_answer) break;
  }
  if (options.git_bisect_run) {
    return git_bisect_run_verdict(context, measurer, commit, variant, measurements);
  }
  print_summary(scenario, measurements);
  if (options.timings) print_timings(measurer.timings());
  for (const auto& m : measurements) {
    if (m.outcome != Outcome::kOk) return 1;
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand("run", "build, boot and measure one commit");
  auto options = std::make_shared<RunOptions>();
  command->add_option("-c,--config", options->config, "scenario YAML")->required();
  command->add_option("--commit", options->commit, "commit, branch or tag")->required();
  command->add_option("--variant", options->variant, "workload variant (default: none)");
  command->add_option("--samples", options->samples, "samples (default: the config's)")
      ->check(CLI::Range(1, 1000));
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
      }
    };
  });
}

}  // namespace kbisect
