#include "common/sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, FileEqualsItsContent) {
  TempDir dir;
  auto path = dir.path() / "f";
  std::string content(200000, 'x');  // longer than one read buffer
  std::ofstream(path, std::ios::binary) << content;
  EXPECT_EQ(sha256_file_hex(path), sha256_hex(content));
  std::filesystem::remove(path);
  EXPECT_THROW(sha256_file_hex(path), Error);
}

}  // namespace
}  // namespace kbisect
