#include "report/reproduce.h"

#include "common/printable.h"
#include "common/shell_quote.h"
#include "report/format.h"
#include "store/store_lock.h"

namespace kbisect {
namespace {

std::vector<std::string> kbisect_argv(const ReportData& data, const std::string& subcommand) {
  return {"kbisect", "--db", data.database.string(), subcommand, "-c", data.session.config_path};
}

std::vector<std::string> bisect_argv(const ReportData& data) {
  const auto& session = data.session;
  const auto options = session_options(data);
  auto argv = kbisect_argv(data, "bisect");
  for (const auto& good : session.good_commits) argv.insert(argv.end(), {"--good", good});
  argv.insert(argv.end(), {"--bad", session.bad_commit, "--strategy", session.strategy});
  // A number only when --confidence was given (null: the strategy's own).
  if (auto confidence = options.find("confidence");
      confidence != options.end() && confidence->is_number()) {
    argv.insert(argv.end(), {"--confidence", confidence->dump()});
  }
  if (auto paths = options.find("paths"); paths != options.end() && paths->is_array()) {
    for (const auto& path : *paths) argv.insert(argv.end(), {"--paths", path.get<std::string>()});
  }
  if (auto variant = string_at(options, "variant"); !variant.empty()) {
    argv.insert(argv.end(), {"--variant", variant});
  }
  argv.push_back("--fresh");  // otherwise kbisect answers from the stored session
  return argv;
}

std::string with_variant(const std::string& commit, const std::string& variant) {
  return variant.empty() ? commit : commit + "@" + variant;
}

std::vector<std::string> samples_option(const nlohmann::json& options) {
  auto samples = options.find("samples");
  if (samples == options.end() || !samples->is_number_integer()) return {};
  return {"--samples", samples->dump()};
}

std::vector<std::string> compare_argv(const ReportData& data) {
  const auto& session = data.session;
  const auto options = session_options(data);
  auto argv = kbisect_argv(data, "compare");
  const VariantPair variants = compared_variants(data).front();
  argv.insert(argv.end(), {"--a", with_variant(session.good_commits.front(), variants.a), "--b",
                           with_variant(session.bad_commit, variants.b)});
  for (auto& argument : samples_option(options)) argv.push_back(std::move(argument));
  return argv;
}

// revert-check stores the reverted side as the user named it: "BASE -SHA1 -SHA2".
std::vector<std::string> reverted_specs(const SessionRecord& session) {
  const std::string prefix = session.good_refs.empty() ? "" : session.good_refs.front() + " -";
  if (prefix.empty() || session.bad_ref.rfind(prefix, 0) != 0) return {};
  std::vector<std::string> specs;
  std::string rest = session.bad_ref.substr(prefix.size());
  for (size_t at; (at = rest.find(" -")) != std::string::npos; rest.erase(0, at + 2)) {
    specs.push_back(rest.substr(0, at));
  }
  specs.push_back(rest);
  return specs;
}

std::vector<std::string> revert_check_argv(const ReportData& data) {
  const auto& session = data.session;
  const auto options = session_options(data);
  auto argv = kbisect_argv(data, "revert-check");
  argv.insert(argv.end(), {"--base", session.good_commits.front()});
  std::string reverts;
  for (const auto& spec : reverted_specs(session)) reverts += (reverts.empty() ? "" : ",") + spec;
  if (reverts.empty()) return {};  // not stored in the form kbisect writes it
  argv.insert(argv.end(), {"--revert", reverts});
  for (const auto& variants : compared_variants(data)) {
    if (!variants.a.empty()) argv.insert(argv.end(), {"--variant", variants.a});
  }
  for (auto& argument : samples_option(options)) argv.push_back(std::move(argument));
  return argv;
}

// The command that makes the session again; empty when it cannot be said.
std::vector<std::string> session_argv(const ReportData& data) {
  if (data.session.good_commits.empty()) return {};
  switch (data.session.kind) {
    case SessionKind::kBisect:
      return bisect_argv(data);
    case SessionKind::kCompare:
      return compare_argv(data);
    case SessionKind::kRevertCheck:
      return revert_check_argv(data);
    case SessionKind::kNightly:
    case SessionKind::kRun:
      break;
  }
  return {};
}

}  // namespace

Reproduction reproduction_of(const ReportData& data) {
  Reproduction reproduction;
  reproduction.config = printable_line(data.session.config_path);
  const auto& session = data.session;
  auto report = [&](const std::string& which) {
    reproduction.commands.push_back(
        shell_command({"kbisect", "--db", data.database.string(), "report", which}));
  };
  // An interrupted bisection goes on from its journal: that, before starting it over. One that
  // is still running would refuse a second process.
  if (data.running_in) {
    reproduction.commands.push_back(printable_line(fmt::format(
        "# it is running in {}; what it has found so far:", describe_holder(*data.running_in))));
    report(std::to_string(session.id));
    reproduction.commands.push_back("# to start it over:");
  } else if (session.kind == SessionKind::kBisect && session.status == SessionStatus::kRunning) {
    reproduction.commands.push_back("# it stopped before it finished; to continue it:");
    reproduction.commands.push_back(
        shell_command({"kbisect", "--db", data.database.string(), "bisect", "-c",
                       session.config_path, "--resume", std::to_string(session.id)}));
    report(std::to_string(session.id));
    reproduction.commands.push_back("# to start it over:");
  }
  auto argv = session_argv(data);
  if (argv.empty()) {
    report(std::to_string(session.id));
  } else {
    // The command makes a new session: that one's report, not this one's again.
    reproduction.commands.push_back(shell_command(argv));
    report("last");
  }
  return reproduction;
}

}  // namespace kbisect
