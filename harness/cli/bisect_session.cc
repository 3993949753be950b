#include "cli/bisect_session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "bisect/session.h"
#include "bisect/sim_measurer.h"
#include "bisect/statistics.h"
#include "common/error.h"
#include "common/json_text.h"
#include "common/shell_quote.h"
#include "config/config.h"
#include "config/scenario_hash.h"
#include "git/candidates.h"
#include "git/revert.h"
#include "pipeline/session_measurer.h"
#include "pipeline/store_journal.h"
#include "report/format.h"
#include "report/outline.h"
#include "store/metrics.h"
#include "store/store_lock.h"

namespace kbisect {
namespace {

// How the scenario judges samples: the session's journal keeps the values of its metric, and
// its verdicts were made at its settings, so another metric, direction or setting asks
// another question, and its samples must not mix with the session's.
nlohmann::json judging(const Scenario& scenario) {
  const MetricSpec& metric = scenario.metrics.front();
  const BisectSpec& spec = scenario.bisect;
  return {{"metric", metric_key(metric)},
          {"better", metric.better == Better::kHigher ? "higher" : "lower"},
          {"min_samples", spec.min_samples},
          {"max_samples", spec.max_samples},
          {"alpha", spec.alpha},
          {"min_effect", spec.min_effect},
          {"boot_failure_is_bad", spec.boot_failure_is_bad}};
}

// What a session asks besides its scenario and endpoints, as stored in its options: a request
// that differs in any of these asks another question (a variant measures another workload).
nlohmann::json question_options(const BisectRequest& request, const Scenario& scenario) {
  return {{"confidence", request.confidence ? nlohmann::json(*request.confidence) : nullptr},
          {"paths", request.paths},
          {"variant", request.variant},
          {"judged_by", judging(scenario)}};
}

// A resumed session's journal holds values of its metric and verdicts made at its settings.
// Sessions from before these were stored say nothing, and resume as they are.
void check_same_judging(const SessionRecord& session, const Scenario& scenario) {
  const auto stored =
      nlohmann::json::parse(session.options_json).value("judged_by", nlohmann::json());
  const nlohmann::json now = judging(scenario);
  if (stored.is_null() || stored == now) return;
  std::vector<std::string> changes;
  for (const auto& [key, value] : now.items()) {
    if (stored.value(key, nlohmann::json()) != value) {
      changes.push_back(fmt::format(
          "{} {} (now {})", key, json_text(stored.value(key, nlohmann::json())), json_text(value)));
    }
  }
  fail(
      "session {} was started judging by {}; resume it with the config it was started with "
      "({}), or start a new session",
      session.id, fmt::join(changes, ", "), session.config_path);
}

SessionRecord resumed_session(Store& store, int64_t id) {
  // Asked before the store would create a database.
  auto session = Store::holds_data(store.path()) ? store.session(id) : std::nullopt;
  if (const auto bisection = session ? nightly_bisection(*session) : std::nullopt) {
    fail("session {} is a nightly; its bisection is session {}, which --resume {} goes on with", id,
         *bisection, *bisection);
  }
  if (!session || session->kind != SessionKind::kBisect) {
    fail("there is no bisect session {} in {}; list them with `kbisect query sessions`", id,
         store.path().string());
  }
  return *session;
}

// An earlier session that asked the same question (same scenario, endpoints, strategy and
// options), unless --fresh. None: start a new one.
std::optional<SessionRecord> earlier_session(Store& store, const BisectRequest& request,
                                             const Scenario& scenario,
                                             const Candidates& candidates) {
  if (request.fresh) return std::nullopt;
  const std::string config_hash = scenario_hash(scenario);
  const nlohmann::json options = question_options(request, scenario);
  for (auto& session : store.sessions()) {
    if (session.kind == SessionKind::kBisect && session.config_hash == config_hash &&
        session.bad_commit == candidates.bad && session.good_commits == candidates.goods &&
        session.strategy == request.strategy && session.status != SessionStatus::kAborted &&
        nlohmann::json::parse(session.options_json) == options) {
      return session;
    }
  }
  return std::nullopt;
}

nlohmann::json result_json(int64_t session_id, const SessionResult& result,
                           const std::vector<VerdictRecord>& verdicts, const Repository& repo) {
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
      {"revert_check", result.revert_check},
      {"parents", result.parents},
      {"revert_commit", result.revert_commit},
      {"drift", result.drift},
      {"refuted", nlohmann::json::array()}};
  for (const auto& refuted : result.refuted) {
    json["refuted"].push_back({{"commit", refuted.commit}, {"parent_check", refuted.parent_check}});
  }
  json["skip_reasons"] = nlohmann::json::object();
  for (const auto& commit : result.skipped) {
    json["skip_reasons"][commit] = skip_reason(verdicts, commit);
  }
  if (result.culprit) json["subject"] = repo.commit_info(*result.culprit).subject;
  return json;
}

SessionRecord new_session(CommandContext& context, const BisectRequest& request,
                          const Candidates& candidates) {
  const Scenario& scenario = context.scenario;
  SessionRecord session;
  session.kind = SessionKind::kBisect;
  session.scenario = scenario.name;
  session.config_path = stored_config_path(scenario);
  session.config_hash = scenario_hash(scenario);
  session.good_refs = request.goods;
  session.good_commits = candidates.goods;
  session.bad_ref = request.bad;
  session.bad_commit = candidates.bad;
  session.strategy = request.strategy;
  session.options_json = question_options(request, scenario).dump();
  session.id = context.store.create_session(session);
  std::vector<std::string> ids;
  for (const auto& node : candidates.graph.nodes) ids.push_back(node.id);
  context.store.set_candidates(session.id, ids);
  return session;
}

// What a session measures with, made before the session is stored: a scenario it could not
// run (an unknown variant, a sim change that names no candidate) then leaves nothing behind.
struct MeasureSetup {
  std::optional<SimMeasurer> model;  // runner: sim
  const Variant* variant = nullptr;  // real kernels: the workload variant (nullptr: the default)
};

MeasureSetup measure_setup(CommandContext& context, const BisectRequest& request,
                           const Candidates& candidates) {
  const Scenario& scenario = context.scenario;
  MeasureSetup setup;
  if (scenario.vm.runner == RunnerKind::kSim) {
    if (!request.variant.empty()) {
      fail(
          "--variant {}: runner: sim draws its samples from a model and runs no workload; "
          "leave --variant out",
          request.variant);
    }
    setup.model.emplace(candidates.graph, candidates.goods.front(), scenario.sim);
  } else {
    setup.variant = context.variant(request.variant);
  }
  return setup;
}

// Runs the search with the scenario's Measurer: runner: sim draws from its model, anything
// else builds and boots real kernels. Returns the timings of the real ones.
std::optional<PhaseTimings> search(CommandContext& context, const Repository& repo,
                                   const BisectRequest& request, MeasureSetup& setup,
                                   const SessionRecord& session, SessionInput& input,
                                   SessionResult& result) {
  const Scenario& scenario = context.scenario;
  auto strategy =
      make_strategy(request.strategy, scenario.bisect, input.metric, request.confidence);
  // A session killed here (Ctrl-C, kill -9) stays "running" and resumes from its journal.
  if (setup.model) {
    SimMeasurer& model = *setup.model;
    StoredSimMeasurer measurer(model, context.store, scenario, session.id);
    StoreJournal journal(context.store, context.events, measurer, session.id);
    input.revert = [&](const std::string& base, const std::string& commit) {
      return model.revert(base, commit);
    };
    result = run_session(input, *strategy, measurer, journal);
    return std::nullopt;
  }
  CommitMeasurer kernels(scenario, context.store, context.events, scenario.workdir);
  KernelMeasurer measurer(kernels, setup.variant, context.store, session.id,
                          metric_key(input.metric));
  StoreJournal journal(context.store, context.events, measurer, session.id);
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
  return kernels.timings();
}

std::string median_text(Store& store, const Scenario& scenario, const SessionRecord& session,
                        const std::string& commit) {
  auto values = session_samples(store, scenario, session, commit);
  if (values.empty()) {
    // Say how its runs ended: a boot regression's bad side never boots.
    const std::string measured = measured_as(store, session.id, commit);
    const auto runs = store.runs_of_session(session.id);
    auto last = std::find_if(runs.rbegin(), runs.rend(),
                             [&](const RunRecord& run) { return run.commit == measured; });
    if (last == runs.rend()) return "not measured";
    return fmt::format("not measured ({})", outcome_name(last->outcome));
  }
  return fmt::format("{:.1f} (median of {}, stddev {})", median(values), values.size(),
                     format_percent_stddev(values));
}

BisectRun stored_answer(const SessionRecord& session) {
  BisectRun run;
  run.session = session;
  run.result = nlohmann::json::parse(session.result_json);
  run.answered_before = true;
  return run;
}

}  // namespace

