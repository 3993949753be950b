#include "common/xml_escape.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace kbisect {
namespace {

TEST(XmlEscape, EscapesMarkupAndQuotesAndKeepsTheRest) {
  EXPECT_EQ(xml_escape("<&>'\""), "&lt;&amp;&gt;&apos;&quot;");
  EXPECT_EQ(xml_escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(xml_escape("caf\xc3\xa9 \xe2\x88\x92 plain"), "caf\xc3\xa9 \xe2\x88\x92 plain");
  EXPECT_EQ(xml_escape(""), "");
}

// In an attribute's value a parser turns them into spaces: libvirt would open another path.
TEST(XmlEscape, KeepsTabsAndLineBreaksAsCharacterReferences) {
  EXPECT_EQ(xml_escape("/srv/work\tdir\n\r"), "/srv/work&#9;dir&#10;&#13;");
}

TEST(XmlEscape, RefusesWhatXmlCannotCarry) {
  for (std::string_view text : {"a\x01b", "\x1b[2K", "del\x7f"}) {
    EXPECT_THROW(xml_escape(text), Error) << text;
  }
  try {
    xml_escape("/srv/\x01");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    // The message does not carry the character to the terminal either.
    EXPECT_STREQ(error.what(),
                 "'/srv/?' holds the control character 0x01, which XML cannot carry; rename it");
  }
}

TEST(XmlEscape, AReportShowsWhatXmlCannotCarryAsAReplacement) {
  EXPECT_EQ(xml_escape_shown("ended as '\x1b]0;x\a' & <b>\t"),
            "ended as &apos;\uFFFD]0;x\uFFFD&apos; &amp; &lt;b&gt;&#9;");
}

}  // namespace
}  // namespace kbisect
