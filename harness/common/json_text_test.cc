#include "common/json_text.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(JsonText, TextThatIsNotUtf8IsReplacedNotThrown) {
  nlohmann::json value = {{"message", "f.c: error: \xff"}};
  EXPECT_THROW((void)value.dump(), nlohmann::json::type_error);
  EXPECT_EQ(json_text(value), "{\"message\":\"f.c: error: \xef\xbf\xbd\"}");
  EXPECT_EQ(json_text({1, 2}, 1), "[\n 1,\n 2\n]");
}

TEST(JsonText, Utf8IsToldFromOtherBytes) {
  EXPECT_TRUE(is_utf8("fs/ext4"));
  EXPECT_TRUE(is_utf8("drivers/caf\xc3\xa9"));
  EXPECT_FALSE(is_utf8("fs/\xff"));
  EXPECT_FALSE(is_utf8("drivers/caf\xc3"));  // a cut sequence
}

}  // namespace
}  // namespace kbisect
