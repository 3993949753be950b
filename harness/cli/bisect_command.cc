// kbisect bisect -c CONFIG --good REF [--good REF...] --bad REF [--strategy S] [--resume N]
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bisect/session.h"
#include "bisect/sim_runner.h"
#include "bisect/statistics.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "common/error.h"
#include "config/scenario_hash.h"
#include "git/candidates.h"
#include "git/revert.h"
#include "pipeline/measure.h"
#include "pipeline/session_measurer.h"
#include "pipeline/store_journal.h"
#include "store/metrics.h"

namespace kbisect {
namespace {

struct BisectOptions {
  std::filesystem::path config;
  std::vector<std::string> goods;
  std::string bad;
  std::string strategy = "adaptive";
  double confidence = 0.95;
  std::vector<std::string> paths;
  std::string variant;
  int64_t resume = 0;
  bool fresh = false;
};

// The session to continue: --resume N, or an earlier one with the same question (same
// scenario, endpoints and strategy), unless --fresh. 0: start a new one.
std::optional<SessionRecord> earlier_session(Store& store, const BisectOptions& options,
                                             const std::string& config_hash,
                                             const Candidates& candidates) {
  if (options.resume != 0) {
    auto session = store.session(options.resume);
    if (!session || session->kind != SessionKind::kBisect) {
      fail("there is no bisect session {} in {}; list them with `kbisect query sessions`",
           options.resume, store.path().string());
    }
    return session;
  }
  if (options.fresh) return std::nullopt;
  for (auto& session : store.sessions()) {
    if (session.kind == SessionKind::kBisect && session.config_hash == config_hash &&
        session.bad_commit == candidates.bad && session.good_commits == candidates.goods &&
        session.strategy == options.strategy && session.status != SessionStatus::kAborted) {
      return session;
    }
  }
  return std::nullopt;
}

nlohmann::json result_json(int64_t session_id, const SessionResult& result,
                           const Repository* repo) {
  nlohmann::json json = {
      {"session", session_id},
      {"culprit", result.culprit ? nlohmann::json(*result.culprit) : nlohmann::json(nullptr)},
      {"verdict", session_verdict_name(result.verdict)},
      {"steps", result.steps},
      {"samples", result.samples},
      {"confirmed", result.confirmed},
      {"skipped", result.skipped},
      {"candidates", result.candidates},
      {"message", result.message},
      {"parent_check", result.parent_check},
      {"revert_check", result.revert_check}};
  if (result.culprit && repo) json["subject"] = repo->commit_info(*result.culprit).subject;
  return json;
}

// Samples of the commit's kernel image: a commit whose image is identical to one already
// measured (a documentation-only change) was never booted itself.
std::string median_text(Store& store, const Scenario& scenario, const std::string& commit,
                        int64_t session_id) {
  SampleFilter filter;
  if (std::optional<BuildRecord> build = store.last_good_build_of(commit)) {
    filter.image_sha256 = *build->image_sha256;
  } else {
    filter.commit = commit;
  }
  filter.config_hash = scenario_hash(scenario);
  filter.session_id = session_id;
  auto values = store.samples_for(filter, metric_key(scenario.metrics.front()));
  if (values.empty()) return "not measured";
  return fmt::format("{:.1f} (median of {}, %stddev {:.1f})", median(values), values.size(),
                     values.size() > 1 ? 100 * stddev(values) / mean(values) : 0.0);
}

void print_summary(const nlohmann::json& result, Store& store, const Scenario& scenario,
                   const SessionRecord& session, const Repository* repo,
                   const PhaseTimings* timings, double seconds) {
  const std::string verdict = result["verdict"];
  fmt::print("\nsession {}: {}\n", session.id, verdict);
  if (result["culprit"].is_string()) {
    const std::string culprit = result["culprit"];
    fmt::print("culprit:  {} {}\n", culprit, result.value("subject", ""));
    const std::string metric = metric_key(scenario.metrics.front());
    fmt::print("{} at good {}: {}\n", metric, session.good_commits.front().substr(0, 12),
               median_text(store, scenario, session.good_commits.front(), session.id));
    fmt::print("{} at bad  {}: {}\n", metric, session.bad_commit.substr(0, 12),
               median_text(store, scenario, session.bad_commit, session.id));
    if (repo) {
      for (const auto& parent : repo->commit_info(culprit).parents) {
        fmt::print("{} at culprit's parent {}: {}\n", metric, parent.substr(0, 12),
                   median_text(store, scenario, parent, session.id));
      }
    }
    fmt::print("{} at culprit: {}\n", metric, median_text(store, scenario, culprit, session.id));
    fmt::print("confirmation: parent {}; revert {}\n", result.value("parent_check", ""),
               result.value("revert_check", ""));
  } else if (!result.value("message", "").empty()) {
    fmt::print("{}\n", result.value("message", ""));
  }
  if (!result["skipped"].empty()) fmt::print("skipped: {}\n", result["skipped"].dump());
  if (verdict == "only-skipped") {
    fmt::print("only skipped commits are left; the culprit is one of: {}\n",
               result["candidates"].dump());
  }
  fmt::print("steps {}, samples {}, confirmed {}\n", result["steps"].get<int>(),
             result["samples"].get<int>(), result["confirmed"].get<bool>() ? "yes" : "no");
  if (timings) {
    fmt::print(
        "builds {}, build-cache hits {}, boots {}; time: checkout {:.0f} s, config {:.0f} s, "
        "build {:.0f} s, image {:.0f} s, boot {:.0f} s, workload {:.0f} s, teardown {:.0f} s, "
        "total {:.0f} s\n",
        timings->builds, timings->cache_hits, timings->boots, timings->checkout, timings->config,
        timings->build, timings->image, timings->boot, timings->workload, timings->teardown,
        seconds);
  }
}

int exit_code(const std::string& verdict) {
  if (verdict == "found" || verdict == "no-regression") return 0;
  return verdict == "only-skipped" ? 2 : 1;
}

int bisect(const GlobalOptions& globals, const BisectOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CommandContext context(globals, options.config);
  const Scenario& scenario = context.scenario;
  Store& store = context.store;
  const std::string config_hash = scenario_hash(scenario);
  const bool sim = scenario.vm.runner == RunnerKind::kSim;

  Repository repo = Repository::open(scenario.kernel.repo);
  std::optional<SessionRecord> earlier;
  if (options.resume != 0) earlier = earlier_session(store, options, config_hash, {});
  CandidateQuery query;
  query.bad = earlier ? earlier->bad_commit : options.bad;
  query.goods = earlier ? earlier->good_commits : options.goods;
  query.paths = options.paths;
  if (query.bad.empty() || query.goods.empty())
    fail("give --good REF and --bad REF, or --resume N");
  Candidates candidates = find_candidates(repo, query);
  if (!candidates.untested_merge_bases.empty()) {
    fail(
        "a good commit is not an ancestor of bad, and kbisect does not yet test merge bases "
        "for you: measure the merge base {} and pass it (if good) as --good",
        candidates.untested_merge_bases.front());
  }
  if (!earlier) earlier = earlier_session(store, options, config_hash, candidates);

  SessionRecord session;
  if (earlier) {
    session = *earlier;
    if (session.status == SessionStatus::kDone) {
      auto result = nlohmann::json::parse(session.result_json);
      if (globals.json) {
        fmt::print("{}\n", result.dump());
      } else {
        fmt::print("session {} already answered this (make it again with --fresh)\n", session.id);
        print_summary(result, store, scenario, session, &repo, nullptr, 0);
      }
      return exit_code(result["verdict"]);
    }
    context.events.note("resume", fmt::format("resuming session {}", session.id),
                        {{"session", session.id}});
  } else {
    session.kind = SessionKind::kBisect;
    session.scenario = scenario.name;
    session.config_path = std::filesystem::absolute(scenario.source_file).string();
    session.config_hash = config_hash;
    session.good_refs = options.goods;
    session.good_commits = candidates.goods;
    session.bad_ref = options.bad;
    session.bad_commit = candidates.bad;
    session.strategy = options.strategy;
    session.options_json = nlohmann::json{
        {"confidence", options.confidence},
        {"paths", options.paths},
        {"variant",
         options.variant}}.dump();
    session.id = store.create_session(session);
    store.set_candidates(session.id, [&] {
      std::vector<std::string> ids;
      for (const auto& node : candidates.graph.nodes) ids.push_back(node.id);
      return ids;
    }());
  }
  context.events.emit("session", {{"session", session.id},
                                  {"candidates", candidates.graph.nodes.size()},
                                  {"good", candidates.goods},
                                  {"bad", candidates.bad}});

  SessionInput input;
  input.graph = &candidates.graph;
  input.good = candidates.goods.front();
  input.metric = scenario.metrics.front();
  input.spec = scenario.bisect;
  auto strategy =
      make_strategy(options.strategy, scenario.bisect, input.metric, options.confidence);
  const std::string metric = metric_key(input.metric);

  // A session killed here (Ctrl-C, kill -9) stays "running" and resumes from its journal.
  SessionResult result;
  std::optional<CommitMeasurer> kernels;
  if (sim) {
    SimMeasurer model(candidates.graph, input.good, scenario.sim);
    StoredSimMeasurer measurer(model, store, scenario, session.id);
    StoreJournal journal(store, context.events, measurer, session.id, metric);
    input.revert = [&](const std::string& base, const std::string& commit) {
      return model.revert(base, commit);
    };
    result = run_session(input, *strategy, measurer, journal);
  } else {
    kernels.emplace(scenario, store, context.events, scenario.workdir);
    KernelMeasurer measurer(*kernels, find_variant(scenario, options.variant), session.id);
    StoreJournal journal(store, context.events, measurer, session.id, metric);
    input.revert = [&](const std::string& base, const std::string& commit) {
      RevertPlan plan;
      try {
        plan.measure_id = revert_commits(repo, base, {commit}).commit_id;
        plan.ok = true;
      } catch (const Error& error) {
        plan.reason = error.what();
      }
      return plan;
    };
    result = run_session(input, *strategy, measurer, journal);
  }

  auto json = result_json(session.id, result, &repo);
  store.finish_session(
      session.id,
      result.verdict == SessionVerdict::kAborted ? SessionStatus::kAborted : SessionStatus::kDone,
      json.dump());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (globals.json) {
    context.events.emit("culprit", json);
    fmt::print("{}\n", json.dump());
  } else {
    print_summary(json, store, scenario, session, &repo, kernels ? &kernels->timings() : nullptr,
                  seconds);
  }
  return exit_code(json["verdict"]);
}

}  // namespace

void add_bisect_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand("bisect", "find the commit that caused a regression");
  auto options = std::make_shared<BisectOptions>();
  command->add_option("-c,--config", options->config, "scenario YAML")->required();
  command->add_option("--good", options->goods, "a commit without the regression (repeatable)");
  command->add_option("--bad", options->bad, "a commit with the regression");
  command->add_option("--strategy", options->strategy, "adaptive, bayes, classic, lkp, pinpoint")
      ->check(CLI::IsMember(strategy_names()))
      ->capture_default_str();
  command->add_option("--confidence", options->confidence, "bayes: stop at this probability")
      ->check(CLI::Range(0.5, 0.9999))
      ->capture_default_str();
  command->add_option("--paths", options->paths, "only commits touching these paths");
  command->add_option("--variant", options->variant, "workload variant (default: none)");
  command->add_option("--resume", options->resume, "continue session N")
      ->check(CLI::PositiveNumber);
  command->add_flag("--fresh", options->fresh, "start a new session even if one answered this");
  command->callback([&globals, &action, options] {
    action = [&globals, options] { return bisect(globals, *options); };
  });
}

}  // namespace kbisect
