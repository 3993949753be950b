#include "bisect/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "bisect/journal_state.h"
#include "common/error.h"

namespace kbisect {
namespace {

// The confirmation's cap, in confirm_count() samples a commit: the endpoint check's.
constexpr size_t kConfirmCapFactor = 5;

// How many refuted culprits a session hands back to the search. Each costs another search and
// confirmation; a culprit refuted after that is reported as it stands, unconfirmed.
constexpr size_t kReopenLimit = 1;

// Whether check `a` is further from "worse" than `b`: a confident "not worse" first, then an
// undecided check, then a significant one; within one kind, the larger p.
bool less_clear(const EndpointCheck& a, const EndpointCheck& b) {
  auto rank = [](VerdictKind kind) {
    return kind == VerdictKind::kGood ? 0 : kind == VerdictKind::kUndecided ? 1 : 2;
  };
  if (rank(a.kind) != rank(b.kind)) return rank(a.kind) < rank(b.kind);
  return a.p_value > b.p_value;
}

// The bad endpoint: the first candidate.
const std::string& bad_endpoint(const SessionInput& input) {
  if (input.graph == nullptr || input.graph->nodes.empty()) {
    fail("internal error: a bisect session needs at least the bad commit as a candidate");
  }
  return input.graph->nodes[0].id;
}

JournalEntry make_entry(JournalEntry::Kind kind, Phase phase, const std::string& commit) {
  JournalEntry entry;
  entry.kind = kind;
  entry.phase = phase;
  entry.commit = commit;
  return entry;
}

class Session {
 public:
  Session(const SessionInput& input, const Strategy& strategy, Measurer& measurer,
          SessionJournal& journal)
      : input_(input),
        strategy_(strategy),
        measurer_(measurer),
        journal_(journal),
        boot_strategy_(make_boot_strategy()),
        journaled_(input.good, bad_endpoint(input)),
        state_(*input.graph) {
    for (size_t i = 0; i < input.graph->nodes.size(); ++i) {
      index_[input.graph->nodes[i].id] = static_cast<int>(i);
    }
  }

  SessionResult run() {
    const std::vector<JournalEntry> journal = journal_.replay();
    for (const auto& entry : journal) journaled_.apply(entry);
    refresh();
    // A session killed between a failure and the verdict it makes.
    judge_failures();
    for (;;) {
      if (!aborted_.empty()) return abort(aborted_);
      if (state_.endpoints_verified) {
        if (std::optional<SessionResult> stop = test_merge_bases()) return *stop;
      }
      Action action = strategy().next(state_);
      switch (action.kind) {
        case Action::Kind::kMeasure:
          take_sample(id_of(action.commit), Phase::kSearch, action.candidates_left);
          break;
        case Action::Kind::kVerdict: {
          JournalEntry entry =
              make_entry(JournalEntry::Kind::kVerdict, Phase::kSearch, id_of(action.commit));
          entry.verdict = action.verdict;
          entry.detail = action.message;
          record(entry);
          break;
        }
        case Action::Kind::kEndpointsOk: {
          JournalEntry entry =
              make_entry(JournalEntry::Kind::kEndpointsOk, Phase::kSearch, input_.good);
          entry.detail = action.message;
          record(entry);
          break;
        }
        case Action::Kind::kNoRegression: {
          SessionResult result = base_result(SessionVerdict::kNoRegression);
          result.message = action.message;
          return result;
        }
        case Action::Kind::kDone:
          if (std::optional<SessionResult> result = finish(action)) return *result;
          break;
      }
    }
  }

 private:
  // A boot regression (bisect.boot_failure_is_bad, and bad does not boot) is searched by
  // booting alone: its bad endpoint has no metric to compare with. A bad endpoint that measured
  // fine before it stopped booting is no such endpoint: the session ends on it, as on any
  // endpoint that cannot be measured.
  bool boot_regression() const {
    const std::string& bad = bad_endpoint(input_);
    return counted_bad(bad) && journaled_.samples(Phase::kSearch, bad).empty() &&
           journaled_.samples(Phase::kConfirm, bad).empty();
  }

  const Strategy& strategy() const { return boot_regression() ? *boot_strategy_ : strategy_; }

  std::string id_of(int commit) const {
    return commit == kGoodEndpoint ? input_.good : input_.graph->nodes.at(commit).id;
  }

