#include "common/file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class FileTest : public ::testing::Test {
 protected:
  TempDir temp_;
  const fs::path dir_ = temp_.path();
};

TEST_F(FileTest, WrittenBytesReadBackExactly) {
  const std::string bytes("line\n\0binary\r\n", 14);
  write_file(dir_ / "f", bytes);
  EXPECT_EQ(read_file(dir_ / "f"), bytes);
  write_file(dir_ / "f", "");
  EXPECT_EQ(read_file(dir_ / "f"), "");
  EXPECT_EQ(read_file_if_present(dir_ / "f"), "");
}

TEST_F(FileTest, MissingFileIsAnErrorThatNamesItOrNothingIfPresentAsked) {
  try {
    read_file(dir_ / "absent");
    FAIL() << "read_file of a missing file returned";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr((dir_ / "absent").string()));
    EXPECT_THAT(error.what(), HasSubstr("No such file"));
  }
  EXPECT_EQ(read_file_if_present(dir_ / "absent"), std::nullopt);
}

TEST_F(FileTest, WriteIntoMissingDirectoryIsAnError) {
  EXPECT_THROW(write_file(dir_ / "no/such/dir/f", "x"), Error);
  EXPECT_THROW(write_file_atomically(dir_ / "no/such/dir/f", "x"), Error);
}

TEST_F(FileTest, AtomicWriteReplacesTheFileAndLeavesNothingElse) {
  write_file(dir_ / "f", "old contents, longer than the new");
  write_file_atomically(dir_ / "f", "new");
  EXPECT_EQ(read_file(dir_ / "f"), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(FileTest, AFailedAtomicWriteLeavesNoTemporaryFile) {
  // A directory in the way: the rename fails after the temporary file is written.
  fs::create_directories(dir_ / "f" / "inside");
  EXPECT_THROW(write_file_atomically(dir_ / "f", "new"), Error);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace kbisect
