// kbisect nightly -c CONFIG [--baseline REF]: measure the tip of the scenario's branch against
// the last known-good baseline with the bisection's own endpoint check, bisect a regression,
// and otherwise make the tip the new baseline. One nightly per scenario and database at a time.
//
// Baseline and tip are the good and bad ends of an ordinary bisect session: the session first
// measures both, interleaved, until its statistics say whether they differ, and only then
// searches. So "did the tip regress?" is answered by exactly the statistics and the Measurer
// (real kernels, or runner: sim) that a bisection uses, and a regression's bisection reuses
// the samples that found it. The tip is measured afresh next to the baseline every night: an
// old baseline measurement would turn host drift into regressions.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bisect/session.h"
#include "bisect/statistics.h"
#include "cli/bisect_session.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/json_text.h"
#include "common/shell_quote.h"
#include "config/config.h"
#include "config/scenario_hash.h"
#include "git/fetch.h"
#include "store/metrics.h"
#include "store/store_lock.h"

namespace kbisect {
namespace {

// The exit codes are a contract for cron and systemd (README "Nightly"); 1 is any error and
// 128+N an interrupt, as for every subcommand.
enum class NightlyOutcome {
  kNoChange = 0,              // the tip is as good as the baseline (or nothing is new)
  kRegressionBisected = 2,    // the tip regressed; the bisection named the culprit
  kRegressionIncomplete = 3,  // the tip regressed; the bisection could not finish
  kBusy = 4,                  // another nightly of this scenario holds the lock
};

const char* nightly_outcome_name(NightlyOutcome outcome) {
  switch (outcome) {
    case NightlyOutcome::kNoChange:
      return "no-change";
    case NightlyOutcome::kRegressionBisected:
      return "regression-bisected";
    case NightlyOutcome::kRegressionIncomplete:
      return "regression-incomplete";
    case NightlyOutcome::kBusy:
      return "busy";
  }
  return "?";
}

struct NightlyOptions {
  std::filesystem::path config;
  std::string baseline;  // --baseline: compare against this ref this time
};

struct Baseline {
  std::string ref;     // as written where it came from
  std::string commit;  // resolved
  std::string source;  // for the person: where it came from
};

std::string lock_name(const Scenario& scenario) {
  return "nightly:" + scenario.name;
}

// --baseline, else the baseline a nightly stored, else nightly.baseline from the config.
Baseline choose_baseline(Store& store, const Repository& repo, const Scenario& scenario,
                         const NightlyOptions& options) {
  const NightlySpec& spec = *scenario.nightly;
  if (!options.baseline.empty()) {
    return {options.baseline, repo.resolve(options.baseline), "--baseline"};
  }
  if (auto stored = store.baseline(scenario.name, spec.variant)) {
    std::string by = stored->session_id ? fmt::format(" by nightly session {}", *stored->session_id)
                                        : std::string();
    const std::string source =
        fmt::format("the stored baseline, set{} at {}", by, stored->updated_at);
    try {
      return {stored->commit, repo.resolve(stored->commit), source};
    } catch (const Error&) {
      fail(
          "{} {} is not in {} (was its history rewritten?): run once with --baseline REF, a "
          "commit known to be good",
          source, stored->commit.substr(0, 12), repo.path().string());
    }
  }
  if (!spec.baseline.empty()) {
    return {spec.baseline, repo.resolve(spec.baseline), "nightly.baseline"};
  }
  fail(
      "no baseline is stored for scenario {} in {} yet, and {} sets no nightly.baseline: set "
      "nightly.baseline to a commit known to be good (e.g. the last release) for the first "
      "nightly, or pass --baseline REF",
      scenario.name, store.path().string(), scenario.source_file.string());
}

// The ref whose commit a nightly measures: the branch, or with remote: its remote-tracking ref.
std::string measured_ref(const NightlySpec& spec) {
  return spec.remote.empty() ? "refs/heads/" + spec.branch : tracking_ref(spec.remote, spec.branch);
}

// The tip to measure: the local branch, or the remote's after a fetch.
std::string tip_ref(CommandContext& context) {
  const NightlySpec& spec = *context.scenario.nightly;
  if (spec.remote.empty()) return measured_ref(spec);
  const auto start = std::chrono::steady_clock::now();
  context.events.phase_begin("fetch", spec.remote + " " + spec.branch);
  std::string ref = fetch_branch(context.scenario.kernel.repo, spec.remote, spec.branch,
                                 std::chrono::seconds(spec.fetch_timeout_seconds));
  context.events.phase_end(
      "fetch", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
      "ok");
  return ref;
}

SessionRecord nightly_session(const Scenario& scenario, const std::string& tip_ref,
                              const std::string& tip, const Baseline& baseline) {
  SessionRecord session;
  session.kind = SessionKind::kNightly;
  session.scenario = scenario.name;
  session.config_path = stored_config_path(scenario);
  session.config_hash = scenario_hash(scenario);
  session.good_refs = {baseline.ref};
  session.good_commits = {baseline.commit};
  session.bad_ref = tip_ref;
  session.bad_commit = tip;
  const NightlySpec& spec = *scenario.nightly;
  session.options_json = nlohmann::json{
      {"branch", spec.branch},
      {"remote", spec.remote},
      {"variant", spec.variant},
      {"baseline_source",
       baseline.source}}.dump();
  return session;
}

// A session that stopped (aborted) after its endpoint check had found the regression.
bool regression_established(Store& store, int64_t session_id) {
  for (const auto& entry : store.journal_of(session_id)) {
    if (entry.kind == journal_kind_name(JournalEntry::Kind::kEndpointsOk)) return true;
  }
  return false;
}

// The tip as the next nightly's baseline (put in `report` too); stored with the nightly's end.
BaselineRecord new_baseline(Store& store, const Scenario& scenario, const SessionRecord& bisection,
                            const std::string& tip, int64_t nightly_id, nlohmann::json& report) {
  std::vector<double> values = session_samples(store, scenario, bisection, tip);
  if (values.empty()) {
    fail("internal error: bisect session {} has no samples of the tip {}", bisection.id, tip);
  }
  BaselineRecord baseline;
  baseline.scenario = scenario.name;
  baseline.variant = scenario.nightly->variant;
  baseline.metric = metric_key(scenario.metrics.front());
  baseline.commit = tip;
  baseline.config_hash = scenario_hash(scenario);
  baseline.median = median(values);
  baseline.spread = mad(values);
  baseline.samples = static_cast<int>(values.size());
  baseline.session_id = nightly_id;
  report["new_baseline"] = {{"commit", tip},
                            {"metric", baseline.metric},
                            {"median", baseline.median},
                            {"mad", baseline.spread},
                            {"samples", baseline.samples}};
  return baseline;
}

// Why the bisection could not measure the tip or the baseline, with what a nightly can do
// about it (bisect's advice, another bad commit, is not for a nightly); none when both measured.
std::optional<std::string> unmeasured_end(Store& store, int64_t session_id, const std::string& tip,
                                          const std::string& baseline) {
  const JournalRecord* failure = nullptr;
  std::vector<JournalRecord> journal = store.journal_of(session_id);
  for (const JournalRecord& entry : journal) {
    if (entry.kind == journal_kind_name(JournalEntry::Kind::kFailure) &&
        (entry.commit == tip || entry.commit == baseline)) {
      failure = &entry;
    }
  }
  if (failure == nullptr) return std::nullopt;
  const std::string why = fmt::format("({}: {})", failure->status, failure->detail);
  if (failure->commit == tip) {
    return fmt::format(
        "the tip {} cannot be measured {}; there is nothing to compare until the branch moves "
        "past it (the next nightly measures its new tip)",
        tip, why);
  }
  return fmt::format(
      "the baseline {} cannot be measured {}; run once with --baseline REF naming a known-good "
      "ancestor of the tip that builds and boots",
      baseline, why);
}

// Baseline against tip as a bisect session; fills `report` (and `next_baseline` when the tip is
// not worse) and returns the outcome.
NightlyOutcome compare_and_bisect(CommandContext& context, const Repository& repo,
                                  const Baseline& baseline, const std::string& tip,
                                  int64_t nightly_id, nlohmann::json& report,
                                  std::optional<BaselineRecord>& next_baseline) {
  const Scenario& scenario = context.scenario;
  if (tip == baseline.commit) {
    report["message"] = "no new commits since the baseline: nothing to measure";
    return NightlyOutcome::kNoChange;
  }
  if (!repo.is_ancestor(baseline.commit, tip)) {
    fail(
        "the baseline {} ({}) is not an ancestor of the tip {} of {}: was the branch "
        "rewritten? Run once with --baseline REF naming a known-good ancestor of the tip",
        baseline.commit, baseline.source, tip, scenario.nightly->branch);
  }
  BisectRequest request;
  request.goods = {baseline.commit};
  request.bad = tip;
  request.variant = scenario.nightly->variant;
  int64_t bisect_session = 0;
  // Stored with the bisection it links to: a nightly killed outright names it still (report,
  // log and query steps follow it there), as does one still running.
  auto link = [&](int64_t id) {
    bisect_session = id;
    context.store.set_session_result(nightly_id,
                                     json_text({{"nightly", nightly_id}, {"bisect_session", id}}));
  };
  BisectRun run;
  try {
    run = run_bisect(context, repo, request, link);
  } catch (const Error& error) {
    // The next nightly resumes this bisection (if the tip has not moved): say which it is, and
    // what it measured so far.
    if (bisect_session != 0) {
      report["bisect_session"] = bisect_session;
      report["bisect"] = stopped_result(&context.store, bisect_session, error.what());
    }
    throw;
  }
  const std::string verdict = run.result["verdict"];
  const bool compared = verdict == "no-regression" || verdict == "found" ||
                        verdict == "only-skipped" ||
                        regression_established(context.store, run.session.id);
  if (!compared) {
    if (auto why = unmeasured_end(context.store, run.session.id, tip, baseline.commit)) {
      run.result["message"] = *why;
    }
  }
  if (context.events.mode() != Events::Mode::kJsonLines) {
    if (run.answered_before) {
      fmt::print("bisect session {} answered this comparison before; nothing was measured\n",
                 run.session.id);
    }
    print_bisect_summary(run, context, repo);
  }
  report["bisect_session"] = run.session.id;
  report["bisect"] = run.result;
  report["culprit"] = run.result["culprit"];
  report["report"] =
      shell_command({"kbisect", "--db", std::filesystem::absolute(context.store.path()).string(),
                     "report", std::to_string(run.session.id)});
  if (verdict == "no-regression") {
    next_baseline = new_baseline(context.store, scenario, run.session, tip, nightly_id, report);
    report["message"] = run.result.value("message", "");
    return NightlyOutcome::kNoChange;
  }
  if (verdict == "found") return NightlyOutcome::kRegressionBisected;
  if (compared) return NightlyOutcome::kRegressionIncomplete;
  fail(
      "cannot compare the tip (the bisection's bad end) with the baseline (its good end): {} "
      "(bisect session {})",
      run.result.value("message", verdict), run.session.id);
}

void print_report(const nlohmann::json& report, NightlyOutcome outcome) {
  fmt::print("\nnightly {}: {}\n", report["nightly"].get<int64_t>(), nightly_outcome_name(outcome));
  fmt::print("tip {} of {} against baseline {} ({})\n", report["tip"].get<std::string>(),
             report["branch"].get<std::string>(), report["baseline"].get<std::string>(),
             report["baseline_source"].get<std::string>());
  switch (outcome) {
    case NightlyOutcome::kNoChange:
      if (report.contains("new_baseline")) {
        const auto& baseline = report["new_baseline"];
        fmt::print("the tip {} is the new baseline: {} median {:.6g} (MAD {:.3g}, {} samples)\n",
                   baseline["commit"].get<std::string>().substr(0, 12),
                   baseline["metric"].get<std::string>(), baseline["median"].get<double>(),
                   baseline["mad"].get<double>(), baseline["samples"].get<int>());
      } else {
        fmt::print("{}\n", report["message"].get<std::string>());
      }
      break;
    case NightlyOutcome::kRegressionBisected:
      fmt::print("regression: culprit {} {}\n", report["bisect"]["culprit"].get<std::string>(),
                 report["bisect"].value("subject", ""));
      fmt::print("report: {}\n", report["report"].get<std::string>());
      break;
    case NightlyOutcome::kRegressionIncomplete:
      fmt::print("regression, but the bisection did not name a culprit: {}\n",
                 report["bisect"].value("message", report["bisect"]["verdict"].dump()));
      fmt::print("report: {}\n", report["report"].get<std::string>());
      break;
    case NightlyOutcome::kBusy:
      break;
  }
}

int refuse_busy(const GlobalOptions& globals, const LockHeld& held) {
  fmt::print(stderr, "kbisect: nightly: another nightly of this scenario is running: {}\n",
             held.what());
  if (globals.json) {
    fmt::print("{}\n", nlohmann::json{{"verdict", nightly_outcome_name(NightlyOutcome::kBusy)},
                                      {"exit_code", static_cast<int>(NightlyOutcome::kBusy)},
                                      {"holder", holder_json(held.holder())},
                                      {"message", held.what()}}
                           .dump());
  }
  return static_cast<int>(NightlyOutcome::kBusy);
}

// Called with the scenario's lock held: a nightly of it still "running" is one whose process was
// killed (kill -9, a host that went down), which could not say so itself.
void abort_dead_nightlies(Store& store, const std::string& scenario) {
  for (const SessionRecord& session : store.sessions()) {
    if (session.kind != SessionKind::kNightly || session.scenario != scenario ||
        session.status != SessionStatus::kRunning) {
      continue;
    }
    nlohmann::json result = {
        {"nightly", session.id},
        {"verdict", "aborted"},
        {"message", "its process was gone before it finished (killed, or its host went down)"}};
    if (auto bisection = nightly_bisection(session)) result["bisect_session"] = *bisection;
    store.finish_session(session.id, SessionStatus::kAborted, json_text(result));
  }
}

// The result of a nightly that stopped on `error`: stored with its session, and the last line
// of its --json output.
void mark_stopped(nlohmann::json& report, const Error& error) {
  const auto* interrupted = dynamic_cast<const Interrupted*>(&error);
  report["verdict"] = "aborted";
  report["exit_code"] = interrupted ? 128 + interrupted->signal_number() : 1;
  report["message"] = error.what();
}

// A nightly that stopped before it had a tip and a baseline to compare (the fetch failed, a ref
// does not resolve) is a session too, aborted with the message, so that a nightly that fails
// every night shows in `kbisect query sessions` and `report last`. `ref` and `tip` are what it
// had got to, maybe nothing.
void store_failed_start(Store& store, const Scenario& scenario, const std::string& ref,
                        const std::string& tip, const Error& error, nlohmann::json& report) {
  SessionRecord session = nightly_session(
      scenario, ref.empty() ? measured_ref(*scenario.nightly) : ref, tip, Baseline{});
  session.good_refs.clear();
  session.good_commits.clear();
  const int64_t id = store.create_session(session);
  report["nightly"] = id;
  mark_stopped(report, error);
  store.finish_session(id, SessionStatus::kAborted, json_text(report));
}

// Fills `report`, the JSON result, as it goes: a nightly that stops on an error still ends its
// --json output with it.
int run_nightly(const GlobalOptions& globals, const NightlyOptions& options,
                nlohmann::json& report) {
  CommandContext context(globals, options.config);
  const Scenario& scenario = context.scenario;
  if (!scenario.nightly) {
    fail(
        "{} has no nightly: section; add one, e.g. nightly: {{branch: master, remote: origin, "
        "baseline: v6.1}} (keys: configs/example.yaml)",
        scenario.source_file.string());
  }
  std::optional<StoreLock> lock;
  try {
    lock.emplace(context.store, lock_name(scenario));
  } catch (const LockHeld& held) {
    return refuse_busy(globals, held);
  }
  report["scenario"] = scenario.name;
  report["branch"] = scenario.nightly->branch;
  abort_dead_nightlies(context.store, scenario.name);
  if (const auto& previous = lock->taken_over_from()) {
    report["lock_taken_over_from"] = holder_json(*previous);
    context.events.note("warning",
                        fmt::format("took over lock '{}' from {}, which is gone (killed or "
                                    "crashed); a bisection it left unfinished resumes if the "
                                    "tip has not moved",
                                    lock->name(), describe_holder(*previous)),
                        {{"holder", holder_json(*previous)}});
  }

  std::string ref;
  std::optional<Repository> repo;
  std::string tip;
  std::optional<Baseline> baseline_found;
  try {
    ref = tip_ref(context);
    repo.emplace(Repository::open(scenario.kernel.repo, scenario.kernel.repo_place));
    tip = repo->resolve(ref);
    baseline_found = choose_baseline(context.store, *repo, scenario, options);
  } catch (const Error& error) {  // Interrupted too
    try {
      store_failed_start(context.store, scenario, ref, tip, error, report);
    } catch (const Error& store_error) {  // the nightly's own error is the one to report
      context.events.note("warning", fmt::format("this failed nightly could not be stored: {}",
                                                 store_error.what()));
    }
    throw;
  }
  const Baseline& baseline = *baseline_found;
  report["tip"] = tip;
  report["baseline"] = baseline.commit;
  report["baseline_source"] = baseline.source;
  context.events.note(
      "nightly",
      fmt::format("{}: tip {} ({}) against baseline {} ({} {})", scenario.name, tip.substr(0, 12),
                  ref, baseline.commit.substr(0, 12), baseline.source, baseline.ref),
      {{"tip", tip}, {"baseline", baseline.commit}});

  const int64_t nightly_id =
      context.store.create_session(nightly_session(scenario, ref, tip, baseline));
  report["nightly"] = nightly_id;
  std::optional<BaselineRecord> next_baseline;
  const NightlyOutcome outcome = [&] {
    try {
      return compare_and_bisect(context, *repo, baseline, tip, nightly_id, report, next_baseline);
    } catch (const Error& error) {  // Interrupted too: this nightly did not finish
      mark_stopped(report, error);
      context.store.finish_session(nightly_id, SessionStatus::kAborted, json_text(report));
      throw;
    }
  }();
  report["verdict"] = nightly_outcome_name(outcome);
  report["exit_code"] = static_cast<int>(outcome);
  // One transaction: a nightly killed in between would leave a baseline that names a nightly
  // the next one marks aborted.
  Transaction ending = context.store.transaction();
  if (next_baseline) context.store.set_baseline(*next_baseline);
  context.store.finish_session(nightly_id, SessionStatus::kDone, json_text(report));
  ending.commit();
  if (globals.json) {
    fmt::print("{}\n", json_text(report));
  } else {
    print_report(report, outcome);
  }
  return static_cast<int>(outcome);
}

nlohmann::json empty_result() {
  return {{"lock_taken_over_from", nullptr},
          {"bisect_session", nullptr},
          {"culprit", nullptr},
          {"report", nullptr}};
}

int nightly(const GlobalOptions& globals, const NightlyOptions& options) {
  nlohmann::json report = empty_result();
  try {
    return run_nightly(globals, options, report);
  } catch (const Error& error) {
    if (globals.json) {
      mark_stopped(report, error);
      fmt::print("{}\n", json_text(report));
    }
    throw;
  }
}

}  // namespace

nlohmann::json nightly_stopped_result(const std::string& message) {
  nlohmann::json report = empty_result();
  mark_stopped(report, Error(message));
  return report;
}

void add_nightly_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand(
      "nightly",
      "measure the tip of the configured branch against the last good baseline; bisect a "
      "regression, else make the tip the new baseline");
  command->footer(
      "Exit codes: 0 no regression (the tip is the new baseline), 2 regression found and "
      "bisected, 3 regression found but the bisection is incomplete, 4 another nightly of "
      "this scenario and database is running, 1 error, 128+N interrupted by signal N.");
  auto options = std::make_shared<NightlyOptions>();
  command->add_option("-c,--config", options->config, "scenario YAML with a nightly: section")
      ->required();
  command
      ->add_option("--baseline", options->baseline,
                   "compare against this known-good ref this time (e.g. after a rewrite)")
      ->check(not_empty_check("a known-good ref"));
  command->callback([&globals, &action, options] {
    action = [&globals, options] { return nightly(globals, *options); };
  });
}

}  // namespace kbisect
