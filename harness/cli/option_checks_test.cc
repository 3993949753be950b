#include "cli/option_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kbisect {
namespace {

// What parsing `arguments` with a checked --resume and --samples says: "" when it takes them.
std::string parse_error(std::vector<std::string> arguments) {
  CLI::App app;
  int64_t resume = 7;
  int samples = 5;
  std::string db;
  app.add_option("--resume", resume)->check(session_id_check());
  app.add_option("--samples", samples)->check(sample_count_check());
  app.add_option("--db", db)->check(not_empty_check("the database file"));
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError& error) {
    return error.what();
  }
  return resume == 7 && samples == 5 ? "" : "wrong value";
}

// `--db "$DB"` with DB unset: an error, not the default database.
TEST(NotEmptyOption, AnEmptyValueIsAnError) {
  EXPECT_EQ(parse_error({"--db", ""}), "--db: is empty; give the database file");
  EXPECT_EQ(parse_error({"--db", "x.db"}), "");
}

TEST(SessionIdOption, SaysWhatASessionIdIs) {
  const std::string said =
      "--resume: a session id is a positive integer (see `kbisect query sessions`)";
  EXPECT_EQ(parse_error({"--resume", "0"}), said);
  EXPECT_EQ(parse_error({"--resume", "-3"}), said);
  EXPECT_EQ(parse_error({"--resume", "x7"}), said);
  EXPECT_EQ(parse_error({"--resume", "99999999999999999999"}), said);
  EXPECT_EQ(parse_error({"--resume", "7"}), "");
}

TEST(SampleCountOption, SaysWhatANumberOfSamplesIs) {
  const std::string said = "--samples: a number of samples is a whole number from 1 to 1000";
  EXPECT_EQ(parse_error({"--samples", "abc"}), said);
  EXPECT_EQ(parse_error({"--samples", "0"}), said);
  EXPECT_EQ(parse_error({"--samples", "1001"}), said);
  EXPECT_EQ(parse_error({"--samples", "2.5"}), said);
  EXPECT_EQ(parse_error({"--samples", "5"}), "");
}

}  // namespace
}  // namespace kbisect
