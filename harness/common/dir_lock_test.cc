#include "common/dir_lock.h"

#include <gtest/gtest.h>

#include <optional>

#include "common/error.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

// flock locks belong to open files, so a second lock in this process conflicts as another
// process's would.
TEST(DirLock, ASecondHolderIsRefusedUntilTheFirstLetsGo) {
  TempDir temp;
  std::filesystem::path dir = temp.path() / "work";
  std::optional<DirLock> first(std::in_place, dir, "wait for it");
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  try {
    DirLock second(dir, "wait for it or use another workdir");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(
        std::string(error.what()),
        dir.string() + " is in use by another kbisect process; wait for it or use another workdir");
  }
  first.reset();
  EXPECT_NO_THROW(DirLock(dir, "wait for it"));
}

}  // namespace
}  // namespace kbisect
