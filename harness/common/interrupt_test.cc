#include "common/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace kbisect {
namespace {

// The message is what a user reads after Ctrl-C: the signal's name, not strsignal's
// "Interrupt" ("interrupted by Interrupt").
TEST(Interrupted, NamesTheSignal) {
  EXPECT_STREQ(Interrupted(SIGINT).what(), "interrupted by SIGINT; everything started was stopped");
  EXPECT_STREQ(Interrupted(SIGTERM).what(),
               "interrupted by SIGTERM; everything started was stopped");
  EXPECT_EQ(Interrupted(SIGTERM).signal_number(), SIGTERM);
}

}  // namespace
}  // namespace kbisect
