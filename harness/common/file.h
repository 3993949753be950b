// Whole files read and written in one call, failing in the harness's error style.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kbisect {

// The file's bytes; throws Error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// The file's bytes, or nothing when it cannot be opened: absent, or gone (the /proc entry of a
// process that has ended).
std::optional<std::string> read_file_if_present(const std::filesystem::path& path);

// Replaces the file's contents; throws Error when it cannot be written.
void write_file(const std::filesystem::path& path, std::string_view contents);

// Writes a temporary file beside `path` and renames it over `path`, so that a reader (another
// kbisect, or this one after a crash) finds the old contents or the new, never a part; the
// file and the rename are synced to disk before it returns. A failed write leaves no
// temporary file behind.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// fsync of a file, or of a directory (its entries: what a rename into it did); throws Error.
void sync_to_disk(const std::filesystem::path& path);

}  // namespace kbisect
