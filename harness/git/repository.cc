#include "git/repository.h"

#include <algorithm>
#include <optional>
#include <set>

#include "common/error.h"
#include "common/printable.h"
#include "common/shell_quote.h"

namespace kbisect {

void init_libgit2() {
  static const int initialised = git_libgit2_init();
  if (initialised < 0) fail("cannot initialise libgit2; reinstall libgit2 (make deps)");
}

void check_git(int result, std::string_view what, std::string_view todo) {
  if (result >= 0) return;
  const git_error* error = git_error_last();
  std::string detail =
      error != nullptr && error->message != nullptr ? error->message : "unknown libgit2 error";
  fail("{}: {}; {}", what, detail, todo);
}

std::string oid_hex(const git_oid& oid) {
  char text[GIT_OID_HEXSZ + 1];
  git_oid_tostr(text, sizeof text, &oid);
  return text;
}

git_oid parse_oid(std::string_view hex, std::string_view what) {
  git_oid oid;
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, hex.data(), hex.size()) < 0) {
    fail("{} '{}' is not a full 40-hex git object id; resolve it first", what, hex);
  }
  return oid;
}

// Printable: a subject comes from whoever wrote the commit, and is printed to terminals and
// into comments of logs that git replays.
std::string commit_subject(const git_commit* commit) {
  const char* summary = git_commit_summary(const_cast<git_commit*>(commit));
  return summary != nullptr ? printable_line(summary) : "";
}

GitSignaturePtr kbisect_signature(int64_t time) {
  git_signature* raw = nullptr;
  int result = time == 0 ? git_signature_now(&raw, "kbisect", "kbisect@localhost")
                         : git_signature_new(&raw, "kbisect", "kbisect@localhost", time, 0);
  GitSignaturePtr owned(raw);
  check_git(result, "cannot create a commit signature", "report this as a kbisect bug");
  return owned;
}

std::vector<std::string> conflicted_paths(git_index* index) {
  git_index_conflict_iterator* raw = nullptr;
  check_git(git_index_conflict_iterator_new(&raw, index), "cannot list the conflicts",
            "report this as a kbisect bug");
  Unique<git_index_conflict_iterator, git_index_conflict_iterator_free> iterator(raw);
  std::set<std::string> paths;
  const git_index_entry *ancestor, *ours, *theirs;
  while (git_index_conflict_next(&ancestor, &ours, &theirs, iterator.get()) == 0) {
    for (const git_index_entry* entry : {ancestor, ours, theirs}) {
      if (entry != nullptr) paths.insert(entry->path);
    }
  }
  return {paths.begin(), paths.end()};
}

namespace {

// git's ownership check (safe.directory). libgit2 reports it as GIT_EOWNER, or, as Debian 12's
// 1.5.1 does when no safe.directory is configured at all, as that setting not found.
bool refused_for_its_owner(int result) {
  if (result == GIT_EOWNER) return true;
  const git_error* error = git_error_last();
  return result < 0 && error != nullptr && error->message != nullptr &&
         std::string_view(error->message).find("safe.directory") != std::string_view::npos;
}

// Adds to `found` the ids of the commits and annotated tags whose ids start with the hex
// `prefix`, until it holds two (one is the answer, two are ambiguous): the prefix is lengthened
// by a digit wherever it names more than one object, so only the objects under it are read.
void find_committish(git_odb* odb, const std::string& prefix, std::vector<git_oid>& found) {
  if (found.size() >= 2) return;
  git_oid short_id;
  git_oid id;
  if (git_oid_fromstrn(&short_id, prefix.data(), prefix.size()) < 0) return;
  const int result = git_odb_exists_prefix(&id, odb, &short_id, prefix.size());
  if (result == GIT_ENOTFOUND) return;
  if (result == GIT_EAMBIGUOUS && prefix.size() < GIT_OID_HEXSZ) {
    for (char digit : std::string_view("0123456789abcdef")) {
      find_committish(odb, prefix + digit, found);
    }
    return;
  }
  check_git(result, fmt::format("cannot look up the objects whose ids start with {}", prefix),
            "check the repository (git fsck)");
  size_t size = 0;
  git_object_t type = GIT_OBJECT_INVALID;
  check_git(git_odb_read_header(&size, &type, odb, &id),
            fmt::format("cannot read object {}", oid_hex(id)), "check the repository (git fsck)");
  if (type == GIT_OBJECT_COMMIT || type == GIT_OBJECT_TAG) found.push_back(id);
}

// git log and git bisect read a short id as the one commit (or tag) it names, whatever trees
// or blobs share it; libgit2 refuses it as ambiguous then. The id of that object, if `text` starts
// with such a short id.
std::optional<std::string> unique_committish_prefix(git_repository* repo, const std::string& text) {
  const size_t digits = std::min(text.find_first_not_of("0123456789abcdefABCDEF"), text.size());
  if (digits < GIT_OID_MINPREFIXLEN || digits >= GIT_OID_HEXSZ) return std::nullopt;
  if (digits < text.size() && text[digits] != '~' && text[digits] != '^') return std::nullopt;
  git_odb* raw = nullptr;
  check_git(git_repository_odb(&raw, repo), "cannot open the object database",
            "check the repository (git fsck)");
  Unique<git_odb, git_odb_free> odb(raw);
  std::vector<git_oid> found;
  find_committish(odb.get(), text.substr(0, digits), found);
  if (found.size() != 1) return std::nullopt;
  return oid_hex(found.front()) + text.substr(digits);
}

}  // namespace

