// kbisect compare -c CONFIG --a REF[@VARIANT] --b REF[@VARIANT] [--samples N]
// kbisect revert-check -c CONFIG --base REF --revert SHA[,SHA...] [--variant V]... [--samples N]
#include "cli/ab_compare.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "git/revert.h"

namespace kbisect {
namespace {

struct CompareOptions {
  std::filesystem::path config;
  std::string a, b;  // compare: REF[@VARIANT]
  std::string base;  // revert-check
  std::vector<std::string> reverts;
  std::vector<std::string> variants;  // revert-check: each measured on both sides
  int samples = 0;
};

AbSide side_of(const std::string& text, CommandContext& context, Repository& repo) {
  AbSide side;
  side.label = text;
  auto at = text.rfind('@');
  // `@` also appears in refs such as HEAD@{1} and @~1 (git's HEAD): only a suffix without
  // braces after a ref names a variant.
  bool has_variant = at != std::string::npos && at > 0 && text.find('{', at) == std::string::npos;
  side.commit = repo.resolve(has_variant ? text.substr(0, at) : text);
  side.variant = context.variant(has_variant ? text.substr(at + 1) : "");
  return side;
}

int compare(const GlobalOptions& globals, const CompareOptions& options) {
  CommandContext context(globals, options.config);
  CommitMeasurer measurer(context.scenario, context.store, context.events,
                          context.scenario.workdir);
  AbSide a = side_of(options.a, context, measurer.repository());
  AbSide b = side_of(options.b, context, measurer.repository());
  int samples = options.samples > 0 ? options.samples : context.scenario.samples;
  return compare_sides(context, measurer, SessionKind::kCompare, {{a, b}}, samples);
}

int revert_check(const GlobalOptions& globals, const CompareOptions& options) {
  CommandContext context(globals, options.config);
  CommitMeasurer measurer(context.scenario, context.store, context.events,
                          context.scenario.workdir);
  Repository& repo = measurer.repository();
  const std::string base = repo.resolve(options.base);
  std::vector<std::string> commits;
  // The reverted side is named by the commits, not by how they were asked for: a ref such as
  // HEAD~5^2 names another commit once the branch moves, and the report's command to make the
  // session again reads the commits from here.
  std::string label = options.base;
  for (const auto& spec : options.reverts) {
    commits.push_back(repo.resolve(spec));
    label += " -" + commits.back().substr(0, 12);
  }
  const RevertResult reverted = revert_commits(repo, base, commits);
  for (const std::string& commit : reverted.not_in_base) {
    context.events.note(
        "warning",
        fmt::format("{} (\"{}\") is not in the history of base {}: its revert "
                    "undoes a change the base may not have; check the base",
                    commit.substr(0, 12), repo.commit_info(commit).subject, options.base));
  }
  std::vector<AbPair> pairs;
  for (const Variant* variant : context.variants(options.variants)) {
    pairs.push_back({{options.base, base, variant}, {label, reverted.commit_id, variant}});
  }
  int samples = options.samples > 0 ? options.samples : context.scenario.samples;
  return compare_sides(context, measurer, SessionKind::kRevertCheck, pairs, samples);
}

void add_common_options(CLI::App* command, CompareOptions& options) {
  command->add_option("-c,--config", options.config, "scenario YAML")->required();
  command->add_option("--samples", options.samples, "samples per side (default: the config's)")
      ->check(sample_count_check());
}

}  // namespace

void add_compare_command(CLI::App& app, const GlobalOptions& globals, CommandAction& action) {
  auto options = std::make_shared<CompareOptions>();
  auto* compare_app = app.add_subcommand("compare", "A/B: two commits or variants, interleaved");
  add_common_options(compare_app, *options);
  compare_app->add_option("--a", options->a, "REF[@VARIANT]")->required();
  compare_app->add_option("--b", options->b, "REF[@VARIANT]")->required();
  compare_app->callback([&globals, &action, options] {
    action = [&globals, options] { return compare(globals, *options); };
  });

  auto* revert_app =
      app.add_subcommand("revert-check", "a commit against itself with commits reverted");
  add_common_options(revert_app, *options);
  revert_app->add_option("--base", options->base, "the commit to revert on")->required();
  revert_app->add_option("--revert", options->reverts, "commits to revert, in this order")
      ->required()
      ->delimiter(',');
  revert_app->add_option("--variant", options->variants,
                         "workload variant; repeat for several; a name that a matrix extends "
                         "(\"short\" of \"short,BS=4k\") selects all its cells (default: none)");
  revert_app->callback([&globals, &action, options] {
    action = [&globals, options] { return revert_check(globals, *options); };
  });
}

}  // namespace kbisect
