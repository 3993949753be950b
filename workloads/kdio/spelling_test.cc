#include "kdio/spelling.h"

#include <gtest/gtest.h>

namespace kdio {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("bs", ""), 2u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("iodpeth", "iodepth"), 2u);  // a transposition is two edits
}

TEST(ClosestMatch, OnlyNearMisses) {
  const std::vector<std::string> names{"iodepth", "bs", "size"};
  EXPECT_EQ(closest_match("iodpeth", names), "iodepth");
  EXPECT_EQ(closest_match("bz", names), "bs");
  EXPECT_EQ(closest_match("zzzzzz", names), std::nullopt);
  EXPECT_EQ(closest_match("xy", names), std::nullopt);  // two edits from "bs": too far for two
}

}  // namespace
}  // namespace kdio
