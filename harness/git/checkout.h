// Materialising a tree into one persistent source directory for out-of-tree (O=) kernel
// builds. Only files that differ from the tree materialised last are rewritten, so files that
// did not change keep their mtime and `make` stays incremental between nearby commits.
//
// The directory remembers its tree in a small manifest file (kManifestName), and while it
// changes, the trees it is between. Without a settled manifest (first use, a checkout that a
// crash or Ctrl-C stopped, a corrupt file) every file of the tree is written, and the files
// of the trees it was between that the tree lacks are removed. Files that are not part of a
// tree (anything a user or tool put there) are left alone, and so is a tracked file someone
// edited by hand: the manifest is trusted, not re-verified.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

#include "git/repository.h"

namespace kbisect {

inline constexpr std::string_view kManifestName = ".kbisect-tree";

struct MaterialiseStats {
  bool full = false;        // no usable manifest: every file of the tree was written
  size_t written = 0;       // files and symlinks written
  size_t removed = 0;       // files and symlinks deleted
  size_t mode_changes = 0;  // executable bit flipped without rewriting the file
};

// Makes `dir` (created if missing) hold the tree `treeish` (a tree or commit id, or any spec
// Repository::resolve accepts). Two processes cannot materialise into one directory at once:
// the second gets an Error.
MaterialiseStats materialise_tree(const Repository& repo, std::string_view treeish,
                                  const std::filesystem::path& dir);

}  // namespace kbisect