Repository Repository::open(const std::filesystem::path& path, std::string_view place) {
  init_libgit2();
  const std::string at = place.empty() ? "" : fmt::format("{}: ", place);
  git_repository* raw = nullptr;
  // NO_SEARCH: the configured path must itself be the repository, not a directory below one.
  int result = git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  GitRepositoryPtr repo(raw);
  if (refused_for_its_owner(result)) {
    fail(
        "{}git repository {} belongs to another user, and git (libgit2 too) opens such a "
        "repository only once safe.directory names it; if you trust it, run as this user: {}",
        at, path.string(),
        shell_command({"git", "config", "--global", "--add", "safe.directory", path.string()}));
  }
  check_git(result, fmt::format("{}cannot open git repository {}", at, path.string()),
            "set kernel.repo in the config to a kernel git checkout");
  return Repository(std::move(repo), path);
}

std::string Repository::resolve(std::string_view spec) const {
  std::string text(spec);
  if (text.empty()) fail("empty revision; give a branch, tag or commit id");
  // git reads `@` alone, and before ~ or ^, as HEAD (gitrevisions(7)); libgit2 does not.
  const bool head_shorthand = text[0] == '@' && (text.size() == 1 || text[1] != '{');
  const std::string parsed = head_shorthand ? "HEAD" + text.substr(1) : text;
  git_object* raw = nullptr;
  int result = git_revparse_single(&raw, repo_.get(), parsed.c_str());
  if (result == GIT_EAMBIGUOUS) {
    if (std::optional<std::string> full = unique_committish_prefix(repo_.get(), parsed)) {
      result = git_revparse_single(&raw, repo_.get(), full->c_str());
    }
  }
  GitObjectPtr object(raw);
  if (result == GIT_ENOTFOUND) {
    fail(
        "unknown revision '{}' in {}; give a branch, tag or commit id that exists there "
        "(git -C {} log --oneline)",
        text, path_.string(), path_.string());
  }
  if (result == GIT_EAMBIGUOUS) {
    fail("revision '{}' is ambiguous in {}; give more digits of the commit id", text,
         path_.string());
  }
  check_git(result, fmt::format("cannot resolve revision '{}' in {}", text, path_.string()),
            "give a branch, tag or commit id");
  git_object* peeled_raw = nullptr;
  result = git_object_peel(&peeled_raw, object.get(), GIT_OBJECT_COMMIT);
  GitObjectPtr peeled(peeled_raw);
  if (result < 0) {
    fail("revision '{}' in {} is a {}, not a commit; give a commit, branch or tag", text,
         path_.string(), git_object_type2string(git_object_type(object.get())));
  }
  return oid_hex(*git_object_id(peeled.get()));
}

GitCommitPtr Repository::lookup_commit(std::string_view id) const {
  git_oid oid = parse_oid(id, "commit id");
  git_commit* raw = nullptr;
  int result = git_commit_lookup(&raw, repo_.get(), &oid);
  GitCommitPtr commit(raw);
  check_git(result, fmt::format("cannot read commit {} in {}", id, path_.string()),
            "check that the repository is complete (git fsck)");
  return commit;
}

bool Repository::is_ancestor(std::string_view ancestor, std::string_view commit) const {
  const git_oid ancestor_id = parse_oid(ancestor, "ancestor commit");
  const git_oid commit_id = parse_oid(commit, "commit");
  int result = git_graph_descendant_of(repo_.get(), &commit_id, &ancestor_id);
  check_git(result, fmt::format("cannot tell whether {} is an ancestor of {}", ancestor, commit),
            "check the repository (git fsck)");
  return result == 1;
}

CommitInfo Repository::commit_info(std::string_view spec) const {
  GitCommitPtr commit = lookup_commit(resolve(spec));
  CommitInfo info;
  info.id = oid_hex(*git_commit_id(commit.get()));
  info.tree_id = oid_hex(*git_commit_tree_id(commit.get()));
  info.subject = commit_subject(commit.get());
  const char* message = git_commit_message(commit.get());
  info.message = message != nullptr ? message : "";
  const git_signature* author = git_commit_author(commit.get());
  info.author_name = author->name;
  info.author_email = author->email;
  info.author_time = author->when.time;
  info.committer_time = git_commit_committer(commit.get())->when.time;
  for (unsigned i = 0; i < git_commit_parentcount(commit.get()); ++i) {
    info.parents.push_back(oid_hex(*git_commit_parent_id(commit.get(), i)));
  }
  return info;
}

}  // namespace kbisect
