// kbisect bisect -c CONFIG --good REF [--good REF...] --bad REF [--strategy S] ... | --resume N
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "bisect/strategy.h"
#include "cli/bisect_session.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/option_checks.h"
#include "common/json_text.h"
#include "store/store_lock.h"

namespace kbisect {
namespace {

struct BisectOptions {
  std::filesystem::path config;
  BisectRequest request;
};

// A --paths value as libgit2's pathspecs take it, relative to the top of the tree and
// normalised as git does: git's "./fs/ext4/" and "block/../fs/ext4" are "fs/ext4". Returns why
// it cannot be one, or "".
std::string normalize_path(std::string& path) {
  if (!is_utf8(path)) return "not UTF-8 text (a session keeps its paths as JSON)";
  if (path.starts_with(":")) {
    return "pathspec magic (:(glob), :!...) is not supported; give plain paths or wildcards";
  }
  if (path.starts_with("/")) return "give a path relative to the top of the kernel tree";
  path = std::filesystem::path(path).lexically_normal().generic_string();
  while (path.size() > 1 && path.ends_with("/")) path.pop_back();
  if (path == ".." || path.starts_with("../")) return "is outside the kernel tree";
  if (path.empty() || path == ".") return "names the whole tree: leave --paths out";
  return "";
}

int exit_code(const std::string& verdict) {
  if (verdict == "found" || verdict == "no-regression") return 0;
  return verdict == "only-skipped" ? 2 : 1;
}

// `session_id`: set once the session exists.
int bisect_in(CommandContext& context, const GlobalOptions& globals, const BisectOptions& options,
              int64_t& session_id) {
  Repository repo =
      Repository::open(context.scenario.kernel.repo, context.scenario.kernel.repo_place);
  BisectRun run = run_bisect(context, repo, options.request, [&](int64_t id) { session_id = id; });
  if (globals.json) {
    if (!run.answered_before) context.events.emit("culprit", run.result);
    fmt::print("{}\n", json_text(run.result));
  } else {
    if (run.answered_before) {
      fmt::print("session {} already answered this ({})\n", run.session.id,
                 options.request.resume == 0
                     ? "make it again with --fresh"
                     : fmt::format("`kbisect report {}` ends with the command that makes it again",
                                   run.session.id));
    }
    print_bisect_summary(run, context, repo);
    // Said by bisect, which was told there is a regression; a nightly expects none.
    if (run.result["verdict"] == "no-regression") {
      const MetricSpec& metric = context.scenario.metrics.front();
      fmt::print(
          "check that the good and bad commits are right and that the metric and its direction "
          "({}: {} is better) match the regression\n",
          metric.name, metric.better == Better::kHigher ? "higher" : "lower");
    }
  }
  return exit_code(run.result["verdict"]);
}

int bisect(const GlobalOptions& globals, const BisectOptions& options) {
  std::optional<CommandContext> context;
  int64_t session_id = 0;
  try {
    context.emplace(globals, options.config);
    return bisect_in(*context, globals, options, session_id);
  } catch (const Error& error) {
    // The contract's last line, also for a bisection that stopped (resumable) or never began.
    if (globals.json) {
      nlohmann::json result =
          stopped_result(context ? &context->store : nullptr, session_id, error.what());
      // Refused the session another process runs (its id is not this run's, so none of its
      // numbers are reported): it says who runs it.
      if (const auto* held = dynamic_cast<const LockHeld*>(&error)) {
        result["holder"] = holder_json(held->holder());
      }
      fmt::print("{}\n", json_text(result));
    }
    throw;
  }
}

}  // namespace

void add_bisect_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto* command = app.add_subcommand("bisect", "find the commit that caused a regression");
  auto options = std::make_shared<BisectOptions>();
  BisectRequest& request = options->request;
  command->add_option("-c,--config", options->config, "scenario YAML")->required();
  command->add_option("--good", request.goods, "a commit without the regression (repeatable)");
  command->add_option("--bad", request.bad, "a commit with the regression");
  command->add_option("--strategy", request.strategy, "adaptive, bayes, classic, lkp, pinpoint")
      ->check(CLI::IsMember(strategy_names()))
      ->capture_default_str();
  command
      ->add_option("--confidence", request.confidence,
                   "adaptive, bayes: stop once the culprit has this probability (default 0.999, "
                   "bayes 0.95)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value)) return "must be a number";
            return value > 0.5 && value <= 0.9999
                       ? ""
                       : "must be above 0.5 and at most 0.9999, e.g. 0.999";
          },
          "(0.5, 0.9999]"));
  command->add_option("--paths", request.paths, "only commits touching these paths")
      ->transform(CLI::Validator(normalize_path, "PATH"));
  command->add_option("--variant", request.variant, "workload variant (default: none)");
  auto* fresh =
      command->add_flag("--fresh", request.fresh, "start a new session even if one answered this");
  // A session goes on asking what it was started with: the options that make the question
  // cannot change on a resume.
  auto* resume = command->add_option("--resume", request.resume, "continue session N as started")
                     ->check(session_id_check());
  for (const char* question :
       {"--good", "--bad", "--strategy", "--confidence", "--paths", "--variant"}) {
    resume->excludes(command->get_option(question));
  }
  resume->excludes(fresh);
  command->callback([&globals, &action, options] {
    const BisectRequest& asked = options->request;
    if (asked.confidence && asked.strategy != "adaptive" && asked.strategy != "bayes") {
      throw CLI::ValidationError(
          "--confidence", fmt::format("only adaptive and bayes use it; {} decides by its own rule",
                                      asked.strategy));
    }
    action = [&globals, options] { return bisect(globals, *options); };
  });
}

}  // namespace kbisect
