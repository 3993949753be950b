#include "common/events.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kbisect {
namespace {

TEST(Events, JsonFlagWinsOverQuiet) {
  EXPECT_EQ(Events::choose_mode(true, true), Events::Mode::kJsonLines);
  EXPECT_EQ(Events::choose_mode(false, true), Events::Mode::kQuiet);
}

TEST(Events, JsonLinesAreOneParsableObjectPerLine) {
  Events events(Events::Mode::kJsonLines);
  testing::internal::CaptureStdout();
  events.phase_begin("build", "abc123");
  events.phase_progress("build", 0.5, "half");  // terminal only
  events.phase_end("build", 1.5, "ok");
  events.note("verdict", "abc123 is bad", {{"commit", "abc123"}});
  std::istringstream lines(testing::internal::GetCapturedStdout());
  std::vector<nlohmann::json> events_seen;
  for (std::string line; std::getline(lines, line);) {
    events_seen.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(events_seen.size(), 3u);
  EXPECT_EQ(events_seen[0]["event"], "phase-begin");
  EXPECT_EQ(events_seen[1]["seconds"], 1.5);
  EXPECT_EQ(events_seen[2]["event"], "verdict");
  EXPECT_EQ(events_seen[2]["commit"], "abc123");
  EXPECT_EQ(events_seen[2]["text"], "abc123 is bad");
}

TEST(Events, TextThatIsNotUtf8IsReplacedNotThrown) {
  Events events(Events::Mode::kJsonLines);
  testing::internal::CaptureStdout();
  events.note("skip", "f.c: error: \xff");
  auto event = nlohmann::json::parse(testing::internal::GetCapturedStdout());
  EXPECT_EQ(event["text"], "f.c: error: \xef\xbf\xbd");  // U+FFFD
}

// An error unwinds past a phase that never ended: its status line ends, so that the error, printed
// after, starts a line of its own.
TEST(Events, AnUnfinishedPhaseEndsItsLineWhenTheEventsGo) {
  testing::internal::CaptureStderr();
  {
    Events events(Events::Mode::kTerminal);
    events.phase_begin("fetch", "origin master");
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "    fetch origin master\n");
}

TEST(Events, QuietModeKeepsStdoutClean) {
  Events events(Events::Mode::kQuiet);
  testing::internal::CaptureStdout();
  events.phase_begin("boot", "x");
  events.emit("sample", {{"value", 1}});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
}

}  // namespace
}  // namespace kbisect
