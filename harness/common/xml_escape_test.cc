#include "common/xml_escape.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(XmlEscape, EscapesMarkupAndQuotesAndKeepsTheRest) {
  EXPECT_EQ(xml_escape("<&>'\""), "&lt;&amp;&gt;&apos;&quot;");
  EXPECT_EQ(xml_escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(xml_escape("caf\xc3\xa9 \xe2\x88\x92 plain"), "caf\xc3\xa9 \xe2\x88\x92 plain");
  EXPECT_EQ(xml_escape(""), "");
}

}  // namespace
}  // namespace kbisect
