#include "common/lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbisect {
namespace {

std::vector<std::string> all_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) lines.emplace_back(take_line(text));
  return lines;
}

TEST(Lines, EveryLineOnceWithoutItsNewline) {
  EXPECT_EQ(all_lines("a\nbb\n"), (std::vector<std::string>{"a", "bb"}));
  EXPECT_EQ(all_lines("a\n\nc"), (std::vector<std::string>{"a", "", "c"}));
  EXPECT_EQ(all_lines("\n"), (std::vector<std::string>{""}));
  EXPECT_TRUE(all_lines("").empty());
}

}  // namespace
}  // namespace kbisect
