#include "common/printable.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(PrintableLine, KeepsTextAndUtf8) {
  EXPECT_EQ(printable_line("ext4: Allow parallel DIO reads"), "ext4: Allow parallel DIO reads");
  EXPECT_EQ(printable_line("Ærøskøbing \u00e9t\u00e9 \u2192 \u65e5\u672c"),
            "Ærøskøbing \u00e9t\u00e9 \u2192 \u65e5\u672c");
  EXPECT_EQ(printable_line(""), "");
}

TEST(PrintableLine, ControlCharactersCannotReachTheTerminal) {
  EXPECT_EQ(printable_line("a\tb"), "a b");
  EXPECT_EQ(printable_line("x\ngit bisect new HEAD"), "x?git bisect new HEAD");
  EXPECT_EQ(printable_line("\x1b]0;title\x07\x1b[2Kfix\r"), "?]0;title??[2Kfix?");
  EXPECT_EQ(printable_line(std::string_view("nul\0del\x7f", 8)), "nul?del?");
  EXPECT_EQ(printable_line("\xc2\x9b"
                           "31m red \xc2\x85"),
            "?31m red ?");
  EXPECT_EQ(printable_line("\xc2\xa0nbsp"), "\xc2\xa0nbsp");  // U+00A0 is no control
}

TEST(PrintableLine, BidiOverridesCannotReorderIt) {
  EXPECT_EQ(printable_line("good \u202egnp.exe"), "good ?gnp.exe");
  EXPECT_EQ(printable_line("\u2066a\u2069 \u202a\u202b\u202c\u202d"), "?a? ????");
  EXPECT_EQ(printable_line("\u2014 \u2019"), "\u2014 \u2019");  // dash and quote stay
}

TEST(PrintableAscii, KeepsOnlyPrintableAsciiUpToTheCap) {
  EXPECT_EQ(printable_ascii("frame 'result' ok", 100), "frame 'result' ok");
  EXPECT_EQ(printable_ascii("\x1b]0;x\a\xff\xfe\xc3\xa9\t", 100), "?]0;x??????");
  EXPECT_EQ(printable_ascii("abcdef", 4), "abcd");
}

}  // namespace
}  // namespace kbisect