  std::string resolve(const std::string& id) const { return journaled_.resolve(id); }

  void record(const JournalEntry& entry) {
    journal_.append(entry);
    journaled_.apply(entry);
    refresh();
  }

  // The strategy's view: every node sees the samples of the commit its image equals.
  void refresh() {
    state_.good = journaled_.samples(Phase::kSearch, input_.good);
    state_.good_sequence = journaled_.sequences(Phase::kSearch, input_.good);
    for (size_t i = 0; i < input_.graph->nodes.size(); ++i) {
      const std::string& id = input_.graph->nodes[i].id;
      state_.samples[i] = journaled_.samples(Phase::kSearch, id);
      state_.sequences[i] = journaled_.sequences(Phase::kSearch, id);
      const JournalEntry* failure = journaled_.failure(Phase::kSearch, id);
      state_.failed[i] = failure && !counts_as_bad(*failure);
      state_.counted_bad[i] = failure && counts_as_bad(*failure);
    }
    // The strategy judges candidates only; the merge bases' verdicts are the session's own
    // (test_merge_bases).
    state_.verdicts.clear();
    for (const auto& [commit, verdict] : journaled_.verdicts()) {
      if (auto found = index_.find(commit); found != index_.end()) {
        state_.verdicts.emplace_back(found->second, verdict);
      }
    }
    state_.endpoints_verified = journaled_.endpoint_check_samples().has_value();
    state_.endpoint_check_samples = journaled_.endpoint_check_samples().value_or(0);
    for (const std::string& endpoint : {input_.good, bad_endpoint(input_)}) {
      // A bad endpoint that does not boot makes the session a boot regression's.
      if (endpoint != input_.good && boot_regression()) continue;
      const JournalEntry* failure = journaled_.failure(Phase::kSearch, endpoint);
      if (failure && aborted_.empty()) {
        const bool good = endpoint == input_.good;
        aborted_ =
            fmt::format("the {} endpoint {} cannot be measured ({}: {}); {}", good ? "good" : "bad",
                        endpoint, measure_status_name(failure->status), failure->detail,
                        endpoint_advice(good, failure->status));
      }
    }
  }

  // What to do about an endpoint that cannot be measured.
  std::string endpoint_advice(bool good, MeasureStatus status) const {
    const char* end = good ? "good" : "bad";
    switch (status) {
      case MeasureStatus::kBuildFailed:
        return fmt::format("give a {} commit that builds", end);
      case MeasureStatus::kBootFailed:
        if (good || input_.spec.boot_failure_is_bad) {
          return fmt::format("give a {} commit that boots", end);
        }
        return "give a bad commit that boots, or, to find the commit that broke booting, set "
               "bisect: {boot_failure_is_bad: true}";
      default:
        // It built and booted, and its run failed: the workload, the job or the host.
        return "the run's console log says why (kbisect query \"SELECT detail, console_log FROM "
               "runs ORDER BY id DESC LIMIT 2\")";
    }
  }

  bool counts_as_bad(const JournalEntry& failure) const {
    return failure.status == MeasureStatus::kBootFailed && input_.spec.boot_failure_is_bad;
  }

  // A verdict by boot's reason for a failure that counts as bad.
  static std::string not_booting(const JournalEntry& failure) {
    return fmt::format("does not boot: {}", failure.detail);
  }

  // Whether the search judged `commit` bad for not booting.
  bool counted_bad(const std::string& commit) const {
    const JournalEntry* failure = journaled_.failure(Phase::kSearch, commit);
    return failure && counts_as_bad(*failure);
  }

  // One measurement, journaled before anything acts on it.
  void take_sample(const std::string& commit, Phase phase, int candidates_left) {
    std::string target = resolve(commit);
    MeasureRequest request{target, journaled_.attempts(target), journaled_.sequence()};
    Measurement m = measurer_.measure(request);
    JournalEntry entry = make_entry(JournalEntry::Kind::kSample, phase, target);
    entry.candidates_left = candidates_left;
    switch (m.status) {
      case MeasureStatus::kOk:
        entry.value = m.value;
        break;
      case MeasureStatus::kIdenticalImage:
        entry.kind = JournalEntry::Kind::kAlias;
        entry.detail = m.same_as;
        if (resolve(m.same_as) == target) {
          fail("the runner says {} has the same image as itself; this is a runner bug", target);
        }
        break;
      default:
        entry.kind = JournalEntry::Kind::kFailure;
        entry.status = m.status;
        entry.detail = m.detail;
        entry.retried = journaled_.retries(entry);
        // The search's alone: a failure in the confirmation makes no verdict.
        entry.counts_as_bad = phase == Phase::kSearch && !entry.retried && counts_as_bad(entry);
        break;
    }
    record(entry);
    judge_failures();
  }

