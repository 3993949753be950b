// Bringing a branch of a remote into the kernel repository before `kbisect nightly` measures
// its tip. Done with the git CLI (an argv, no shell), not libgit2: git's own transports, ssh
// configuration and credential helpers then work as they do for the person who set it up.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace kbisect {

// refs/remotes/REMOTE/BRANCH: where fetch_branch() puts the branch.
std::string tracking_ref(const std::string& remote, const std::string& branch);

// `git fetch REMOTE +refs/heads/BRANCH:refs/remotes/REMOTE/BRANCH` in `repo`: the
// remote-tracking ref follows the remote even after a force-push. Returns that ref. Throws
// Error when git fails or takes longer than `timeout`; never waits for a password prompt.
std::string fetch_branch(const std::filesystem::path& repo, const std::string& remote,
                         const std::string& branch, std::chrono::seconds timeout);

}  // namespace kbisect
