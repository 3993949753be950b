// For the store's tests: a database as an older kbisect wrote it.
#pragma once

#include <filesystem>

namespace kbisect {

// Undoes the migrations after `version` in the database at `path`.
void downgrade(const std::filesystem::path& path, int version);

}  // namespace kbisect