  // The verdicts failures make, journaled right after the entry that made them so: a candidate
  // that does not boot, when that counts (boot_failure_is_bad), is bad, and so is one with its
  // image (without that verdict of its own, a git-like search chose it again and again, and each
  // time booted the other commit); one with the image of a commit that could not be measured
  // otherwise is skipped with it, so that the result and the log list it as git would (a
  // commit's own skip is stored with its failure).
  void judge_failures() {
    for (size_t i = 0; i < input_.graph->nodes.size(); ++i) {
      const std::string& id = input_.graph->nodes[i].id;
      const bool image = resolve(id) != id;
      const bool bad = state_.counted_bad[i] && journaled_.verdict_of(id) != VerdictKind::kBad;
      const bool skip = state_.failed[i] && image && !journaled_.verdict_of(id);
      if (!bad && !skip) continue;
      const JournalEntry& failure = *journaled_.failure(Phase::kSearch, id);
      const std::string why =
          bad ? not_booting(failure)
              : fmt::format("could not be measured ({}: {})", measure_status_name(failure.status),
                            failure.detail);
      JournalEntry verdict = make_entry(JournalEntry::Kind::kVerdict, Phase::kSearch, id);
      verdict.verdict.kind = bad ? VerdictKind::kBad : VerdictKind::kSkip;
      verdict.verdict.by_boot = bad;
      verdict.detail =
          image ? fmt::format("has the image of {}, which {}", resolve(id).substr(0, 12), why)
                : why;
      record(verdict);
    }
  }

  SessionResult base_result(SessionVerdict verdict) const {
    SessionResult result;
    result.verdict = verdict;
    if (const std::optional<Drift> drift = clear_drift(state_)) {
      result.drift = describe(*drift);
    }
    result.samples = static_cast<int>(journaled_.sample_count());
    std::set<int> decided;
    for (const auto& [commit, verdict_] : state_.verdicts) {
      if (commit != 0) decided.insert(commit);
    }
    result.steps = static_cast<int>(decided.size());
    result.refuted = journaled_.refuted();
    std::set<std::string> skipped;
    for (const auto& [commit, failure] : journaled_.search_failures()) {
      if (!counts_as_bad(failure)) skipped.insert(commit);
    }
    for (size_t i = 0; i < input_.graph->nodes.size(); ++i) {
      if (state_.failed[i]) skipped.insert(input_.graph->nodes[i].id);  // an image's too
    }
    result.skipped.assign(skipped.begin(), skipped.end());
    return result;
  }

  SessionResult abort(const std::string& why) const {
    SessionResult result = base_result(SessionVerdict::kAborted);
    result.message = why;
    return result;
  }

  // The session's result, or none when the confirmation handed the search back.
  std::optional<SessionResult> finish(const Action& action) {
    if (action.outcome == SearchOutcome::kNoTestable) {
      if (state_.verdicts.empty()) {
        return abort("no candidate commit touches the given paths; check --paths");
      }
      return abort(fmt::format(
          "every commit touching the paths is good, and bad ({}) touches none of them: the "
          "regression came from outside the paths; bisect again without --paths",
          bad_endpoint(input_).substr(0, 12)));
    }
    if (action.outcome == SearchOutcome::kOnlySkipped) {
      SessionResult result = base_result(SessionVerdict::kOnlySkipped);
      for (int node : action.candidates) result.candidates.push_back(id_of(node));
      result.message = "only skipped commits are left: the culprit is one of the candidates";
      return result;
    }
    std::string culprit = id_of(action.commit);
    std::optional<SessionResult> result;
    if (!input_.confirm) {
      result = base_result(SessionVerdict::kFound);
      result->culprit = culprit;
    } else if (boot_regression() || counted_bad(culprit)) {
      result = confirm_by_boot(culprit, action.commit);
    } else {
      result = confirm(culprit, action.commit);
    }
    // The strategy's word on its answer (a search stopped short), unless the confirmation's
    // says more.
    if (result && result->message.empty()) result->message = action.message;
    return result;
  }

