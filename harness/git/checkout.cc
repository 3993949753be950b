#include "git/checkout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "common/dir_lock.h"
#include "common/error.h"
#include "common/file.h"
#include "common/interrupt.h"
#include "common/unique_fd.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

GitTreePtr lookup_tree(const Repository& repo, std::string_view treeish) {
  std::string spec(treeish);
  git_object* raw = nullptr;
  int result = git_revparse_single(&raw, repo.get(), spec.c_str());
  GitObjectPtr object(raw);
  if (result == GIT_ENOTFOUND) {
    fail("unknown tree or commit '{}' in {}; give a commit or tree id that exists there", spec,
         repo.path().string());
  }
  check_git(result, fmt::format("cannot resolve '{}'", spec), "give a commit or tree id");
  git_object* peeled = nullptr;
  check_git(git_object_peel(&peeled, object.get(), GIT_OBJECT_TREE),
            fmt::format("'{}' does not name a tree", spec), "give a commit or tree id");
  return GitTreePtr(reinterpret_cast<git_tree*>(peeled));
}

class Materialiser {
 public:
  Materialiser(const Repository& repo, fs::path dir) : repo_(repo), dir_(std::move(dir)) {}

  void write_all(git_tree* tree) {
    full_ = true;
    stats.full = true;
    int result = git_tree_walk(tree, GIT_TREEWALK_PRE, &Materialiser::visit, this);
    if (error_) std::rethrow_exception(error_);
    check_git(result, "cannot walk the tree", "check the repository (git fsck)");
  }

  void apply_diff(git_tree* old_tree, git_tree* new_tree) {
    GitDiffPtr diff = diff_trees(old_tree, new_tree);
    size_t count = git_diff_num_deltas(diff.get());
    // Deletions first: a file that becomes a directory (or the reverse) must go before the
    // new entry can be written.
    for (size_t i = 0; i < count; ++i) {
      const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
      if (delta->status == GIT_DELTA_DELETED) remove_entry(delta->old_file.path);
    }
    for (size_t i = 0; i < count; ++i) {
      const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
      if (delta->status == GIT_DELTA_DELETED) continue;
      const git_diff_file& before = delta->old_file;
      const git_diff_file& after = delta->new_file;
      bool both_regular = is_regular(before.mode) && is_regular(after.mode);
      if (delta->status == GIT_DELTA_MODIFIED && both_regular &&
          git_oid_equal(&before.id, &after.id)) {
        set_executable(after.path, after.mode == GIT_FILEMODE_BLOB_EXECUTABLE);
      } else {
        write_entry(after.path, after.id, after.mode);
      }
    }
  }

