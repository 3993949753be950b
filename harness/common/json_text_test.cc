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

}  // namespace
}  // namespace kbisect