  int confirm_count() const { return std::max(input_.spec.max_samples, input_.spec.min_samples); }

  // Measures the commits in turn, always the one with the fewest samples of `phase` (the first
  // on a tie, so a resumed session continues the same order), until `settled` or each has five
  // times confirm_count() samples. It is asked from min_samples on, after every sample up to
  // confirm_count() and every confirm_count() samples past that (the endpoint check is asked
  // every kLateAskPairs pairs there, posterior_strategy.cc); past max_samples a side a check needs
  // alpha / 4 (verdict.cc).
  // With confirm_count() a side, the right culprit of a regression the size of the noise
  // passed both checks in about a fifth of the benchmark's sessions (bisect_accuracy
  // --confirm). False when one of them cannot be measured.
  bool sample_until(Phase phase, const std::vector<std::string>& commits,
                    const std::function<bool()>& settled) {
    // Confirming, one candidate is left (the culprit named); a merge base comes before the
    // search has counted any.
    const int candidates_left = phase == Phase::kConfirm ? 1 : 0;
    const size_t per_commit = static_cast<size_t>(confirm_count());
    const size_t cap = kConfirmCapFactor * per_commit;
    for (;;) {
      const std::string* fewest = nullptr;
      size_t fewest_count = 0;
      for (const auto& commit : commits) {
        if (journaled_.failure(Phase::kSearch, commit) ||
            journaled_.failure(Phase::kConfirm, commit)) {
          return false;
        }
        size_t count = journaled_.samples(phase, commit).size();
        if (fewest == nullptr || count < fewest_count) fewest = &commit, fewest_count = count;
      }
      const bool ask = fewest_count >= static_cast<size_t>(input_.spec.min_samples) &&
                       (fewest_count <= per_commit || fewest_count % per_commit == 0);
      if (ask && (fewest_count >= cap || settled())) return true;
      take_sample(*fewest, phase, candidates_left);
    }
  }

  // `better` against `worse` on the confirmation samples, the drift they show taken out where
  // it is clear: kBad when `worse` is significantly worse; `final` once no more samples will
  // come. With the mixture shift test (verdict.h: ShiftTest says why not before the search).
  EndpointCheck confirm_check(const std::string& better, const std::string& worse, bool final) {
    const PairWithoutDrift pair = without_clear_drift(
        journaled_.samples(Phase::kConfirm, better), journaled_.sequences(Phase::kConfirm, better),
        journaled_.samples(Phase::kConfirm, worse), journaled_.sequences(Phase::kConfirm, worse));
    EndpointCheck check =
        check_endpoints(pair.a, pair.b, input_.metric, input_.spec,
                        final ? EndpointAsk::kFinal : EndpointAsk::kWithP, ShiftTest::kMixture);
    if (!check.message.empty() && pair.drift_taken_out) {
      check.message +=
          "; the medians are as the host was at the first of these samples, its "
          "drift taken out";
    }
    return check;
  }

  // The metric's own change from a check's better side to its worse one, as fio users read
  // it: "read.iops -54.89%" (a drop), "clat_ns.mean +12.00%" (a rise).
  std::string change_text(const EndpointCheck& check) const {
    const double change = input_.metric.better == Better::kHigher ? -check.effect : check.effect;
    return fmt::format("{} {:+.2f}%", input_.metric.name, 100 * change);
  }

  std::vector<std::string> parents_of(const std::string& culprit, int node) const {
    std::vector<std::string> parents;
    if (input_.parents_of) {
      parents = input_.parents_of(culprit);
    } else {
      for (int parent : input_.graph->nodes.at(node).parents) parents.push_back(id_of(parent));
    }
    if (parents.empty()) parents.push_back(input_.good);
    return parents;
  }