int64_t session_named(Store& store, const std::string& text) {
  const std::optional<SessionName> name = parse_session_name(text);
  if (!name) {
    fail("'{}' is not a session id; give a number (see `kbisect query sessions`) or last", text);
  }
  if (!name->newest) return name->id;
  auto sessions = store.sessions();
  if (sessions.empty()) fail("{} holds no session yet", store.path().string());
  return sessions.front().id;
}

BisectRequest request_of(const SessionRecord& session) {
  const auto options = nlohmann::json::parse(session.options_json);
  BisectRequest request;
  request.goods = session.good_commits;
  request.bad = session.bad_commit;
  request.strategy = session.strategy;
  if (options.value("confidence", nlohmann::json()).is_number()) {
    request.confidence = options["confidence"].get<double>();
  }
  request.paths = options.value("paths", std::vector<std::string>{});
  request.variant = options.value("variant", "");
  request.resume = session.id;
  return request;
}

BisectRun run_bisect(CommandContext& context, const Repository& repo, const BisectRequest& request,
                     const std::function<void(int64_t)>& on_session) {
  const auto start = std::chrono::steady_clock::now();
  const Scenario& scenario = context.scenario;
  Store& store = context.store;
  const std::string config_hash = scenario_hash(scenario);
  // A resumed session goes on asking what it was started with.
  BisectRequest asked = request;
  std::optional<SessionRecord> earlier;
  if (asked.resume != 0) {
    earlier = resumed_session(store, asked.resume);
    asked = request_of(*earlier);
    // Samples of another scenario (another kernel config, workload or device) would mix with
    // the session's.
    if (earlier->config_hash != config_hash) {
      fail(
          "session {} was started with another scenario than {} (config hash {} against {}); "
          "resume it with the config it was started with ({}), or start a new session",
          earlier->id, scenario.source_file.string(), earlier->config_hash.substr(0, 12),
          config_hash.substr(0, 12), earlier->config_path);
    }
    check_same_judging(*earlier, scenario);
  }
  if (asked.bad.empty() || asked.goods.empty()) {
    fail("give --good REF and --bad REF, or --resume N");
  }
  Candidates candidates = find_candidates(repo, {asked.bad, asked.goods, asked.paths});
  MeasureSetup setup = measure_setup(context, asked, candidates);
  BisectRun run;
  std::optional<StoreLock> lock;
  {
    // Finding the session that asks this, making it and locking it are one transaction: of two
    // processes started at once on one question, one makes the session, the other finds it
    // locked.
    Transaction making = store.transaction();
    if (!earlier) earlier = earlier_session(store, asked, scenario, candidates);
    if (earlier && earlier->status == SessionStatus::kDone) return stored_answer(*earlier);
    run.session = earlier ? *earlier : new_session(context, asked, candidates);
    // One process runs a session at a time: a second one would journal samples the first
    // never sees. A process killed outright leaves the lock behind, and the next run takes it
    // over.
    lock.emplace(store, bisect_lock_name(run.session.id));
    // Only now: a process refused the lock must not report the holder's samples as its own.
    if (on_session) on_session(run.session.id);
    making.commit();
  }
  if (const auto& gone = lock->taken_over_from()) {
    context.events.note("warning",
                        fmt::format("took over lock '{}' from {}, which is gone (killed or "
                                    "crashed)",
                                    lock->name(), describe_holder(*gone)));
  }
  // The process that held the lock may have finished the session meanwhile.
  if (auto now = store.session(run.session.id); now && now->status == SessionStatus::kDone) {
    return stored_answer(*now);
  }
  if (earlier) {
    context.events.note("resume", fmt::format("resuming session {}", run.session.id),
                        {{"session", run.session.id}});
  }
  context.events.emit("session", {{"session", run.session.id},
                                  {"candidates", candidates.graph.nodes.size()},
                                  {"good", candidates.goods},
                                  {"bad", candidates.bad}});

  SessionInput input;
  input.graph = &candidates.graph;
  input.good = candidates.goods.front();
  input.metric = scenario.metrics.front();
  input.spec = scenario.bisect;
  input.merge_bases = candidates.untested_merge_bases;
  input.parents_of = [&repo](const std::string& commit) {
    return repo.commit_info(commit).parents;
  };
  SessionResult result;
  try {
    run.timings = search(context, repo, asked, setup, run.session, input, result);
  } catch (const Error&) {
    context.events.note(
        "warning",
        fmt::format("session {} stopped and keeps what it measured; continue it with `kbisect "
                    "--db {} bisect -c {} --resume {}`",
                    run.session.id, shell_quote(store.path().string()),
                    shell_quote(run.session.config_path), run.session.id),
        {{"session", run.session.id}});
    throw;
  }

  run.result = result_json(run.session.id, result, store.verdicts_of(run.session.id), repo);
  store.finish_session(
      run.session.id,
      result.verdict == SessionVerdict::kAborted ? SessionStatus::kAborted : SessionStatus::kDone,
      json_text(run.result));
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

nlohmann::json stopped_result(Store* store, int64_t session_id, const std::string& error) {
  int samples = 0;
  // As a finished result counts its steps: the commits the search measured, without the
  // endpoints and the skipped ones. Verdicts alone would not do: adaptive's come at its end.
  std::set<std::string> judged;
  if (store && session_id != 0) {
    for (const auto& entry : store->journal_of(session_id)) {
      samples += entry.kind == journal_kind_name(JournalEntry::Kind::kSample);
    }
    for (const auto& step : store->steps_of(session_id)) {
      if (step.phase == phase_name(Phase::kSearch)) judged.insert(step.commit);
    }
    for (const auto& verdict : store->verdicts_of(session_id)) {
      if (verdict.verdict == Verdict::kSkip) judged.erase(verdict.commit);
    }
    if (auto session = store->session(session_id)) {
      judged.erase(session->bad_commit);
      for (const auto& good : session->good_commits) judged.erase(good);
    }
  }
  return {{"session", session_id != 0 ? nlohmann::json(session_id) : nlohmann::json(nullptr)},
          {"culprit", nullptr},
          {"verdict", session_verdict_name(SessionVerdict::kAborted)},
          {"steps", judged.size()},
          {"samples", samples},
          {"confirmed", false},
          {"message", error}};
}

std::vector<double> session_samples(Store& store, const Scenario& scenario,
                                    const SessionRecord& session, const std::string& commit) {
  SampleFilter filter;
  filter.commit = measured_as(store, session.id, commit);
  filter.config_hash = scenario_hash(scenario);
  filter.variant = request_of(session).variant;
  filter.session_id = session.id;
  return store.samples_for(filter, metric_key(scenario.metrics.front()));
}

// One line a skipped commit, as `git bisect` names one: id, subject, and why it was skipped.
void print_skipped(const nlohmann::json& skipped, const std::vector<VerdictRecord>& verdicts,
                   const Repository& repo) {
  for (const std::string commit : skipped) {
    fmt::print("skipped:  {} {} ({})\n", short_id(commit), repo.commit_info(commit).subject,
               skip_reason(verdicts, commit));
  }
}

void print_bisect_summary(const BisectRun& run, CommandContext& context, const Repository& repo) {
  const nlohmann::json& result = run.result;
  const SessionRecord& session = run.session;
  Store& store = context.store;
  const Scenario& scenario = context.scenario;
  const std::string verdict = result["verdict"];
  fmt::print("\nsession {}: {}\n", session.id, verdict);
  if (result["culprit"].is_string()) {
    const std::string culprit = result["culprit"];
    fmt::print("culprit:  {} {}\n", culprit, result.value("subject", ""));
    const std::string metric = metric_key(scenario.metrics.front());
    fmt::print("{} at good {}: {}\n", metric, session.good_commits.front().substr(0, 12),
               median_text(store, scenario, session, session.good_commits.front()));
    fmt::print("{} at bad  {}: {}\n", metric, session.bad_commit.substr(0, 12),
               median_text(store, scenario, session, session.bad_commit));
    for (const auto& parent : repo.commit_info(culprit).parents) {
      fmt::print("{} at culprit's parent {}: {}\n", metric, parent.substr(0, 12),
                 median_text(store, scenario, session, parent));
    }
    fmt::print("{} at culprit: {}\n", metric, median_text(store, scenario, session, culprit));
    fmt::print("confirmation: culprit {}; revert {}\n", result.value("parent_check", ""),
               result.value("revert_check", ""));
    for (const auto& refuted : result.value("refuted", nlohmann::json::array())) {
      fmt::print("refuted before: {}\n", refuted_text(refuted));
    }
    if (!result.value("message", "").empty()) fmt::print("{}\n", result.value("message", ""));
  } else if (!result.value("message", "").empty() && verdict != "only-skipped") {
    // only-skipped's message is said below, with the commits the culprit is among.
    fmt::print("{}\n", result.value("message", ""));
  }
  print_skipped(result["skipped"], store.verdicts_of(session.id), repo);
  if (verdict == "only-skipped") {
    fmt::print("only skipped commits are left; the culprit is one of: {}\n",
               short_ids(result["candidates"]));
  }
  fmt::print("steps {}, samples {}, confirmed {}\n", result["steps"].get<int>(),
             result["samples"].get<int>(), result["confirmed"].get<bool>() ? "yes" : "no");
  if (const std::string drift = result.value("drift", ""); !drift.empty()) {
    fmt::print("host drift: the endpoints moved by {}\n", drift);
  }
  if (run.timings) {
    const PhaseTimings& t = *run.timings;
    fmt::print(
        "builds {}, build-cache hits {}, boots {}; time: checkout {:.0f} s, config {:.0f} s, "
        "build {:.0f} s, image {:.0f} s, boot {:.0f} s, workload {:.0f} s, teardown {:.0f} s, "
        "total {:.0f} s\n",
        t.builds, t.cache_hits, t.boots, t.checkout, t.config, t.build, t.image, t.boot, t.workload,
        t.teardown, run.seconds);
  }
}

}  // namespace kbisect
