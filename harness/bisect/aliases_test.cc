#include "bisect/aliases.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(FollowAliases, LeadsToTheCommitThatHoldsTheSamples) {
  const std::map<std::string, std::string> aliases = {{"c3", "c2"}, {"c2", "c1"}};
  EXPECT_EQ(follow_aliases(aliases, "c3"), "c1");
  EXPECT_EQ(follow_aliases(aliases, "c2"), "c1");
  EXPECT_EQ(follow_aliases(aliases, "c1"), "c1");
  EXPECT_EQ(follow_aliases({}, "c9"), "c9");
}

TEST(FollowAliases, ACycleEnds) {
  const std::map<std::string, std::string> aliases = {{"a", "b"}, {"b", "a"}};
  const std::string end = follow_aliases(aliases, "a");
  EXPECT_TRUE(end == "a" || end == "b");
}

}  // namespace
}  // namespace kbisect