  std::optional<SessionResult> confirm(const std::string& culprit, int node) {
    const std::vector<std::string> parents = parents_of(culprit, node);

    std::vector<std::string> commits{culprit};
    commits.insert(commits.end(), parents.begin(), parents.end());
    bool parents_worse = false;
    std::string parent_check;
    std::vector<std::string> not_worse_than;
    // The parent the culprit is least clearly worse than decides whether to go on.
    auto least_clear_parent_check = [&] {
      std::optional<EndpointCheck> least;
      for (const auto& parent : parents) {
        EndpointCheck check = confirm_check(parent, culprit, false);
        if (!least || less_clear(check, *least)) least = check;
      }
      return *least;
    };
    const bool measured = sample_until(Phase::kConfirm, commits, [&] {
      return least_clear_parent_check().kind != VerdictKind::kUndecided;
    });
    if (!measured) {
      parent_check = "skipped: the culprit or a parent could not be measured";
    } else {
      parents_worse = true;
      for (const auto& parent : parents) {
        EndpointCheck check = confirm_check(parent, culprit, true);
        parents_worse = parents_worse && check.kind == VerdictKind::kBad;
        if (check.kind != VerdictKind::kBad) not_worse_than.push_back(parent);
        parent_check +=
            fmt::format("{}{} parent {}: {}, p = {:.3g}", parent_check.empty() ? "" : "; ",
                        check.kind == VerdictKind::kBad ? "worse than" : "not worse than",
                        parent.substr(0, 12), change_text(check), check.p_value);
      }
    }
    const auto outside = std::find_if(not_worse_than.begin(), not_worse_than.end(),
                                      [&](const auto& parent) { return outside_paths(parent); });
    if (measured && !parents_worse && outside == not_worse_than.end() && may_reopen()) {
      if (std::optional<SessionResult> none = recheck_endpoints({culprit, parent_check})) {
        return none;
      }
      // Journaled as the search's: what follows it is the search again.
      JournalEntry reopen = make_entry(JournalEntry::Kind::kReopen, Phase::kSearch, culprit);
      reopen.detail = parent_check;
      record(reopen);
      return std::nullopt;
    }

    const RevertCheck revert = check_revert(culprit);
    SessionResult result = base_result(SessionVerdict::kFound);
    result.culprit = culprit;
    result.parent_check = parent_check;
    result.revert_check = revert.text;
    result.parents = parents;
    result.revert_commit = revert.measured;
    result.confirmed = parents_worse && !revert.contradicts;
    if (outside != not_worse_than.end()) {
      result.message = from_outside_the_paths(culprit, *outside, "is no worse than");
    }
    return result;
  }

  // Whether `commit` boots, from its measurement in `phase`, measured there when it has none (and
  // again when its failure was taken for the run's). None when that cannot tell (it did not
  // build, or failed otherwise).
  std::optional<bool> boots(const std::string& commit, Phase phase) {
    for (;;) {
      if (!journaled_.samples(phase, commit).empty()) return true;
      if (const JournalEntry* failure = journaled_.failure(phase, commit)) {
        if (failure->status != MeasureStatus::kBootFailed) return std::nullopt;
        return false;
      }
      take_sample(commit, phase, phase == Phase::kSearch ? 0 : 1);
    }
  }

  static std::string boot_text(std::optional<bool> boots) {
    return !boots ? "could not be measured" : *boots ? "boots" : "does not boot";
  }

  // The confirmation of a culprit judged bad for not booting: one more boot each of the
  // culprit, which must fail again, and of its parents, which must boot; then the revert check
  // (in a boot regression, bad with the culprit reverted must boot).
  SessionResult confirm_by_boot(const std::string& culprit, int node) {
    const std::vector<std::string> parents = parents_of(culprit, node);
    const std::optional<bool> culprit_boots = boots(culprit, Phase::kConfirm);
    bool confirmed = culprit_boots == false;
    std::string parent_check = fmt::format("{} when booted again", boot_text(culprit_boots));
    std::string message;
    for (const auto& parent : parents) {
      const std::optional<bool> parent_boots = boots(parent, Phase::kConfirm);
      confirmed = confirmed && parent_boots == true;
      parent_check += fmt::format("; parent {} {}", parent.substr(0, 12), boot_text(parent_boots));
      if (parent_boots == false && outside_paths(parent)) {
        message = from_outside_the_paths(culprit, parent, "does not boot, nor does");
      }
    }
    const RevertCheck revert = check_revert(culprit);
    SessionResult result = base_result(SessionVerdict::kFound);
    result.culprit = culprit;
    result.parents = parents;
    result.parent_check = parent_check;
    result.revert_check = revert.text;
    result.revert_commit = revert.measured;
    result.confirmed = confirmed && !revert.contradicts;
    result.message = message;
    return result;
  }

