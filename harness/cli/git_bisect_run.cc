#include "cli/git_bisect_run.h"

#include <fmt/format.h>
#include <git2.h>

#include <cmath>

#include "bisect/verdict.h"
#include "common/error.h"
#include "config/scenario_hash.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

std::vector<std::string> good_refs(const Repository& repo) {
  std::vector<std::string> refs;
  auto collect = [](const char* name, void* payload) {
    static_cast<std::vector<std::string>*>(payload)->push_back(name);
    return 0;
  };
  check_git(git_reference_foreach_glob(repo.get(), "refs/bisect/good-*", collect, &refs),
            "listing refs/bisect/good-*", "run inside a `git bisect start BAD GOOD` session");
  return refs;
}

// The endpoint's stored samples, topped up by measuring until there are `wanted`.
std::vector<double> endpoint_samples(CommandContext& context, CommitMeasurer& measurer,
                                     const std::string& commit, const Variant* variant,
                                     int wanted) {
  const Scenario& scenario = context.scenario;
  SampleFilter filter;
  filter.commit = commit;
  filter.config_hash = scenario_hash(scenario);
  filter.variant = variant ? variant->name : "";
  const std::string metric = metric_key(scenario.metrics.front());
  std::vector<double> values = context.store.samples_for(filter, metric);
  while (static_cast<int>(values.size()) < wanted) {
    MeasuredRun m = measurer.measure(commit, variant, std::nullopt);
    if (m.outcome != Outcome::kOk) {
      fail("endpoint {} cannot be measured ({}: {}); pick another endpoint", commit.substr(0, 12),
           outcome_name(m.outcome), m.detail);
    }
    values.push_back(*m.value);
  }
  return values;
}

}  // namespace

int git_bisect_run_verdict(CommandContext& context, CommitMeasurer& measurer,
                           const std::string& commit, const Variant* variant,
                           const std::vector<MeasuredRun>& measurements) {
  const Scenario& scenario = context.scenario;
  std::vector<double> values;
  for (const auto& m : measurements) {
    if (m.outcome == Outcome::kBootFailed && scenario.bisect.boot_failure_is_bad) {
      return kGitBisectBad;
    }
    if (m.outcome != Outcome::kOk) {
      fmt::print(stderr, "kbisect: {} is {} ({}): skip\n", commit.substr(0, 12),
                 outcome_name(m.outcome), m.detail);
      return kGitBisectSkip;
    }
    values.push_back(*m.value);
  }

  const Repository& repo = measurer.repository();
  const std::string bad = repo.resolve("refs/bisect/bad");
  std::vector<double> good;
  for (const auto& ref : good_refs(repo)) {
    auto samples = endpoint_samples(context, measurer, repo.resolve(ref), variant,
                                    scenario.bisect.min_samples);
    good.insert(good.end(), samples.begin(), samples.end());
  }
  if (good.empty()) fail("no refs/bisect/good-*: mark a good commit first (git bisect good REF)");
  auto bad_values = endpoint_samples(context, measurer, bad, variant, scenario.bisect.min_samples);

  const double threshold = std::log(1 / scenario.bisect.alpha);
  CommitVerdict verdict =
      classify(values, good, bad_values, scenario.metrics.front().better, threshold, true);
  fmt::print(stderr, "kbisect: {} is {} (effect {:+.1f}%, p vs good {:.3g}, {} samples)\n",
             commit.substr(0, 12), verdict_name(verdict.kind), 100 * verdict.effect,
             verdict.p_vs_good, verdict.samples);
  return verdict.kind == VerdictKind::kBad ? kGitBisectBad : kGitBisectGood;
}

}  // namespace kbisect
