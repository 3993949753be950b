#include "vm/console_file_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/temp_dir.h"

namespace kbisect {
namespace {

class ConsoleFileReaderTest : public ::testing::Test {
 protected:
  void append(const std::string& text) { std::ofstream(path_, std::ios::app) << text; }

  bool read(size_t max_bytes = 1000) {
    return reader_.read_new(max_bytes, [&](std::string_view line) { lines_.emplace_back(line); });
  }

  TempDir dir_;
  const std::filesystem::path path_ = dir_.path() / "console.log";
  ConsoleFileReader reader_{path_, 8};
  std::vector<std::string> lines_;
};

TEST_F(ConsoleFileReaderTest, ReadsWholeLinesAsTheFileGrows) {
  EXPECT_TRUE(read());  // not created yet
  append("boot\nini");
  EXPECT_TRUE(read());
  EXPECT_EQ(lines_, std::vector<std::string>{"boot"});
  append("t\n\nend");
  EXPECT_TRUE(read());
  reader_.finish([&](std::string_view line) { lines_.emplace_back(line); });
  EXPECT_EQ(lines_, (std::vector<std::string>{"boot", "init", "", "end"}));
}

// A guest that never ends its line cannot make the reader hold it whole.
TEST_F(ConsoleFileReaderTest, ALongLineArrivesInPieces) {
  append("0123456789abcdefghij");
  EXPECT_TRUE(read());
  EXPECT_EQ(lines_, (std::vector<std::string>{"01234567", "89abcdef"}));
  append("\n");
  EXPECT_TRUE(read());
  EXPECT_EQ(lines_.back(), "ghij");
}

TEST_F(ConsoleFileReaderTest, AFileOverTheCapStopsTheReading) {
  append("line\nline\n");
  EXPECT_FALSE(read(9));
}

// virtlogd, which writes libvirt's console files, renames a file that reaches its max_size
// (2 MiB by default) to "<name>.0" and goes on in a new one: the result frame that comes after
// is read there, a line cut by the rotation is whole, and the cap counts both files.
TEST_F(ConsoleFileReaderTest, FollowsTheFileWhenItIsRotated) {
  append("boot\nKBISECT");
  EXPECT_TRUE(read());
  append("-BEGIN\n");
  std::filesystem::rename(path_, path_.string() + ".0");
  append("KBISECT-END\n");
  EXPECT_TRUE(read());
  append("done\n");
  EXPECT_TRUE(read());
  EXPECT_EQ(lines_, (std::vector<std::string>{"boot", "KBISECT-BEGIN", "KBISECT-END", "done"}));

  std::filesystem::rename(path_, path_.string() + ".0");
  append("0123456\n");
  EXPECT_FALSE(read(40));  // 36 bytes before, 8 now: over 40 only with every file counted
}

}  // namespace
}  // namespace kbisect
