#include "config/reserved_vars.h"

#include <gtest/gtest.h>

namespace kbisect {
namespace {

TEST(ReservedVars, TheGuestsOwnSettingsAreReserved) {
  for (const char* name : {"KBISECT_FS", "KBISECT_DIR", "KBISECT_", "PATH", "LD_LIBRARY_PATH",
                           "HOME", "TERM", "PWD", "OLDPWD", "SHLVL"}) {
    EXPECT_TRUE(is_reserved_var(name)) << name;
  }
}

TEST(ReservedVars, WorkloadNamesAreFree) {
  for (const char* name : {"BS", "KBISECT", "kbisect_fs", "PATH2", "MY_PATH", "QD"}) {
    EXPECT_FALSE(is_reserved_var(name)) << name;
  }
}

TEST(ReservedVars, NamesListsThePrefixAndTheNames) {
  EXPECT_EQ(reserved_var_names(),
            "KBISECT_*, PATH, LD_LIBRARY_PATH, HOME, TERM, PWD, OLDPWD, SHLVL");
}

}  // namespace
}  // namespace kbisect
