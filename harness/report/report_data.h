// Everything `kbisect report` says about one session, read from the results database: the
// session, its candidates, steps, verdicts, samples, failed runs and builds, and what its
// journal tells about the confirmation. Commit subjects come separately (scenario_facts.h),
// so a report works when the kernel repository is gone. The renderers (text_report.h,
// html_report.h) read only this struct, so they are tested without a database.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/records.h"

namespace kbisect {

class Store;

struct ReportData {
  std::filesystem::path database;  // the results database the session was read from
  SessionRecord session;
  nlohmann::json result;  // the session's result JSON; null while there is none
  // The session's commits oldest first: merge bases the search tested first, the good commits,
  // then the candidates from the oldest to bad (the reverse of the stored rev-list order).
  std::vector<std::string> topological_order;
  // Metric keys seen in the samples: the one a bisection judged by first, then the scenario's
  // order when the scenario could be read (scenario_facts.h).
  std::vector<std::string> metrics;
  std::vector<SampleMetrics> samples;
  std::vector<StepRecord> steps;
  std::vector<VerdictRecord> verdicts;
  std::vector<RunRecord> failed_runs;                // runs whose outcome is not ok
  std::map<std::string, std::string> same_image_as;  // commit -> the commit whose samples it uses
  std::vector<std::string> confirm_commits;          // measured to confirm, in order first seen
  std::vector<std::string> compilers;                // of the kernels built for the session
  std::map<std::string, std::string> subjects;       // commit -> subject, where known
  std::string subjects_unavailable;      // why no subject is known (scenario or repo gone), else ""
  std::optional<LockHolder> running_in;  // a running bisection's live process, if there is one
};

// Throws Error saying how to list the sessions when there is no session `session_id`.
ReportData load_report_data(Store& store, int64_t session_id);

// The values of `metric` measured on `commit` in the session, oldest first; with a variant
// only those of that variant. A commit whose kernel image equals another's has that one's.
std::vector<double> values_of(const ReportData& data, const std::string& commit,
                              const std::string& metric,
                              const std::optional<std::string>& variant = std::nullopt);

// The culprit a finished bisection named, if any.
std::optional<std::string> culprit_of(const ReportData& data);

// The parents of the culprit that were measured to confirm it, and the kernel with the culprit
// reverted on top of bad (empty when it was not measured), as the result names them. A result
// stored before it named them (5772f2c and earlier) leaves them to the journal's confirm phase,
// which measures the culprit, parents, revert and bad, each under the commit whose image it
// shares: the revert is the one that is neither a candidate nor a good commit.
struct ConfirmationCommits {
  std::vector<std::string> parents;
  std::string revert;
};
ConfirmationCommits confirmation_commits(const ReportData& data);

// The session's last word on a commit: "good" or "bad" for the endpoints ("skip" for one that
// could not be measured; "good" for bad when the session found it no worse than good), else
// the last verdict of the search that decided something (good, bad, skip), else "undecided",
// else "" (measured for the confirmation only).
std::string verdict_of(const ReportData& data, const std::string& commit);

// The search's last verdict on `commit` that decided something, else its last undecided one.
std::optional<VerdictRecord> last_search_verdict(const ReportData& data, const std::string& commit);

// The variants an A/B session (compare, revert-check) measured, A's and B's, one pair per
// comparison in the order measured; "" is the scenario's unnamed variant.
struct VariantPair {
  std::string a, b;
};
std::vector<VariantPair> compared_variants(const ReportData& data);

// The session's stored options (an empty object when they are not one).
nlohmann::json session_options(const ReportData& data);

// The string at `key` of a JSON object (a result, options); "" when there is none.
std::string string_at(const nlohmann::json& object, const char* key);

// The session's judged_by option ({metric, better}); an empty object when there is none.
nlohmann::json judged_by(const ReportData& data);

// `metrics` with the judged metric first, when the samples have it.
std::vector<std::string> judged_first(const ReportData& data, std::vector<std::string> metrics);

// The subject of a commit, or a placeholder that says why it is not known.
std::string subject_of(const ReportData& data, const std::string& commit);

}  // namespace kbisect
