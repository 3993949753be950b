#include "store/older_schema.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iterator>

#include "store/schema.h"
#include "store/sqlite.h"

namespace kbisect {

void downgrade(const std::filesystem::path& path, int version) {
  const char* undo[] = {
      "DROP TABLE journal",  // 2 -> 1
      "ALTER TABLE verdicts DROP COLUMN detail; "
      "ALTER TABLE verdicts RENAME COLUMN phase TO reason",  // 3 -> 2
      "ALTER TABLE runs DROP COLUMN environment",            // 4 -> 3
  };
  ASSERT_EQ(std::size(undo) + 1, static_cast<size_t>(schema_version()));
  Database db = open_read_write(path);
  for (int v = schema_version(); v > version; --v) execute(db.get(), undo[v - 2]);
  execute(db.get(), fmt::format("PRAGMA user_version = {}", version).c_str());
}

}  // namespace kbisect
