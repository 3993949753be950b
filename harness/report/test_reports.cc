#include "report/test_reports.h"

namespace kbisect {
namespace {

using C = TestCommits;

void add_samples(ReportData& data, const std::string& commit, const std::vector<double>& values,
                 const std::string& variant = "") {
  for (double value : values) {
    const auto id = static_cast<int64_t>(data.samples.size() + 1);
    data.samples.push_back({.sample_id = id,
                            .run_id = id,
                            .commit = commit,
                            .variant = variant,
                            .metrics = {{"read.iops", value}, {"read.clat_ns.mean", 1e9 / value}}});
  }
}

VerdictRecord a_verdict(const std::string& commit, Verdict verdict, double p, double effect,
                        int samples) {
  VerdictRecord record;
  record.commit = commit;
  record.verdict = verdict;
  record.p_mwu = p;
  record.effect = effect;
  record.samples = samples;
  record.phase = "search";
  return record;
}

// A session of `kind` between G (as v6.1) and B, started and nothing more.
ReportData new_session(SessionKind kind, int64_t id, const std::string& config_path,
                       const std::string& bad_ref, const std::string& options_json) {
  ReportData data;
  data.database = "/results/kbisect.db";
  data.session.id = id;
  data.session.kind = kind;
  data.session.scenario = "ext4-dio";
  data.session.config_path = config_path;
  data.session.good_refs = {"v6.1"};
  data.session.good_commits = {C::G};
  data.session.bad_ref = bad_ref;
  data.session.bad_commit = C::B;
  data.session.options_json = options_json;
  data.session.started_at = "2026-01-02T03:04:05.000Z";
  return data;
}

ReportData bisect_session() {
  ReportData data = new_session(SessionKind::kBisect, 7, "/configs/ext4 dio.yaml", "HEAD",
                                R"({"confidence": null, "paths": [], "variant": ""})");
  data.session.strategy = "adaptive";
  data.topological_order = {C::G, C::C1, C::C2, C::C3, C::B};
  return data;
}

}  // namespace

ReportData finished_bisect_report() {
  ReportData data = bisect_session();
  data.session.status = SessionStatus::kDone;
  data.session.finished_at = "2026-01-02T04:00:00.000Z";
  data.result = {{"session", 7},
                 {"culprit", C::C2},
                 {"verdict", "found"},
                 {"steps", 4},
                 {"samples", 17},
                 {"confirmed", true},
                 {"skipped", {C::C3}},
                 {"candidates", nlohmann::json::array()},
                 {"message", ""},
                 {"parent_check", "worse than parent 111111111111: read.iops -19.80%, p = 0.0079"},
                 {"revert_check",
                  "fixes the regression: bad has read.iops -20.00% against bad with the "
                  "revert, p = 0.0079"},
                 {"parents", {C::C1}},
                 {"revert_commit", C::R},
                 {"drift", "-3.5% of good at the start per 100 samples (p = 2.1e-09)"}};
  data.metrics = {"read.iops", "read.clat_ns.mean"};
  add_samples(data, C::G, {1000, 1020, 980});
  add_samples(data, C::B, {800, 820, 790});
  add_samples(data, C::C2, {805, 810, 798});
  add_samples(data, C::C1, {1003, 995, 1010});
  add_samples(data, C::R, {1001, 990, 1012});
  int step = 0;
  for (const auto& [commit, phase] :
       std::vector<std::pair<std::string, std::string>>{{C::G, "search"},
                                                        {C::B, "search"},
                                                        {C::C3, "search"},
                                                        {C::C2, "search"},
                                                        {C::C1, "search"},
                                                        {C::R, "confirm"}}) {
    data.steps.push_back({.step = ++step, .commit = commit, .phase = phase});
  }
  data.verdicts.push_back(a_verdict(C::C3, Verdict::kSkip, 1, 0, 0));
  data.verdicts.back().p_mwu.reset();
  data.verdicts.back().effect.reset();
  data.verdicts.push_back(a_verdict(C::C2, Verdict::kBad, 0.0012, -0.195, 3));
  data.verdicts.push_back(a_verdict(C::C1, Verdict::kUndecided, 0.2, -0.01, 2));
  data.verdicts.push_back(a_verdict(C::C1, Verdict::kGood, 0.0009, 0.003, 3));
  data.failed_runs.push_back(
      {.commit = C::C3, .outcome = Outcome::kBuildFailed, .detail = "the kernel does not build"});
  data.confirm_commits = {C::C2, C::C1, C::R, C::B};
  data.compilers = {"gcc (Debian 12.2.0-14) 12.2.0"};
  data.subjects = {{C::G, "Linux 6.1"},
                   {C::C1, "xfs: tidy up"},
                   {C::C2, "ext4: take the inode lock exclusively for direct reads"},
                   {C::C3, "nvme: a change that does not build"},
                   {C::B, "Merge branch 'block'"},
                   {C::R, "Revert \"ext4: take the inode lock exclusively for direct reads\""}};
  return data;
}

ReportData compare_report() {
  ReportData data = new_session(SessionKind::kCompare, 9, "/configs/ext4.yaml", "HEAD@nolock",
                                R"({"a_variant": "", "b_variant": "nolock", "samples": 3})");
  data.session.status = SessionStatus::kDone;
  data.session.finished_at = "2026-01-02T03:14:05.000Z";
  data.topological_order = {C::G};
  data.metrics = {"read.iops", "read.clat_ns.mean"};
  add_samples(data, C::G, {1000, 1020, 980});
  add_samples(data, C::B, {700, 710, 690}, "");  // another variant: not this session's B side
  add_samples(data, C::B, {900, 910, 905}, "nolock");
  data.subjects = {{C::G, "Linux 6.1"}, {C::B, "Merge branch 'block'"}};
  // As compare stores it: three samples a side cannot reach alpha 0.01.
  data.result = {{"metrics",
                  {{{"metric", "read.iops"}, {"p", 0.1}, {"finding", "too few samples"}},
                   {{"metric", "read.clat_ns.mean"}, {"p", 0.1}, {"finding", "too few samples"}}}}};
  return data;
}

ReportData two_variant_revert_check_report() {
  ReportData data = compare_report();
  data.session.kind = SessionKind::kRevertCheck;
  data.session.bad_ref = "v6.1 -abc123";
  data.session.options_json =
      R"({"a_variant": "lock", "b_variant": "lock",
          "variants": [["lock", "lock"], ["nolock", "nolock"]], "samples": 3})";
  data.samples.clear();
  add_samples(data, C::G, {1000, 1020, 980}, "lock");
  add_samples(data, C::B, {700, 710, 690}, "lock");
  add_samples(data, C::G, {950, 960, 955}, "nolock");
  add_samples(data, C::B, {900, 910, 905}, "nolock");
  data.result = {{"pairs",
                  {{{"metrics", {{{"metric", "read.iops"}, {"finding", "too few samples"}}}}},
                   {{"metrics", {{{"metric", "read.iops"}, {"finding", "significant"}}}}}}}};
  return data;
}

ReportData empty_bisect_report() {
  return bisect_session();
}

}  // namespace kbisect
