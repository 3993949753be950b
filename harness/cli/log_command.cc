// kbisect log SESSION: the session's decisions as a `git bisect log`, which `git bisect replay`
// accepts.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "bisect/session.h"
#include "cli/bisect_session.h"
#include "cli/commands.h"
#include "common/error.h"
#include "common/printable.h"
#include "config/config.h"
#include "git/repository.h"
#include "store/store.h"

namespace kbisect {
namespace {

// An argument as git's sq_quote writes it into a bisect log; replay reads it back only quoted.
std::string git_quote(std::string_view argument) {
  std::string quoted = "'";
  for (char c : argument) {
    if (c == '\'' || c == '!') {
      quoted += fmt::format("'\\{}'", c);
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// Subjects are comments for a person and replay needs only the ids: a session whose scenario
// file or repository is gone since (or whose tree was re-cloned without its commits) still
// gives its log, and the log says why they are missing.
class Subjects {
 public:
  explicit Subjects(const std::string& config_path) {
    try {
      repo_.emplace(Repository::open(load_scenario(config_path).kernel.repo));
    } catch (const Error& error) {
      unavailable_ = printable_line(error.what());
    }
  }
  std::string of(const std::string& commit) const {
    if (!repo_) return "(subject unavailable)";
    try {
      return repo_->commit_info(commit).subject;
    } catch (const Error&) {
      return "(subject unavailable: not in the kernel repository)";
    }
  }
  const std::string& unavailable() const { return unavailable_; }

 private:
  std::optional<Repository> repo_;
  std::string unavailable_;
};

void print_mark(const Subjects& subjects, const std::string& mark, const std::string& commit) {
  fmt::print("# {}: [{}] {}\n", mark, commit, subjects.of(commit));
  fmt::print("git bisect {} {}\n", mark, commit);
}

// The start of the log. As git logs a start given its endpoints, they are in the start line
// (`inline_endpoints`): replay then checks that the good commits are ancestors of bad at the
// start, as git did, not against the last bad commit, where it would ask for the merge base of
// a branch git never needed. A session that tested merge bases first (good commits bad does not
// descend from) marks its endpoints after a bare start instead: git 2.39's replay stops at a
// start whose merge base must be tested, even in git's own log; at the end the merge bases are
// marked good.
void print_start(const Subjects& subjects, const SessionRecord& session, bool inline_endpoints) {
  std::string start = "git bisect start";
  if (inline_endpoints) {
    fmt::print("# bad: [{}] {}\n", session.bad_commit, subjects.of(session.bad_commit));
    start += " " + git_quote(session.bad_commit);
    for (const auto& good : session.good_commits) {
      fmt::print("# good: [{}] {}\n", good, subjects.of(good));
      start += " " + git_quote(good);
    }
  }
  // Path limiting is part of the start: replay then picks the same commits.
  const std::vector<std::string> paths = request_of(session).paths;
  if (!paths.empty()) {
    start += " '--'";
    for (const auto& path : paths) start += " " + git_quote(path);
  }
  fmt::print("{}\n", start);
  if (inline_endpoints) return;
  fmt::print("# status: waiting for both good and bad commits\n");
  print_mark(subjects, "bad", session.bad_commit);
  for (const auto& good : session.good_commits) print_mark(subjects, "good", good);
}

// The answer as marks: the culprit bad and its parents good. git keeps one bad commit, and a
// mark of a bad commit on another branch replaces it; the search judged each commit against
// all the bad ones (and settled some from their neighbours), so on a history with merges the
// marks above may leave git short of the culprit. These lead it there; the comment says
// whether the confirmation (the culprit against its parents) bore the answer out.
void print_answer(const Subjects& subjects, const std::string& culprit,
                  const nlohmann::json& result) {
  const nlohmann::json parent_check = result.value("parent_check", nlohmann::json());
  fmt::print(
      "# kbisect's answer, {}: the culprit bad, its parents good\n",
      result.value("confirmed", false)
          ? "confirmed"
          : fmt::format("not confirmed (culprit {})",
                        parent_check.is_string() ? printable_line(parent_check.get<std::string>())
                                                 : std::string("not checked against its parents")));
  print_mark(subjects, "bad", culprit);
  for (const auto& parent : result.value("parents", nlohmann::json::array())) {
    if (parent.is_string()) print_mark(subjects, "good", parent.get<std::string>());
  }
}

int print_log(const GlobalOptions& globals, const std::string& session_text) {
  if (globals.json) {
    fail(
        "--json: log prints what `git bisect replay` reads; for a session's steps as JSON use "
        "`kbisect query --format json steps {}`",
        session_text);
  }
  Store store = Store::for_reading(existing_database_path(globals));
  int64_t session_id = session_named(store, session_text);
  auto session = store.session(session_id);
  if (const auto bisection = session ? nightly_bisection(*session) : std::nullopt) {
    fmt::print("# nightly {}: its bisection, session {}\n", session_id, *bisection);
    session_id = *bisection;
    session = store.session(session_id);
  }
  if (session && session->kind == SessionKind::kNightly) {
    if (session->status == SessionStatus::kRunning) {
      fail(
          "session {} is a nightly still running; `kbisect query sessions` lists the bisect "
          "session it starts",
          session_id);
    }
    fail(
        "session {} is a nightly with no bisection on record; `kbisect report {}` shows what it "
        "did",
        session_id, session_id);
  }
  if (!session || session->kind != SessionKind::kBisect) {
    fail("there is no bisect session {} in {}; list them with `kbisect query sessions`", session_id,
         store.path().string());
  }
  const Subjects subjects(session->config_path);

  // A commit's last decision stands: the search judges a commit again when a refuted culprit's
  // confirmation gave it more samples. An undecided verdict after it decides nothing (the
  // report, too, shows the decision).
  std::vector<VerdictRecord> decisions;
  for (const auto& verdict : store.verdicts_of(session_id)) {
    // Checks after the search, not decisions.
    if (verdict.phase == phase_name(Phase::kConfirm)) continue;
    if (verdict.verdict == Verdict::kUndecided) continue;
    std::erase_if(decisions, [&](const VerdictRecord& d) { return d.commit == verdict.commit; });
    decisions.push_back(verdict);
  }
  if (!subjects.unavailable().empty()) {
    fmt::print("# commit subjects are unavailable: {}\n", subjects.unavailable());
  }
  const bool merge_bases_tested =
      !tested_merge_bases(*session, store.candidates_of(session_id), decisions).empty();
  print_start(subjects, *session, !merge_bases_tested);
  for (const auto& verdict : decisions) {
    switch (verdict.verdict) {
      case Verdict::kGood:
        print_mark(subjects, "good", verdict.commit);
        break;
      case Verdict::kBad:
        print_mark(subjects, "bad", verdict.commit);
        break;
      case Verdict::kSkip:
        print_mark(subjects, "skip", verdict.commit);
        break;
      case Verdict::kUndecided:
        break;  // left out above
    }
  }
  if (!session->result_json.empty()) {
    auto result = nlohmann::json::parse(session->result_json);
    if (result.value("culprit", nlohmann::json()).is_string()) {
      const std::string culprit = result["culprit"];
      print_answer(subjects, culprit, result);
      fmt::print("# first bad commit: [{}] {}\n", culprit, subjects.of(culprit));
    } else if (result.value("verdict", nlohmann::json()).is_string()) {
      // A replay ends mid-bisection: say why, as the start above names a bad end all the same.
      const auto message = result.value("message", nlohmann::json());
      fmt::print("# kbisect named no first bad commit: {}{}\n",
                 result["verdict"].get<std::string>(),
                 message.is_string() ? ": " + printable_line(message.get<std::string>()) : "");
    }
  }
  return 0;
}

}  // namespace

void add_log_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand("log", "a bisect session as `git bisect log` (replayable)");
  auto session = std::make_shared<std::string>();
  command->add_option("session", *session, "session id, or last")->required();
  command->callback([&globals, &action, session] {
    action = [&globals, session] { return print_log(globals, *session); };
  });
}

}  // namespace kbisect