  // Removes what `old_tree` has and `new_tree` does not, wherever an interrupted checkout
  // left it.
  void remove_missing(git_tree* old_tree, git_tree* new_tree) {
    GitDiffPtr diff = diff_trees(old_tree, new_tree);
    for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
      const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
      if (delta->status == GIT_DELTA_DELETED) remove_entry(delta->old_file.path);
    }
  }

  MaterialiseStats stats;

 private:
  GitDiffPtr diff_trees(git_tree* old_tree, git_tree* new_tree) {
    git_diff_options options = GIT_DIFF_OPTIONS_INIT;
    git_diff* raw = nullptr;
    int result = git_diff_tree_to_tree(&raw, repo_.get(), old_tree, new_tree, &options);
    GitDiffPtr diff(raw);
    check_git(result, "cannot compare the old and new trees", "check the repository (git fsck)");
    return diff;
  }

  static bool is_regular(uint32_t mode) {
    return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
  }

  // libgit2 calls this from C, so an exception waits in error_ until the walk has returned.
  static int visit(const char* root, const git_tree_entry* entry, void* payload) {
    auto* self = static_cast<Materialiser*>(payload);
    git_filemode_t mode = git_tree_entry_filemode(entry);
    if (mode == GIT_FILEMODE_TREE) return 0;
    try {
      std::string path = std::string(root) + git_tree_entry_name(entry);
      self->write_entry(path, *git_tree_entry_id(entry), mode);
    } catch (...) {
      self->error_ = std::current_exception();
      return -1;
    }
    return 0;
  }

  // Every directory on the way to `path` must be a real directory: a file or a symlink left
  // where the tree now has a directory is replaced (a symlink would lead outside the tree).
  void make_parents(const fs::path& relative) {
    fs::path current = dir_;
    for (const fs::path& part : relative.parent_path()) {
      current /= part;
      struct stat status;
      if (::lstat(current.c_str(), &status) == 0) {
        if (S_ISDIR(status.st_mode)) continue;
        if (::unlink(current.c_str()) != 0) {
          fail("cannot remove {}: {}", current.string(), errno_text(errno));
        }
      }
      if (::mkdir(current.c_str(), 0777) != 0) {
        fail(
            "cannot create directory {}: {}; check permissions and free space of the build "
            "directory",
            current.string(), errno_text(errno));
      }
    }
  }

  GitBlobPtr blob(const git_oid& id) {
    git_blob* raw = nullptr;
    check_git(git_blob_lookup(&raw, repo_.get(), &id),
              fmt::format("cannot read blob {}", oid_hex(id)), "check the repository (git fsck)");
    return GitBlobPtr(raw);
  }

  // Writes to a temporary name and renames it into place: the old file or symlink is replaced
  // atomically, and never written through (it may be a symlink pointing anywhere).
  void write_entry(const std::string& path, const git_oid& id, uint32_t mode) {
    // A kernel tree is some 80,000 files: Ctrl-C stops between two (the manifest is gone, so
    // the next checkout is a full one).
    throw_if_interrupted();
    fs::path relative(path);
    make_parents(relative);
    fs::path target = dir_ / relative;
    if (mode == GIT_FILEMODE_COMMIT) {  // a submodule: git leaves an empty directory
      if (::mkdir(target.c_str(), 0777) != 0 && errno != EEXIST) {
        fail("cannot create directory {}: {}", target.string(), errno_text(errno));
      }
      return;
    }
    struct stat status;
    if (::lstat(target.c_str(), &status) == 0 && S_ISDIR(status.st_mode)) {
      // Without a manifest nothing is known about the directory: it is most likely left from
      // an older tree, and the tree needs the path.
      if (full_) {
        fs::remove_all(target);
      } else {
        fail(
            "cannot write {}: a directory is in the way (it holds files that are not from the "
            "tree); remove it, and keep build output out of the source directory (O=)",
            target.string());
      }
    }
    fs::path temporary = target;
    temporary += ".kbisect-new";
    GitBlobPtr content = blob(id);
    const char* data = static_cast<const char*>(git_blob_rawcontent(content.get()));
    size_t size = static_cast<size_t>(git_blob_rawsize(content.get()));
    ::unlink(temporary.c_str());
    if (mode == GIT_FILEMODE_LINK) {
      std::string link_target(data, size);
      if (::symlink(link_target.c_str(), temporary.c_str()) != 0) {
        fail("cannot create symlink {}: {}", target.string(), errno_text(errno));
      }
    } else {
      write_file(temporary, data, size, mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
    }
    if (::rename(temporary.c_str(), target.c_str()) != 0) {
      fail("cannot move {} into place: {}", target.string(), errno_text(errno));
    }
    ++stats.written;
  }

  // Permissions as git gives them: 0666 or 0777 less the umask.
  static void write_file(const fs::path& path, const char* data, size_t size, mode_t mode) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode));
    if (!fd) {
      fail("cannot create {}: {}; check permissions and free space of the build directory",
           path.string(), errno_text(errno));
    }
    while (size > 0) {
      ssize_t written = ::write(fd.get(), data, size);
      if (written < 0 && errno == EINTR) continue;
      if (written < 0) {
        fail("cannot write {}: {}; check free space of the build directory", path.string(),
             errno_text(errno));
      }
      data += written;
      size -= static_cast<size_t>(written);
    }
  }

  // Like git: executable means an x bit wherever there is an r bit.
  void set_executable(const std::string& path, bool executable) {
    fs::path target = dir_ / path;
    struct stat status;
    if (::stat(target.c_str(), &status) != 0) {
      fail("cannot read the mode of {}: {}", target.string(), errno_text(errno));
    }
    mode_t mode = status.st_mode & 07777;
    mode = executable ? mode | ((mode & 0444) >> 2) : mode & ~0111;
    if (::chmod(target.c_str(), mode) != 0) {
      fail("cannot change the mode of {}: {}", target.string(), errno_text(errno));
    }
    ++stats.mode_changes;
  }

  // Removes a file or symlink, then every directory above it that became empty (a directory
  // that still holds files not from the tree stays).
  void remove_entry(const std::string& path) {
    fs::path target = dir_ / path;
    if (::unlink(target.c_str()) == 0) {
      ++stats.removed;
    } else if (errno == EISDIR) {
      ::rmdir(target.c_str());                         // a submodule's directory, if empty
    } else if (errno != ENOENT && errno != ENOTDIR) {  // not there, or a parent is a file
      fail("cannot remove {}: {}", target.string(), errno_text(errno));
    }
    for (fs::path parent = fs::path(path).parent_path(); !parent.empty();
         parent = parent.parent_path()) {
      if (::rmdir((dir_ / parent).c_str()) != 0) break;
    }
  }

  const Repository& repo_;
  fs::path dir_;
  bool full_ = false;
  std::exception_ptr error_;
};