  // The found result's message for a culprit whose parent outside the paths is as bad.
  static std::string from_outside_the_paths(const std::string& culprit, const std::string& parent,
                                            const std::string& as_bad) {
    return fmt::format(
        "{} is the first commit touching the paths that is worse than good, but it {} its "
        "parent {}, which touches none of them: the regression came from outside the paths; "
        "bisect again without them",
        culprit.substr(0, 12), as_bad, parent.substr(0, 12));
  }

  // With path limiting the search names the first bad commit that touches the paths, as git
  // does. One no worse than a parent that touches none of them only carries a regression from
  // outside the paths, and a search among the paths' commits again cannot find it.
  bool outside_paths(const std::string& commit) const {
    auto found = index_.find(commit);
    return found != index_.end() && !input_.graph->nodes[found->second].touches_paths;
  }

  struct RevertCheck {
    std::string text;  // SessionResult::revert_check
    bool contradicts = false;
    std::string measured;  // the reverted kernel's RevertPlan::measure_id; "" when not planned
  };

  // The culprit reverted on top of bad against bad: a revert that leaves bad as bad as it was
  // contradicts the culprit.
  RevertCheck check_revert(const std::string& culprit) {
    RevertCheck revert;
    if (!input_.revert) {
      revert.text = "skipped: the runner cannot revert commits";
      return revert;
    }
    const std::string& bad = bad_endpoint(input_);
    const RevertPlan plan = input_.revert(bad, culprit);
    if (!plan.ok) {
      revert.text = "skipped: " + plan.reason;
      return revert;
    }
    revert.measured = plan.measure_id;
    if (boot_regression()) {
      const std::optional<bool> reverted_boots = boots(plan.measure_id, Phase::kConfirm);
      revert.contradicts = reverted_boots == false;
      revert.text = !reverted_boots ? "skipped: the reverted kernel could not be measured"
                    : *reverted_boots
                        ? "fixes the regression: bad with the revert boots"
                        : "does not fix the regression: bad with the revert does not boot either";
      return revert;
    }
    auto settled = [&] {
      return confirm_check(plan.measure_id, bad, false).kind != VerdictKind::kUndecided;
    };
    if (!sample_until(Phase::kConfirm, {plan.measure_id, bad}, settled)) {
      const bool reverted_failed = journaled_.failure(Phase::kSearch, plan.measure_id) ||
                                   journaled_.failure(Phase::kConfirm, plan.measure_id);
      revert.text = reverted_failed ? "skipped: the reverted kernel could not be measured"
                                    : "skipped: bad could not be measured again";
      return revert;
    }
    EndpointCheck check = confirm_check(plan.measure_id, bad, true);
    revert.contradicts = check.kind != VerdictKind::kBad;
    // Ended by the cap on samples, not by what they show: a revert that did not settle in
    // either direction is not shown to fix the regression, which is not having been shown not to.
    const bool unsettled = revert.contradicts && confirm_check(plan.measure_id, bad, false).kind ==
                                                     VerdictKind::kUndecided;
    revert.text = fmt::format("{}: bad has {} against bad with the revert, p = {:.3g}",
                              !revert.contradicts ? "fixes the regression"
                              : unsettled ? "not shown to fix the regression in the samples allowed"
                                          : "does not fix the regression",
                              change_text(check), check.p_value);
    return revert;
  }

