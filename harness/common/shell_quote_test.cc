#include "common/shell_quote.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(ShellQuote, QuotesOnlyWhatTheShellWouldRead) {
  EXPECT_EQ(shell_quote("--db"), "--db");
  EXPECT_EQ(shell_quote("/a/b-c_d.yaml"), "/a/b-c_d.yaml");
  EXPECT_EQ(shell_quote("my config.yaml"), "'my config.yaml'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shell_quote("HEAD~3"), "'HEAD~3'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_command({"kbisect", "report", "a b"}), "kbisect report 'a b'");
}

TEST(ShellQuote, SingleQuoteQuotesEvenSafeText) {
  EXPECT_EQ(single_quote("xfs"), "'xfs'");
  EXPECT_EQ(single_quote("'; reboot -f; '"), "''\\''; reboot -f; '\\'''");
}

}  // namespace
}  // namespace kbisect
