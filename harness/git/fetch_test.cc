#include "git/fetch.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <thread>

#include "common/error.h"
#include "common/file.h"
#include "common/unique_fd.h"
#include "git/repository.h"
#include "git/test_repo.h"

namespace kbisect {
namespace {

using testing::HasSubstr;
constexpr std::chrono::seconds kTimeout{120};

class FetchTest : public testing::Test {
 protected:
  void SetUp() override {
    upstream_.write("a.txt", "one\n");
    upstream_.commit("first");
    local_.git({"remote", "add", "origin", upstream_.dir().string()});
  }

  std::string tip_after_fetch() {
    std::string ref = fetch_branch(local_.dir(), "origin", "main", kTimeout);
    EXPECT_EQ(ref, "refs/remotes/origin/main");
    return Repository::open(local_.dir()).resolve(ref);
  }

  TestRepo upstream_;
  TestRepo local_;
};

TEST_F(FetchTest, TheRemoteTrackingRefFollowsTheRemoteBranch) {
  EXPECT_EQ(tip_after_fetch(), upstream_.git({"rev-parse", "main"}));
  upstream_.write("a.txt", "two\n");
  const std::string second = upstream_.commit("second");
  EXPECT_EQ(tip_after_fetch(), second);
}

TEST_F(FetchTest, AForcePushedBranchIsFollowedToo) {
  upstream_.write("a.txt", "two\n");
  upstream_.commit("second");
  tip_after_fetch();
  upstream_.git({"reset", "-q", "--hard", "HEAD~1"});
  upstream_.write("a.txt", "rewritten\n");
  const std::string rewritten = upstream_.commit("second, rewritten");
  EXPECT_EQ(tip_after_fetch(), rewritten);
}

TEST_F(FetchTest, FailuresSayWhatToCheck) {
  try {
    fetch_branch(local_.dir(), "nowhere", "main", kTimeout);
    ADD_FAILURE() << "fetched from a remote that does not exist";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("cannot fetch branch main from remote nowhere"));
    EXPECT_THAT(error.what(), HasSubstr("remote -v"));
  }
  try {
    fetch_branch(local_.dir(), "origin", "no-such-branch", kTimeout);
    ADD_FAILURE() << "fetched a branch that does not exist";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("ls-remote origin no-such-branch"));
  }
}

// An HTTP server on 127.0.0.1 that answers every request "401, give a password": git's HTTP
// transport then asks for a user name and a password.
class PasswordWantingServer {
 public:
  PasswordWantingServer() : socket_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    auto* generic = reinterpret_cast<sockaddr*>(&address);
    if (!socket_ || ::bind(socket_.get(), generic, size) != 0 || ::listen(socket_.get(), 8) != 0 ||
        ::getsockname(socket_.get(), generic, &size) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~PasswordWantingServer() {
    ::shutdown(socket_.get(), SHUT_RDWR);  // ends the accept()
    thread_.join();
  }

  std::string url() const { return fmt::format("http://127.0.0.1:{}/repo.git", port_); }

 private:
  void serve() {
    for (;;) {
      UniqueFd client(::accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!client) return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t got = ::read(client.get(), buffer, sizeof buffer);
        if (got <= 0) break;
        request.append(buffer, static_cast<size_t>(got));
      }
      constexpr std::string_view kAnswer =
          "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"kbisect\"\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n";
      [[maybe_unused]] ssize_t sent = ::write(client.get(), kAnswer.data(), kAnswer.size());
    }
  }

  UniqueFd socket_;
  int port_ = 0;
  std::thread thread_;
};

// A desktop session's askpass helper would open a window and wait, out of sight of a nightly
// started from it, until the fetch timed out.
TEST_F(FetchTest, NoPasswordPromptRunsWhateverAskpassGitOrSshWouldUse) {
  PasswordWantingServer server;
  local_.git({"remote", "add", "locked", server.url()});
  const std::filesystem::path asked = local_.dir() / "asked";
  const std::filesystem::path askpass = local_.dir() / "askpass.sh";
  write_file(askpass, "#!/bin/sh\necho \"$1\" >> " + asked.string() + "\necho secret\n");
  std::filesystem::permissions(askpass, std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  local_.git({"config", "core.askPass", askpass.string()});
  ::setenv("SSH_ASKPASS", askpass.c_str(), 1);
  EXPECT_THROW(fetch_branch(local_.dir(), "locked", "main", kTimeout), Error);
  ::setenv("GIT_ASKPASS", askpass.c_str(), 1);
  EXPECT_THROW(fetch_branch(local_.dir(), "locked", "main", kTimeout), Error);
  ::unsetenv("GIT_ASKPASS");
  ::unsetenv("SSH_ASKPASS");
  EXPECT_FALSE(std::filesystem::exists(asked)) << read_file(asked);
}

}  // namespace
}  // namespace kbisect