  // A refuted culprit is also what a tip that did not regress leaves when the check before the
  // search took it for a regression (in 0.5-4% of the benchmark's such sessions): good and bad
  // are checked again on fresh samples, and the session ends there when their difference is
  // confidently below min_effect. Not differing at the recheck's cap is not enough: a real
  // regression the size of the noise sometimes does not, and ending there lost it (bench
  // README, "A refuted culprit"). Else their samples join the search's with the others.
  std::optional<SessionResult> recheck_endpoints(const RefutedCulprit& refuted) {
    const std::string& good = input_.good;
    const std::string& bad = bad_endpoint(input_);
    const bool measured = sample_until(Phase::kConfirm, {good, bad}, [&] {
      return confirm_check(good, bad, false).kind != VerdictKind::kUndecided;
    });
    if (!measured) return std::nullopt;
    const EndpointCheck check = confirm_check(good, bad, false);
    if (check.kind != VerdictKind::kGood) return std::nullopt;
    SessionResult result = base_result(SessionVerdict::kNoRegression);
    result.refuted.push_back(refuted);
    result.message = fmt::format(
        "the search named {}, but it is not worse than its parent ({}), and checked again on "
        "fresh samples {}",
        refuted.commit.substr(0, 12), refuted.parent_check, check.message);
    return result;
  }

  // The merge bases in turn (SessionInput::merge_bases); the session's end when one is bad or
  // cannot be told good or bad. Each verdict is journaled, so a resumed session reads it back.
  std::optional<SessionResult> test_merge_bases() {
    for (const auto& base : input_.merge_bases) {
      if (!journaled_.verdict_of(base)) {
        std::optional<VerdictKind> kind = judge_merge_base(base);
        if (!aborted_.empty()) return abort(aborted_);
        if (!kind) {
          return abort(fmt::format(
              "the merge base {} of bad and good could not be told good or bad in {} samples "
              "({}). Pass a good commit that bad descends from (--good), or raise "
              "bisect.max_samples",
              base, journaled_.samples(Phase::kSearch, base).size(),
              medians_text(journaled_.samples(Phase::kSearch, base))));
        }
        JournalEntry entry = make_entry(JournalEntry::Kind::kVerdict, Phase::kSearch, base);
        const std::vector<double>& samples = journaled_.samples(Phase::kSearch, base);
        // A skip's reason is its failure's; a base that did not boot was judged by that alone.
        if (*kind != VerdictKind::kSkip && (boot_regression() || samples.empty())) {
          entry.verdict.by_boot = true;
          entry.verdict.samples = static_cast<int>(samples.size());
          const JournalEntry* failure = journaled_.failure(Phase::kSearch, base);
          entry.detail = !samples.empty() ? "boots"
                         : failure        ? not_booting(*failure)
                                          : "does not boot";
        } else if (!samples.empty()) {
          entry.verdict = describe(samples, state_.good, state_.of(0), input_.metric.better);
        }
        entry.verdict.kind = *kind;
        record(entry);
      }
      if (journaled_.verdict_of(base) == VerdictKind::kBad) {
        const std::vector<double>& samples = journaled_.samples(Phase::kSearch, base);
        return abort(fmt::format(
            "the merge base {} of bad and good is bad ({}): the regression is older than it, "
            "and good's side fixed it or never had it. Bisect from a good commit that bad "
            "descends from (--good)",
            base,
            samples.empty() ? "it does not boot, and boot_failure_is_bad counts that as bad"
                            : medians_text(samples)));
      }
    }
    return std::nullopt;
  }

  // Measures a merge base with the endpoints, asked as the confirmation asks (sample_until: the
  // endpoints are topped up to its count, as the comparison strategies measure them once),
  // until it is significantly better than bad and not worse than good (good), the reverse
  // (bad), or at the cap (none). A base that cannot be measured is skipped, as git goes on past
  // a skipped merge base; none when an endpoint cannot be measured or the base is between good
  // and bad (aborted_ says so).
  std::optional<VerdictKind> judge_merge_base(const std::string& base) {
    if (boot_regression()) {
      const std::optional<bool> base_boots = boots(base, Phase::kSearch);
      if (!base_boots) return VerdictKind::kSkip;
      return *base_boots ? VerdictKind::kGood : VerdictKind::kBad;
    }
    BaseSide side = BaseSide::kUndecided;
    auto settled = [&] {
      side = merge_base_side(base);
      return side != BaseSide::kUndecided;
    };
    if (!sample_until(Phase::kSearch, {base, input_.good, bad_endpoint(input_)}, settled)) {
      const JournalEntry* failure = journaled_.failure(Phase::kSearch, base);
      if (!failure) return std::nullopt;
      return counts_as_bad(*failure) ? VerdictKind::kBad : VerdictKind::kSkip;
    }
    if (side == BaseSide::kUndecided) side = merge_base_side(base);  // at the cap: once more
    switch (side) {
      case BaseSide::kGood:
        return VerdictKind::kGood;
      case BaseSide::kBad:
        return VerdictKind::kBad;
      case BaseSide::kBetween:
        aborted_ = fmt::format(
            "the merge base {} of bad and good is between them ({}): it is worse than good, and "
            "bad is worse again. Part of the difference is on good's side (a fix or a speed-up "
            "bad does not have); to find what made bad worse than the merge base, bisect from "
            "it: --good {}",
            base, medians_text(journaled_.samples(Phase::kSearch, base)), base);
        return std::nullopt;
      case BaseSide::kUndecided:
        break;
    }
    return std::nullopt;
  }

