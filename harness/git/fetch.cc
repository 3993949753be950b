#include "git/fetch.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/interrupt.h"
#include "common/process.h"

namespace kbisect {

std::string tracking_ref(const std::string& remote, const std::string& branch) {
  return fmt::format("refs/remotes/{}/{}", remote, branch);
}

std::string fetch_branch(const std::filesystem::path& repo, const std::string& remote,
                         const std::string& branch, std::chrono::seconds timeout) {
  const std::string tracking = tracking_ref(remote, branch);
  ProcessOptions options;
  options.timeout = timeout;
  // Unattended runs (systemd, cron) have nobody to type a password: fail instead of waiting.
  // The fetch has no terminal (run_process); nor may git or ssh open a graphical prompt on a
  // desktop's DISPLAY. An empty GIT_ASKPASS keeps git from core.askPass and SSH_ASKPASS too.
  options.extra_environment = {
      {"GIT_TERMINAL_PROMPT", "0"}, {"GIT_ASKPASS", ""}, {"SSH_ASKPASS_REQUIRE", "never"}};
  // "--" ends the options: the remote and the refspec are never read as one.
  const std::vector<std::string> argv = {
      "git",   "-C",      repo.string(),
      "fetch", "--quiet", "--no-tags",
      "--",    remote,    fmt::format("+refs/heads/{}:{}", branch, tracking)};
  try {
    run_checked(argv, options);
  } catch (const Interrupted&) {
    throw;  // not a fetch problem: the run is being stopped
  } catch (const Error& error) {
    fail(
        "cannot fetch branch {} from remote {} into {}: {}\ncheck the remote (git -C {} remote -v) "
        "and that it has the branch (git -C {} ls-remote {} {})",
        branch, remote, repo.string(), error.what(), repo.string(), repo.string(), remote, branch);
  }
  return tracking;
}

}  // namespace kbisect
