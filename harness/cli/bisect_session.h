// A bisection as `kbisect bisect` and `kbisect nightly` run it: find the stored session that
// asks the same question (or start one), run it to its end with the scenario's Measurer (real
// kernels, or runner: sim) and its journal, and store the result. Every sample and verdict is
// committed as it happens, so a killed bisection resumes from where it was.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "git/repository.h"
#include "pipeline/commit_measurer.h"
#include "store/records.h"

namespace kbisect {

struct BisectRequest {
  std::vector<std::string> goods;  // refs as the user gave them
  std::string bad;
  std::string strategy = "adaptive";
  std::optional<double> confidence;  // adaptive's and bayes' stop; unset: the strategy's own
  std::vector<std::string> paths;
  std::string variant;
  int64_t resume = 0;  // continue this session; 0: find or start one
  bool fresh = false;  // start a new session even if one answered this
};

struct BisectRun {
  SessionRecord session;
  // The result object of the CLI contract: session, culprit, verdict, steps, samples,
  // confirmed, and more.
  nlohmann::json result;
  bool answered_before = false;         // a stored session had the answer; nothing was measured
  std::optional<PhaseTimings> timings;  // real kernels: what the builds and boots took
  double seconds = 0;
};

// `on_session` is called with the session's id once it exists and this process holds its
// lock, in the transaction that made it (what it stores is stored with the session), for a
// caller to name a search that stops or is killed.
BisectRun run_bisect(CommandContext& context, const Repository& repo, const BisectRequest& request,
                     const std::function<void(int64_t)>& on_session = {});

// The result object of a bisection that stopped on `error` (verdict "aborted"): what the
// session (none: 0; no store: none could be opened) measured up to there. It stays resumable.
nlohmann::json stopped_result(Store* store, int64_t session_id, const std::string& error);

// The session a command line names (log, report): a session id, or last / latest for the newest
// session in `store`.
int64_t session_named(Store& store, const std::string& text);

// The request that started `session` (as --resume goes on with it): its endpoints as the
// commits they were resolved to, its strategy and options.
BisectRequest request_of(const SessionRecord& session);

// The result for a person: verdict, culprit with the metric at good, bad, its parents and
// itself, the confirmation, skips, counts and (when measured now) timings.
void print_bisect_summary(const BisectRun& run, CommandContext& context, const Repository& repo);

// The samples of the bisected metric that a session took of `commit` (in its variant), or of
// the identical kernel image it stood for.
std::vector<double> session_samples(Store& store, const Scenario& scenario,
                                    const SessionRecord& session, const std::string& commit);

}  // namespace kbisect
