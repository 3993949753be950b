#include "cli/git_bisect_run.h"

#include <fmt/format.h>
#include <git2.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include "bisect/verdict.h"
#include "common/error.h"
#include "config/scenario_hash.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

// The samples of this scenario and variant taken at `place`: samples of another accelerator,
// host, guest image or QEMU do not compare with those measured now.
SampleFilter scenario_samples(const Scenario& scenario, const Variant* variant,
                              const RunPlace& place) {
  SampleFilter filter;
  filter.config_hash = scenario_hash(scenario);
  filter.variant = variant ? variant->name : "";
  filter.host = place.host;
  filter.accel = place.accel;
  filter.environment = place.environment;
  return filter;
}

// The endpoint's stored samples, topped up by measuring until there are `wanted`.
std::vector<double> endpoint_samples(CommandContext& context, CommitMeasurer& measurer,
                                     const std::string& commit, const Variant* variant,
                                     const RunPlace& place, int wanted) {
  const Scenario& scenario = context.scenario;
  SampleFilter filter = scenario_samples(scenario, variant, place);
  filter.commit = commit;
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

struct BisectTerms {
  std::string bad = "bad";
  std::string good = "good";
};

// The names git bisect marks with: bad and good, or those `git bisect start --term-new=...
// --term-old=...` chose, which git keeps in BISECT_TERMS (new, then old).
BisectTerms bisect_terms(const Repository& repo) {
  BisectTerms terms;
  std::ifstream file(std::filesystem::path(git_repository_path(repo.get())) / "BISECT_TERMS");
  std::string bad, good;
  if (std::getline(file, bad) && std::getline(file, good) && !bad.empty() && !good.empty()) {
    terms = {bad, good};
  }
  return terms;
}

}  // namespace

GitBisectEndpoints git_bisect_endpoints(const Repository& repo) {
  GitBisectEndpoints endpoints;
  const BisectTerms terms = bisect_terms(repo);
  const std::string bad_ref = "refs/bisect/" + terms.bad;
  git_oid bad;
  if (git_reference_name_to_id(&bad, repo.get(), bad_ref.c_str()) != 0) {
    fail(
        "no git bisect in progress in {} (no {}): start one with `git bisect start BAD GOOD`, "
        "then `git bisect run kbisect run -c CONFIG --commit HEAD --git-bisect-run`",
        repo.path().string(), bad_ref);
  }
  endpoints.bad = oid_hex(bad);
  std::vector<std::string> refs;
  auto collect = [](const char* name, void* payload) {
    static_cast<std::vector<std::string>*>(payload)->push_back(name);
    return 0;
  };
  const std::string good_glob = "refs/bisect/" + terms.good + "-*";
  check_git(git_reference_foreach_glob(repo.get(), good_glob.c_str(), collect, &refs),
            "listing " + good_glob, "run inside a `git bisect start BAD GOOD` session");
  for (const auto& ref : refs) endpoints.goods.push_back(repo.resolve(ref));
  if (endpoints.goods.empty()) {
    fail("no {}: mark a commit {} first (git bisect {} REF)", good_glob, terms.good, terms.good);
  }
  return endpoints;
}

std::vector<double> stored_samples_of_kernel(CommandContext& context, CommitMeasurer& measurer,
                                             const std::string& commit, const Variant* variant) {
  const KernelImage& kernel = measurer.kernel(commit);
  if (!kernel.ok) return {};
  SampleFilter filter = scenario_samples(context.scenario, variant, measurer.place(kernel));
  filter.image_sha256 = kernel.image_sha256;
  return context.store.samples_for(filter, metric_key(context.scenario.metrics.front()));
}

namespace {

// The answer for a run that took no sample: bad where the commit does not boot and booting is
// what is bisected, else skip.
std::optional<int> failed_run_verdict(const Scenario& scenario, const std::string& commit,
                                      const MeasuredRun& run) {
  if (run.outcome == Outcome::kOk) return std::nullopt;
  if (run.outcome == Outcome::kBootFailed && scenario.bisect.boot_failure_is_bad) {
    return kGitBisectBad;
  }
  fmt::print(stderr, "kbisect: {} is {} ({}): skip\n", commit.substr(0, 12),
             outcome_name(run.outcome), run.detail);
  return kGitBisectSkip;
}

}  // namespace

int git_bisect_run_verdict(CommandContext& context, CommitMeasurer& measurer,
                           const GitBisectEndpoints& endpoints, const std::string& commit,
                           const Variant* variant, const std::vector<double>& stored,
                           const std::vector<MeasuredRun>& measurements) {
  const Scenario& scenario = context.scenario;
  std::vector<double> values = stored;
  for (const auto& m : measurements) {
    if (auto failed = failed_run_verdict(scenario, commit, m)) return *failed;
    values.push_back(*m.value);
  }

  // The commit's kernel built: it has samples.
  const RunPlace place = measurer.place(measurer.kernel(commit));
  const BisectSpec& spec = scenario.bisect;
  const int cap = std::max(spec.max_samples, spec.min_samples);
  const double threshold = std::log(1 / spec.alpha);
  // Each good commit (git marks one more with every good answer) has min_samples at least;
  // bad, the one endpoint, as many as the commit while that is undecided.
  std::vector<double> good;
  for (const auto& commit_id : endpoints.goods) {
    auto samples = endpoint_samples(context, measurer, commit_id, variant, place, spec.min_samples);
    good.insert(good.end(), samples.begin(), samples.end());
  }
  int bad_wanted = spec.min_samples;
  // While the verdict is undecided, one more sample of the commit, up to max_samples: git
  // bisect acts on every answer, and one forced from a few samples sends it down the wrong side
  // for good.
  CommitVerdict verdict;
  for (;;) {
    auto bad = endpoint_samples(context, measurer, endpoints.bad, variant, place, bad_wanted);
    const bool last = static_cast<int>(values.size()) >= cap;
    verdict = classify(values, good, bad, scenario.metrics.front().better, threshold, last);
    if (verdict.kind != VerdictKind::kUndecided) break;
    MeasuredRun more = measurer.measure(commit, variant, std::nullopt);
    if (auto failed = failed_run_verdict(scenario, commit, more)) return *failed;
    values.push_back(*more.value);
    bad_wanted = std::clamp(static_cast<int>(values.size()), spec.min_samples, cap);
  }
  // As the bisection's verdicts say it: a drop in IOPS and a rise in latency are both "worse".
  fmt::print(stderr,
             "kbisect: {} is {} (median {:.1f}% {} than good's, p vs good {:.3g}, {} samples)\n",
             commit.substr(0, 12), verdict_name(verdict.kind), 100 * std::abs(verdict.effect),
             verdict.effect > 0 ? "worse" : "better", verdict.p_vs_good, verdict.samples);
  return verdict.kind == VerdictKind::kBad ? kGitBisectBad : kGitBisectGood;
}

}  // namespace kbisect
