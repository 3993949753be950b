#include "vm/console_frame.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/sha256.h"

namespace kbisect {
namespace {

std::string base64(std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < data.size(); i += 3) {
    uint32_t bits = static_cast<uint8_t>(data[i]) << 16;
    if (i + 1 < data.size()) bits |= static_cast<uint8_t>(data[i + 1]) << 8;
    if (i + 2 < data.size()) bits |= static_cast<uint8_t>(data[i + 2]);
    out += kAlphabet[bits >> 18];
    out += kAlphabet[(bits >> 12) & 63];
    out += i + 1 < data.size() ? kAlphabet[(bits >> 6) & 63] : '=';
    out += i + 2 < data.size() ? kAlphabet[bits & 63] : '=';
  }
  return out;
}

// A frame as the guest init writes it: base64 in 76-character lines.
std::string frame(std::string_view kind, std::string_view payload) {
  std::string encoded = base64(payload);
  std::string text =
      fmt::format("KBISECT-BEGIN {} {} {}\n", kind, payload.size(), sha256_hex(payload));
  for (size_t i = 0; i < encoded.size(); i += 76) {
    text += "KBISECT-DATA " + encoded.substr(i, 76) + "\n";
  }
  return text + fmt::format("KBISECT-END {}\n", kind);
}

TEST(ConsoleFrame, ValidFrameSurvivesKernelMessagesAndCarriageReturns) {
  std::string payload = R"({"jobs":[{"jobname":"x"}]})" + std::string(500, ' ');
  std::string text = "[    0.000000] Linux version 6.1\r\nKBISECT-PROGRESS init\r\n";
  std::string framed = frame("result", payload);
  // A kernel message between every pair of lines, CRLF as a serial console sends it.
  for (size_t start = 0, end; (end = framed.find('\n', start)) != std::string::npos;
       start = end + 1) {
    text += framed.substr(start, end - start) + "\r\n[   12.5] random: crng init done\r\n";
  }
  auto parser = parse_console(text);
  ASSERT_EQ(parser.frames().size(), 1u)
      << (parser.rejections().empty() ? "" : parser.rejections()[0]);
  EXPECT_EQ(parser.frame("result")->payload, payload);
  EXPECT_TRUE(parser.saw_progress("init"));
  EXPECT_EQ(parser.rejection_count(), 0u);
}

TEST(ConsoleFrame, EmptyAndBinaryPayloads) {
  std::string binary("\0\x01\xff\n\r KBISECT-END result", 24);
  auto parser = parse_console(frame("empty", "") + frame("result", binary));
  ASSERT_EQ(parser.frames().size(), 2u);
  EXPECT_EQ(parser.frame("empty")->payload, "");
  EXPECT_EQ(parser.frame("result")->payload, binary);
}

TEST(ConsoleFrame, MarkerAfterGarbageOnTheSameLineCounts) {
  auto parser = parse_console("[  3.1] nvme nvme0: pci funKBISECT-PROGRESS mkfs-done\n");
  EXPECT_TRUE(parser.saw_progress("mkfs-done"));
}

TEST(ConsoleFrame, GarbageIsIgnored) {
  std::string garbage;
  for (int i = 0; i < 5000; ++i) garbage += static_cast<char>((i * 7919) % 256);
  auto parser = parse_console(garbage + "\nKBISECT-\nKBISECT-BOGUS x\nKBISECT-PROGRESS UPPER\n");
  EXPECT_TRUE(parser.frames().empty());
  EXPECT_TRUE(parser.progress().empty());
}

TEST(ConsoleFrame, TruncatedFrameIsRejected) {
  std::string framed = frame("result", std::string(1000, 'a'));
  // Cut at a line end: the stream stops inside the frame.
  auto parser = parse_console(framed.substr(0, framed.find('\n', framed.size() / 2) + 1));
  EXPECT_TRUE(parser.frames().empty());
  ASSERT_EQ(parser.rejection_count(), 1u);
  EXPECT_NE(parser.rejections()[0].find("truncated"), std::string::npos);
  EXPECT_TRUE(parser.rejected("result"));
  EXPECT_FALSE(parser.rejected("error"));
  // Cut inside a line: the partial base64 is rejected.
  EXPECT_TRUE(parse_console(framed.substr(0, framed.size() / 2)).frames().empty());
}

TEST(ConsoleFrame, MissingDataLineIsRejected) {
  std::string framed = frame("result", std::string(1000, 'a'));
  size_t second = framed.find("KBISECT-DATA", framed.find("KBISECT-DATA") + 1);
  framed.erase(second, framed.find('\n', second) - second + 1);
  auto parser = parse_console(framed);
  EXPECT_TRUE(parser.frames().empty());
  EXPECT_NE(parser.rejections().at(0).find("announced"), std::string::npos);
}

TEST(ConsoleFrame, ForgedChecksumIsRejected) {
  std::string framed = frame("result", "{\"jobs\":[]}");
  std::string forged = framed;
  forged[forged.find(' ', forged.find(' ', 15) + 1) + 1] ^= 1;  // flip a checksum digit
  auto parser = parse_console(forged);
  EXPECT_TRUE(parser.frames().empty());
  // A changed payload with the original checksum fails as well.
  std::string other = frame("result", "{\"jobs\":[1]}");
  std::string spliced =
      framed.substr(0, framed.find('\n') + 1) + other.substr(other.find('\n') + 1);
  auto parser2 = parse_console(spliced);
  EXPECT_TRUE(parser2.frames().empty());
  EXPECT_GE(parser2.rejection_count(), 1u);
}

TEST(ConsoleFrame, BadLengthsAreRejected) {
  std::string sum = sha256_hex("abc");
  for (std::string length : {"-3", "3x", "", "99999999999999999999999", "0x3", " 3"}) {
    auto parser =
        parse_console(fmt::format("KBISECT-BEGIN result {} {}\nKBISECT-DATA YWJj\n"
                                  "KBISECT-END result\n",
                                  length, sum));
    EXPECT_TRUE(parser.frames().empty()) << length;
  }
  // Longer than announced: rejected as soon as it is seen.
  auto parser = parse_console(
      fmt::format("KBISECT-BEGIN result 2 {}\nKBISECT-DATA YWJj\nKBISECT-END result\n", sum));
  EXPECT_TRUE(parser.frames().empty());
}

// A guest cannot make the host hold more than the frame announced: the DATA line that goes
// past it ends the frame, and later DATA lines are strays that are not kept.
TEST(ConsoleFrame, DataPastTheAnnouncedLengthIsRejectedAtOnce) {
  ConsoleFrameParser parser;
  parser.feed_line(fmt::format("KBISECT-BEGIN result 2 {}", sha256_hex("ab")));
  parser.feed_line("KBISECT-DATA YWJj");
  ASSERT_EQ(parser.rejection_count(), 1u);
  EXPECT_EQ(parser.rejections()[0], "frame 'result' longer than announced");
  parser.feed_line("KBISECT-DATA YWJj");
  ASSERT_EQ(parser.rejection_count(), 2u);
  EXPECT_EQ(parser.rejections()[1], "DATA outside a frame");
}

TEST(ConsoleFrame, OversizedFrameIsRejectedBeforeItsPayloadArrives) {
  ConsoleLimits limits;
  limits.max_payload_bytes = 100;
  auto parser = parse_console(frame("result", std::string(101, 'x')), limits);
  EXPECT_TRUE(parser.frames().empty());
  EXPECT_NE(parser.rejections().at(0).find("cap"), std::string::npos);
  EXPECT_EQ(parse_console(frame("result", std::string(100, 'x')), limits).frames().size(), 1u);
}

TEST(ConsoleFrame, NestedBeginDropsTheOuterFrame) {
  std::string outer = frame("result", "outer payload");
  std::string inner = frame("error", "inner");
  // The inner frame starts before the outer one's END.
  std::string text = outer.substr(0, outer.rfind("KBISECT-END")) + inner + "KBISECT-END result\n";
  auto parser = parse_console(text);
  ASSERT_EQ(parser.frames().size(), 1u);
  EXPECT_EQ(parser.frames()[0].kind, "error");
  EXPECT_EQ(parser.frame("result"), nullptr);
}

TEST(ConsoleFrame, MismatchedEndAndStrayMarkersAreRejected) {
  std::string framed = frame("result", "payload");
  framed.replace(framed.rfind("result"), 6, "error");
  auto parser = parse_console("KBISECT-DATA YWJj\nKBISECT-END result\n" + framed);
  EXPECT_TRUE(parser.frames().empty());
  EXPECT_EQ(parser.rejection_count(), 3u);
}

// A rejection is stored as the run's detail and printed: the guest's bytes in it cannot reach
// the terminal as they are.
TEST(ConsoleFrame, ARejectionQuotesOnlyPrintableText) {
  std::string framed = frame("result", "payload");
  framed.replace(framed.rfind("result"), 6, "\x1b]0;owned\a\xff");
  auto parser = parse_console(framed);
  ASSERT_EQ(parser.rejections().size(), 1u);
  EXPECT_EQ(parser.rejections()[0],
            "frame 'result' ended as '?]0;owned?"
            "?'");
}

TEST(ConsoleFrame, FrameCountAndRejectionListAreBounded) {
  ConsoleLimits limits;
  limits.max_frames = 2;
  limits.max_errors = 3;
  std::string text;
  for (int i = 0; i < 10; ++i) text += frame("result", "x");
  for (int i = 0; i < 10; ++i) text += "KBISECT-END result\n";
  auto parser = parse_console(text, limits);
  EXPECT_EQ(parser.frames().size(), 2u);
  EXPECT_EQ(parser.rejections().size(), 3u);
  EXPECT_EQ(parser.rejection_count(), 18u);
}

TEST(ConsoleFrame, RejectedKindsAreKnownAndBounded) {
  ConsoleLimits limits;
  limits.max_errors = 2;
  std::string text = "KBISECT-BEGIN error 99999999999 " + std::string(64, 'a') + "\n";
  for (std::string kind : {"a", "b", "c"}) {
    text +=
        fmt::format("KBISECT-BEGIN {} 1 {}\nKBISECT-END {}\n", kind, std::string(64, 'a'), kind);
  }
  auto parser = parse_console(text, limits);
  EXPECT_EQ(parser.rejection_count(), 4u);
  EXPECT_TRUE(parser.rejected("error"));
  EXPECT_TRUE(parser.rejected("a"));
  EXPECT_FALSE(parser.rejected("c"));
}

TEST(ConsoleFrame, NamesAreAtMostThirtyTwoCharacters) {
  const std::string longest(32, 'a'), too_long(33, 'a');
  auto parser =
      parse_console("KBISECT-PROGRESS " + longest + "\nKBISECT-PROGRESS " + too_long + "\n");
  EXPECT_EQ(parser.progress(), std::vector<std::string>{longest});
  EXPECT_EQ(parse_console(frame(longest, "x")).frames().size(), 1u);
  auto rejected = parse_console(frame(too_long, "x"));
  EXPECT_TRUE(rejected.frames().empty());
  EXPECT_EQ(rejected.rejections().at(0), "malformed BEGIN line");
}

TEST(ConsoleFrame, ProgressMarkersAreBounded) {
  ConsoleLimits limits;
  limits.max_progress = 2;
  auto parser = parse_console(
      "KBISECT-PROGRESS init\nKBISECT-PROGRESS device\nKBISECT-PROGRESS mounted\n", limits);
  EXPECT_EQ(parser.progress(), (std::vector<std::string>{"init", "device"}));
  EXPECT_FALSE(parser.saw_progress("mounted"));
}

TEST(ConsoleFrame, StrictBase64) {
  std::string out;
  EXPECT_TRUE(decode_base64("YWJjZA==", out));
  EXPECT_EQ(out, "abcd");
  for (std::string_view bad : {"YWJ", "YW=j", "Y===", "YWJj ", "YW\nJ", "=AAA", "YWJjZA==YWJj"}) {
    std::string ignored;
    EXPECT_FALSE(decode_base64(bad, ignored)) << bad;
  }
}

}  // namespace
}  // namespace kbisect
