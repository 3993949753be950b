#include "report/scenario_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "config/config.h"
#include "git/repository.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

// The judged metric first, then the scenario's, in its order; metrics it no longer names after
// them.
void order_metrics(ReportData& data, const Scenario& scenario) {
  std::vector<std::string> ordered;
  for (const auto& metric : scenario.metrics) {
    const std::string key = metric_key(metric);
    if (std::find(data.metrics.begin(), data.metrics.end(), key) != data.metrics.end()) {
      ordered.push_back(key);
    }
  }
  for (const auto& key : data.metrics) {
    if (std::find(ordered.begin(), ordered.end(), key) == ordered.end()) ordered.push_back(key);
  }
  data.metrics = judged_first(data, std::move(ordered));
}

std::vector<std::string> commits_to_name(const ReportData& data) {
  std::vector<std::string> commits = data.topological_order;
  commits.push_back(data.session.bad_commit);
  commits.insert(commits.end(), data.confirm_commits.begin(), data.confirm_commits.end());
  for (const auto& step : data.steps) commits.push_back(step.commit);
  return commits;
}

// A revert-check's reverted side is the last of a chain of revert commits on its base, and its
// own subject names only the last revert: the side is named by all of them, in their order.
// nullopt when `reverted` is not such a chain.
std::optional<std::string> reverts_subject(const Repository& repo, const std::string& base,
                                           std::string reverted) {
  std::vector<std::string> subjects;
  while (reverted != base) {
    CommitInfo info = repo.commit_info(reverted);
    if (!info.subject.starts_with("Revert \"") || info.parents.empty()) return std::nullopt;
    subjects.insert(subjects.begin(), info.subject);
    reverted = info.parents.front();
  }
  return fmt::format("{}", fmt::join(subjects, "; "));
}

void read_subjects(ReportData& data, const Repository& repo) {
  const SessionRecord& session = data.session;
  for (const auto& commit : commits_to_name(data)) {
    if (data.subjects.count(commit)) continue;
    try {
      const bool revert_chain =
          session.kind == SessionKind::kRevertCheck && commit == session.bad_commit;
      std::optional<std::string> reverts =
          revert_chain ? reverts_subject(repo, session.good_commits.front(), commit) : std::nullopt;
      data.subjects[commit] = reverts ? *reverts : repo.commit_info(commit).subject;
    } catch (const Error&) {
      // Not a commit of this repository (a sim runner's revert); the report says "unavailable".
    }
  }
}

}  // namespace

void add_scenario_facts(ReportData& data) {
  Scenario scenario;
  try {
    scenario = load_scenario(data.session.config_path);
  } catch (const Error& error) {
    data.subjects_unavailable = fmt::format("the scenario cannot be read: {}", error.what());
    return;
  }
  order_metrics(data, scenario);
  try {
    read_subjects(data, Repository::open(scenario.kernel.repo, scenario.kernel.repo_place));
  } catch (const Error& error) {
    data.subjects_unavailable =
        fmt::format("the kernel repository cannot be read: {}", error.what());
  }
}

}  // namespace kbisect