// What the manifest says: the tree the directory holds, or, while it changes (and after a
// crash then), "between" the trees whose files may be there. Trees this repository does not
// have (pruned revert commits, a damaged manifest) are left out.
struct ManifestTrees {
  bool settled = false;
  std::vector<GitTreePtr> trees;
};

GitTreePtr tree_named(const Repository& repo, const std::string& hex) {
  git_oid id;
  git_tree* raw = nullptr;
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&id, hex.c_str()) != 0 ||
      git_tree_lookup(&raw, repo.get(), &id) != 0) {
    return nullptr;
  }
  return GitTreePtr(raw);
}

ManifestTrees read_manifest(const Repository& repo, const fs::path& manifest) {
  std::ifstream in(manifest);
  const std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  const bool between = !words.empty() && words.front() == "between";
  ManifestTrees read;
  for (size_t i = between ? 1 : 0; i < words.size(); ++i) {
    if (GitTreePtr tree = tree_named(repo, words[i])) read.trees.push_back(std::move(tree));
  }
  read.settled = !between && words.size() == 1 && read.trees.size() == 1;
  return read;
}

void write_manifest(const fs::path& manifest, const std::vector<const git_oid*>& between,
                    const git_oid& tree_id) {
  std::string text;
  if (!between.empty()) {
    text = "between";
    for (const git_oid* id : between) text += ' ' + oid_hex(*id);
    text += ' ';
  }
  write_file_atomically(manifest, text + oid_hex(tree_id) + '\n');
}

}  // namespace

MaterialiseStats materialise_tree(const Repository& repo, std::string_view treeish,
                                  const fs::path& dir) {
  GitTreePtr tree = lookup_tree(repo, treeish);
  DirLock lock(dir, "wait for it or give each run its own build directory");
  fs::path manifest = dir / kManifestName;
  const ManifestTrees held = read_manifest(repo, manifest);
  const git_oid* tree_id = git_tree_id(tree.get());
  if (held.settled && git_oid_equal(git_tree_id(held.trees[0].get()), tree_id)) return {};
  // Until the directory holds the new tree, it holds files of the old ones and the new one: a
  // crash now leaves that said, for the next checkout to clear them all.
  std::vector<const git_oid*> between;
  for (const GitTreePtr& held_tree : held.trees) between.push_back(git_tree_id(held_tree.get()));
  write_manifest(manifest, between, *tree_id);
  Materialiser materialiser(repo, dir);
  if (held.settled) {
    materialiser.apply_diff(held.trees[0].get(), tree.get());
  } else {
    // Removals first, as in apply_diff: a path may be a directory in one tree, a file in the
    // other.
    for (const GitTreePtr& held_tree : held.trees) {
      materialiser.remove_missing(held_tree.get(), tree.get());
    }
    materialiser.write_all(tree.get());
  }
  write_manifest(manifest, {}, *tree_id);
  return materialiser.stats;
}

}  // namespace kbisect