  // Where a merge base stands: good when bad is significantly worse than it and it not than
  // good; bad the other way round; between when both are (more samples cannot change that);
  // undecided when neither is.
  enum class BaseSide { kUndecided, kGood, kBad, kBetween };
  BaseSide merge_base_side(const std::string& base) const {
    auto worse = [&](std::span<const double> better, std::span<const double> worse) {
      return check_endpoints(better, worse, input_.metric, input_.spec, EndpointAsk::kWithP,
                             ShiftTest::kMixture)
                 .kind == VerdictKind::kBad;
    };
    const std::vector<double>& samples = journaled_.samples(Phase::kSearch, base);
    const bool bad_is_worse = worse(samples, state_.of(0));
    const bool base_is_worse = worse(state_.good, samples);
    if (bad_is_worse && base_is_worse) return BaseSide::kBetween;
    if (bad_is_worse) return BaseSide::kGood;
    if (base_is_worse) return BaseSide::kBad;
    return BaseSide::kUndecided;
  }

  std::string medians_text(std::span<const double> samples) const {
    return fmt::format("{} median {:.6g} there, {:.6g} at good, {:.6g} at bad", input_.metric.name,
                       median(samples), median(state_.good), median(state_.of(0)));
  }

  // A culprit no worse than its parent means a commit was put on the wrong side: most often
  // the parent, judged good on a few samples that drew high. The confirmation has just
  // measured both; a strategy that weighs every sample can take it from there.
  bool may_reopen() const {
    return strategy().weighs_every_sample() && journaled_.refuted().size() < kReopenLimit;
  }

  const SessionInput& input_;
  const Strategy& strategy_;
  Measurer& measurer_;
  SessionJournal& journal_;
  const std::unique_ptr<Strategy> boot_strategy_;
  JournalState journaled_;
  SearchState state_;  // the strategy's view of journaled_ (refresh)
  std::map<std::string, int> index_;
  std::string aborted_;
};

}  // namespace

const char* measure_status_name(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk:
      return "ok";
    case MeasureStatus::kBuildFailed:
      return "build-failed";
    case MeasureStatus::kBootFailed:
      return "boot-failed";
    case MeasureStatus::kOtherFailure:
      return "failed";
    case MeasureStatus::kIdenticalImage:
      return "identical-image";
  }
  return "?";
}

const char* journal_kind_name(JournalEntry::Kind kind) {
  switch (kind) {
    case JournalEntry::Kind::kSample:
      return "sample";
    case JournalEntry::Kind::kFailure:
      return "failure";
    case JournalEntry::Kind::kAlias:
      return "alias";
    case JournalEntry::Kind::kVerdict:
      return "verdict";
    case JournalEntry::Kind::kEndpointsOk:
      return "endpoints-ok";
    case JournalEntry::Kind::kReopen:
      return "reopen";
  }
  return "?";
}

const char* phase_name(Phase phase) {
  return phase == Phase::kSearch ? "search" : "confirm";
}

const char* session_verdict_name(SessionVerdict verdict) {
  switch (verdict) {
    case SessionVerdict::kFound:
      return "found";
    case SessionVerdict::kNoRegression:
      return "no-regression";
    case SessionVerdict::kOnlySkipped:
      return "only-skipped";
    case SessionVerdict::kAborted:
      return "aborted";
  }
  return "?";
}

SessionResult run_session(const SessionInput& input, const Strategy& strategy, Measurer& measurer,
                          SessionJournal& journal) {
  return Session(input, strategy, measurer, journal).run();
}

}  // namespace kbisect
