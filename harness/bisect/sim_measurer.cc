#include "bisect/sim_measurer.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "bisect/midpoint.h"
#include "common/error.h"

namespace kbisect {
namespace {

constexpr int kGood = -1;
const std::string kRevertPrefix = "revert:";

uint64_t mix(uint64_t seed, const std::string& text) {
  uint64_t h = seed ^ 0x9e3779b97f4a7c15ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

SimMeasurer::SimMeasurer(const CommitGraph& graph, std::string good, SimSpec spec)
    : graph_(graph), good_(std::move(good)), spec_(std::move(spec)) {
  if (spec_.cv < 0) fail("sim.noise.cv must not be negative (got {})", spec_.cv);
  factor_.assign(graph_.nodes.size(), 1.0);
  for (const auto& change : spec_.changes) {
    int node = find(change.commit, change.where);
    if (node == kGood) {
      fail("{}: '{}' is the good endpoint, not a candidate", change.where, change.commit);
    }
    // One change per commit: the revert of a commit divides out its one factor.
    if (!own_factor_.emplace(node, change.factor).second) {
      fail(
          "{}: '{}' is the commit of an earlier change; give it one change, with the factors "
          "multiplied",
          change.where, change.commit);
    }
    // The change reaches every candidate that has it as an ancestor (or is it).
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      auto below = restrict_candidates(graph_, static_cast<int>(i), {}).original;
      if (std::find(below.begin(), below.end(), node) != below.end()) factor_[i] *= change.factor;
    }
  }
  for (const auto& outcome : spec_.outcomes) {
    if (outcome.outcome != "build-failed" && outcome.outcome != "boot-failed") {
      fail("sim.outcomes: unknown outcome '{}'; use build-failed or boot-failed", outcome.outcome);
    }
    // One outcome per commit, as one change per commit: a second would replace the first unseen.
    if (!outcomes_.emplace(find(outcome.commit, outcome.where), outcome.outcome).second) {
      fail("{}: '{}' is the commit of an earlier outcome; give it one outcome", outcome.where,
           outcome.commit);
    }
  }
}

int SimMeasurer::find(const std::string& reference, const std::string& where) const {
  if (reference.empty())
    fail("{}: an empty commit reference; give a sha prefix or a subject", where);
  if (good_.rfind(reference, 0) == 0) return kGood;
  int found = -2;
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const auto& node = graph_.nodes[i];
    if (node.id.rfind(reference, 0) == 0 || node.subject == reference) {
      if (found != -2)
        fail("{}: '{}' is ambiguous among the candidates; use more of the sha", where, reference);
      found = static_cast<int>(i);
    }
  }
  if (found == -2) fail("{}: '{}' is not among the candidate commits", where, reference);
  return found;
}

int SimMeasurer::node_of(const std::string& commit) const {
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    if (graph_.nodes[i].id == commit) return static_cast<int>(i);
  }
  return kGood;
}

double SimMeasurer::true_value(const std::string& commit) const {
  if (commit.rfind(kRevertPrefix, 0) == 0) {
    auto at = commit.find('@');
    int reverted = find(commit.substr(kRevertPrefix.size(), at - kRevertPrefix.size()), "sim");
    double base = true_value(commit.substr(at + 1));
    auto own = own_factor_.find(reverted);
    return own == own_factor_.end() ? base : base / own->second;
  }
  int node = node_of(commit);
  return spec_.base * (node == kGood ? 1.0 : factor_[node]);
}

RevertPlan SimMeasurer::revert(const std::string& base, const std::string& commit) const {
  RevertPlan plan;
  plan.ok = true;
  plan.measure_id = kRevertPrefix + commit + "@" + base;
  return plan;
}

Measurement SimMeasurer::measure(const MeasureRequest& request) {
  Measurement result;
  if (request.commit.rfind(kRevertPrefix, 0) != 0) {
    auto outcome = outcomes_.find(node_of(request.commit));
    if (outcome != outcomes_.end()) {
      result.status = outcome->second == "build-failed" ? MeasureStatus::kBuildFailed
                                                        : MeasureStatus::kBootFailed;
      result.detail = "sim: configured outcome " + outcome->second;
      return result;
    }
  }
  std::mt19937_64 random(mix(spec_.seed, request.commit + "#" + std::to_string(request.attempt)));
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  double value = true_value(request.commit);
  switch (spec_.noise) {
    case NoiseDistribution::kNormal:
      value *= 1 + spec_.cv * normal(random);
      break;
    case NoiseDistribution::kLognormal: {
      double sigma = std::sqrt(std::log(1 + spec_.cv * spec_.cv));
      value *= std::exp(sigma * normal(random) - sigma * sigma / 2);
      break;
    }
    case NoiseDistribution::kBimodal: {
      double mode = uniform(random) < spec_.p2 ? spec_.mode2 : 1.0;
      value *= mode * (1 + spec_.cv * normal(random));
      break;
    }
  }
  const int drifted =
      spec_.drift_until > 0 ? std::min(request.sequence, spec_.drift_until) : request.sequence;
  value *= 1 + spec_.drift_per_sample * drifted;
  result.status = MeasureStatus::kOk;
  result.value = value;
  return result;
}

}  // namespace kbisect
