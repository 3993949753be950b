#include "git/repo_builder.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "common/error.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;

GitIndexPtr new_index() {
  git_index* raw = nullptr;
  check_git(git_index_new(&raw), "cannot create an in-memory index", "check free memory");
  return GitIndexPtr(raw);
}

void add_entry(git_index* index, const std::string& path, const git_oid& blob, uint32_t mode) {
  git_index_entry entry{};
  entry.mode = mode;
  entry.id = blob;
  entry.path = path.c_str();
  check_git(git_index_add(index, &entry), fmt::format("cannot add {} to the index", path),
            "check that the path is a valid git path");
}

std::string write_commit(git_repository* repo, git_index* index,
                         const std::vector<GitCommitPtr>& parents, const std::string& message,
                         int64_t time, const std::string& update_ref) {
  git_oid tree_id;
  check_git(git_index_write_tree_to(&tree_id, index, repo), "cannot write the tree",
            "check free disk space and permissions of the repository");
  git_tree* raw_tree = nullptr;
  check_git(git_tree_lookup(&raw_tree, repo, &tree_id), "cannot read back the new tree",
            "check the repository (git fsck)");
  GitTreePtr tree(raw_tree);
  GitSignaturePtr who = kbisect_signature(time);
  std::vector<const git_commit*> parent_pointers;
  for (const GitCommitPtr& parent : parents) parent_pointers.push_back(parent.get());
  git_oid commit_id;
  check_git(git_commit_create(&commit_id, repo, update_ref.empty() ? nullptr : update_ref.c_str(),
                              who.get(), who.get(), nullptr, message.c_str(), tree.get(),
                              parent_pointers.size(), parent_pointers.data()),
            "cannot create the commit", "check free disk space and permissions of the repository");
  return oid_hex(commit_id);
}

struct FileToAdd {
  std::string path;  // relative, with '/'
  uint32_t mode;
  git_oid blob;
};

// Collects every file below dir, sorted by path (the order git's index wants).
std::vector<FileToAdd> list_files(const fs::path& dir) {
  std::vector<FileToAdd> files;
  std::error_code error;
  fs::recursive_directory_iterator it(dir, error), end;
  if (error)
    fail("cannot read directory {}: {}; give a directory of files", dir.string(), error.message());
  for (; it != end; it.increment(error)) {
    if (error) fail("cannot read below {}: {}", dir.string(), error.message());
    if (it->path().filename() == ".git") {
      if (it->is_directory(error)) it.disable_recursion_pending();
      continue;
    }
    fs::file_status status = it->symlink_status();
    uint32_t mode;
    if (fs::is_symlink(status)) {
      mode = GIT_FILEMODE_LINK;
    } else if (fs::is_regular_file(status)) {
      bool executable = (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
      mode = executable ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    } else {
      continue;  // directories are implied by their files; devices and fifos have no git form
    }
    files.push_back({it->path().lexically_relative(dir).generic_string(), mode, {}});
  }
  std::sort(files.begin(), files.end(),
            [](const FileToAdd& a, const FileToAdd& b) { return a.path < b.path; });
  return files;
}

void write_blob(git_repository* repo, const fs::path& dir, FileToAdd& file) {
  fs::path full = dir / file.path;
  if (file.mode == GIT_FILEMODE_LINK) {
    std::string target = fs::read_symlink(full).string();
    check_git(git_blob_create_from_buffer(&file.blob, repo, target.data(), target.size()),
              fmt::format("cannot store symlink {}", full.string()),
              "check free disk space in the repository");
    return;
  }
  check_git(git_blob_create_from_disk(&file.blob, repo, full.c_str()),
            fmt::format("cannot store {}", full.string()),
            "check that the file is readable and that the repository's disk has space");
}

// Compressing the blobs is the slow part: spread it over threads, each with its own
// git_repository as libgit2 requires.
void write_blobs(const fs::path& repo_path, const fs::path& dir, std::vector<FileToAdd>& files) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(std::max(2u, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (size_t worker = 0; worker < errors.size(); ++worker) {
    workers.emplace_back([&, worker] {
      try {
        Repository repo = Repository::open(repo_path);
        for (size_t i; (i = next++) < files.size();) write_blob(repo.get(), dir, files[i]);
      } catch (...) {
        errors[worker] = std::current_exception();
        next = files.size();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace

std::string create_repo_from_directory(const fs::path& dir, const fs::path& repo_path,
                                       const std::string& message) {
  init_libgit2();
  if (!fs::is_directory(dir))
    fail("{} is not a directory; give a directory of files", dir.string());
  if (fs::exists(repo_path)) {
    fail("{} already exists; remove it or choose another path for the new repository",
         repo_path.string());
  }
  std::vector<FileToAdd> files = list_files(dir);
  git_repository* raw = nullptr;
  check_git(git_repository_init(&raw, repo_path.c_str(), /*is_bare=*/1),
            fmt::format("cannot create a repository at {}", repo_path.string()),
            "check that the parent directory exists and is writable");
  GitRepositoryPtr repo(raw);
  write_blobs(repo_path, dir, files);
  GitIndexPtr index = new_index();
  for (const FileToAdd& file : files) add_entry(index.get(), file.path, file.blob, file.mode);
  return write_commit(repo.get(), index.get(), {}, message, 0, "HEAD");
}

std::string commit_changes(const Repository& repo, const NewCommit& commit) {
  std::vector<GitCommitPtr> parents;
  for (const std::string& parent : commit.parents) {
    parents.push_back(repo.lookup_commit(repo.resolve(parent)));
  }
  GitIndexPtr index;
  if (parents.empty()) {
    index = new_index();
  } else if (parents.size() == 1) {
    index = new_index();
    git_tree* raw = nullptr;
    check_git(git_commit_tree(&raw, parents[0].get()), "cannot read the parent's tree",
              "check the repository (git fsck)");
    GitTreePtr tree(raw);
    check_git(git_index_read_tree(index.get(), tree.get()), "cannot read the parent's tree",
              "check the repository (git fsck)");
  } else if (parents.size() == 2) {
    git_index* raw = nullptr;
    check_git(git_merge_commits(&raw, repo.get(), parents[0].get(), parents[1].get(), nullptr),
              "cannot merge the parents", "check the repository (git fsck)");
    index.reset(raw);
    if (git_index_has_conflicts(index.get())) {
      fail("merging {} and {} conflicts in: {}; merge parents that do not conflict",
           commit.parents[0], commit.parents[1], fmt::join(conflicted_paths(index.get()), ", "));
    }
  } else {
    fail("commits with {} parents are not supported; give at most two", parents.size());
  }
  for (const auto& [path, content] : commit.files) {
    if (!content) {
      check_git(git_index_remove(index.get(), path.c_str(), 0),
                fmt::format("cannot remove {}", path), "remove only files that exist");
      continue;
    }
    git_oid blob;
    check_git(git_blob_create_from_buffer(&blob, repo.get(), content->data(), content->size()),
              fmt::format("cannot store {}", path), "check free disk space in the repository");
    add_entry(index.get(), path, blob, GIT_FILEMODE_BLOB);
  }
  return write_commit(repo.get(), index.get(), parents, commit.message, commit.time,
                      commit.update_ref);
}

}  // namespace kbisect
