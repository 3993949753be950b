#!/bin/bash
# Builds the git history that `make demo` bisects: Debian's linux-source-6.1 as the first
# commit, then the patches listed in series.full (or series.small with --small), with a topic
# branch merged back, a commit that does not build and the planted direct-I/O regression.
# What was planted is written only to OUT_DIR.meta.json, outside the repository.
# Same source tarball + same generator files = same commit ids. See README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_tarball=/usr/src/linux-source-6.1.tar.xz
mode=full

usage() {
  echo "usage: $0 [--small] [--source LINUX_SOURCE_TARBALL] OUT_DIR" >&2
  exit 2
}

die() {
  echo "demo history: error: $*" >&2
  exit 1
}

out_dir=
while (($#)); do
  case $1 in
    --small) mode=small ;;
    --source)
      (($# >= 2)) || usage
      source_tarball=$2
      shift
      ;;
    -h | --help) usage ;;
    -*) echo "demo history: unknown option '$1'" >&2 && usage ;;
    *)
      [[ -z $out_dir ]] || usage
      out_dir=$1
      ;;
  esac
  shift
done
[[ -n $out_dir ]] || usage

# Only our own settings: no user or system config, hooks, templates or inherited repository.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES \
  GIT_NAMESPACE GIT_CEILING_DIRECTORIES GIT_TEMPLATE_DIR
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C TZ=UTC
git() { command git -c core.autocrlf=false -c core.safecrlf=false -c core.attributesFile=/dev/null -c gc.auto=0 "$@"; }

series=$here/series.$mode
[[ -f $series ]] || die "missing series file $series"
[[ -r $source_tarball ]] ||
  die "cannot read $source_tarball; install it with 'apt-get install linux-source-6.1' or pass --source"
source_tarball=$(realpath -- "$source_tarball")

out_dir=$(realpath -m -- "$out_dir")
meta=$out_dir.meta.json
marker=.git/kbisect-demo-history

# The version covers everything that decides the commits: this script, the series, the patches,
# the mode and the tarball (by size and mtime, to stay fast).
generator_version() {
  {
    echo "mode $mode"
    stat -L -c 'source %s %Y' -- "$source_tarball"
    cd "$here" && sha256sum generate.sh series.full series.small patches/*.patch
  } | sha256sum | cut -c1-16
}
version=$(generator_version)

# meta_value KEY: the string value of KEY in the meta file (written one key per line below).
meta_value() {
  sed -n "s/^  \"$1\": \"\\(.*\\)\",\\{0,1\\}\$/\\1/p" "$meta" 2>/dev/null | head -n1
}

if [[ -d $out_dir/.git && -f $meta ]] && [[ $(meta_value generator) == "$version" ]] &&
  tip=$(git -C "$out_dir" rev-parse -q --verify HEAD 2>/dev/null) && [[ $tip == "$(meta_value bad)" ]]; then
  echo "demo history: up to date ($out_dir)"
  exit 0
fi

# Never delete something we did not make.
if [[ -e $out_dir ]]; then
  [[ -f $out_dir/$marker ]] || [[ -d $out_dir && -z $(ls -A "$out_dir") ]] ||
    die "$out_dir exists and was not made by this generator; remove it or choose another OUT_DIR"
fi

start=$SECONDS
mkdir -p "$(dirname "$out_dir")"
work=$(mktemp -d "$out_dir.tmp.XXXXXX")
cleanup() { [[ -z ${work:-} ]] || rm -rf "$work"; }
trap cleanup EXIT
cd "$work"

echo "demo history: unpacking $source_tarball"
tar -xf "$source_tarball" --strip-components=1 --no-same-owner
[[ -f Makefile && -f fs/ext4/file.c ]] || die "$source_tarball does not look like a Linux source tree"
kernel_version=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' Makefile | paste -sd.)

git init -q -b master .
echo "$version" >"$marker"

# Every commit gets a fixed identity and a date derived from its position: reproducible ids.
base_epoch=1735725600 # 2025-01-01 10:00 UTC
commit_no=0
committer_name="Demo Maintainer"
committer_email="maintainer@example.org"

# make_commit TREE MSGFILE AUTHOR_NAME AUTHOR_EMAIL PARENT...: sets $made to the new commit id.
# (Not run in a $(...) subshell, so that the commit counter behind the dates advances.)
made=
make_commit() {
  local tree=$1 msgfile=$2 name=$3 email=$4
  shift 4
  local parents=() p
  for p in "$@"; do parents+=(-p "$p"); done
  local date="$((base_epoch + commit_no * 8137)) +0000"
  commit_no=$((commit_no + 1))
  made=$(GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
    GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email GIT_COMMITTER_DATE=$date \
    git commit-tree "$tree" "${parents[@]}" -F "$msgfile")
}

echo "demo history: importing the tree into git (about a minute)"
git add -A -f .
printf 'Linux %s\n\nThe pristine tree of %s.\n' "$kernel_version" "$(basename "$source_tarball")" >.git/demo-msg
make_commit "$(git write-tree)" .git/demo-msg "$committer_name" "$committer_email"
base=$made

function_body() { # function_body COMMIT FUNCTION: prints FUNCTION from fs/ext4/file.c at COMMIT
  git cat-file -p "$1:fs/ext4/file.c" | sed -n "/^static ssize_t $2(/,/^}/p"
}
function_body "$base" ext4_dio_read_iter | grep -q 'inode_lock_shared(inode);' ||
  die "the base tree's ext4_dio_read_iter() has no inode_lock_shared(); is $source_tarball linux 6.1?"

# The index of the real working tree stays at the base commit; commits are made with private
# index files so that no step walks the 80k files of the working tree.
cp .git/index .git/index.main
declare -A tip_of=([master]=$base) broken_on=([master]=0) index_of=([master]=.git/index.main)
branch=master
planted='' merge_commit='' fixes_target='' planted_subject=''
non_building=() doc_only=() topic_subjects=()

# pick PATCH [ROLE]: applies PATCH on the current branch and commits it with its own message.
pick() {
  local patch=$here/patches/$1 role=${2:-}
  [[ -f $patch ]] || die "$series: no such patch $1"
  [[ $role =~ ^(|doc|breaks|fixes|planted)$ ]] || die "$series: unknown role '$role' for $1"
  local index=${index_of[$branch]}
  git mailinfo -k .git/demo-body .git/demo-diff <"$patch" >.git/demo-info ||
    die "cannot parse the mail header of $patch"
  local subject author email
  subject=$(sed -n 's/^Subject: //p' .git/demo-info)
  author=$(sed -n 's/^Author: //p' .git/demo-info)
  email=$(sed -n 's/^Email: //p' .git/demo-info)
  [[ -n $subject && -n $author && -n $email ]] || die "$patch lacks a Subject or a From header"

  local paths path
  paths=$(git apply --numstat .git/demo-diff | cut -f3)
  [[ -n $paths ]] || die "$patch contains no diff"
  for path in $paths; do
    if [[ $role == doc ]]; then
      [[ $path == Documentation/* ]] || die "$patch is marked doc but touches $path"
    else
      # Only .c files: a header change would rebuild half the kernel at every bisection step.
      [[ $path == *.c && $path != Documentation/* ]] ||
        die "$patch touches $path; code patches may only touch .c files (or mark it doc)"
    fi
  done
  GIT_INDEX_FILE=$index git apply --cached .git/demo-diff ||
    die "$patch does not apply to linux $kernel_version from $source_tarball (branch $branch)"

  local body
  body=$(<.git/demo-body)
  if [[ $role == fixes ]]; then
    [[ -n $fixes_target ]] || die "$patch is marked fixes but no earlier patch is marked breaks"
    [[ $body == *@FIXES@* ]] || die "$patch is marked fixes but has no 'Fixes: @FIXES@' line"
    body=${body//@FIXES@/$fixes_target}
  fi
  [[ $body != *@FIXES@* ]] || die "$patch has a 'Fixes: @FIXES@' line but is not marked fixes"
  printf '%s\n\n%s\n' "$subject" "$body" >.git/demo-msg

  local tree commit
  tree=$(GIT_INDEX_FILE=$index git write-tree)
  make_commit "$tree" .git/demo-msg "$author" "$email" "${tip_of[$branch]}"
  commit=$made
  tip_of[$branch]=$commit

  case $role in
    breaks)
      broken_on[$branch]=1
      fixes_target="$(git rev-parse --short=12 "$commit") (\"$subject\")"
      ;;
    fixes) broken_on[$branch]=0 ;;
    planted)
      [[ -z $planted ]] || die "$series marks more than one patch planted"
      planted=$commit
      planted_subject=$subject
      function_body "$commit" ext4_dio_read_iter | grep -q -x '[[:space:]]*inode_lock(inode);' ||
        die "$patch is marked planted but ext4_dio_read_iter() does not take inode_lock() after it"
      ;;
    doc) doc_only+=("$commit") ;;
  esac
  ((broken_on[$branch] == 0)) || non_building+=("$commit")
  [[ $branch == master ]] || topic_subjects+=("$subject")
}

# branch NAME: later picks go on topic branch NAME, forked from the current mainline tip.
start_branch() {
  [[ $branch == master ]] || die "$series: branch $1 inside branch $branch"
  branch=$1
  tip_of[$branch]=${tip_of[master]}
  broken_on[$branch]=${broken_on[master]}
  index_of[$branch]=.git/index.$1
  cp .git/index.main "${index_of[$branch]}"
  topic_subjects=()
}

merge_branch() {
  local topic=$1
  [[ $branch == master ]] || die "$series: merge $topic before 'mainline'"
  [[ -n ${tip_of[$topic]:-} ]] || die "$series: merge of unknown branch $topic"
  local tree
  tree=$(git merge-tree --write-tree "${tip_of[master]}" "${tip_of[$topic]}" | head -n1) ||
    die "$series: branch $topic does not merge cleanly"
  {
    printf "Merge branch '%s'\n\nPull %s from the topic branch:\n\n" "$topic" "$topic"
    printf ' - %s\n' "${topic_subjects[@]}"
  } >.git/demo-msg
  make_commit "$tree" .git/demo-msg "$committer_name" "$committer_email" \
    "${tip_of[master]}" "${tip_of[$topic]}"
  merge_commit=$made
  tip_of[master]=$merge_commit
  GIT_INDEX_FILE=.git/index.main git read-tree "$tree"
  ((broken_on[master] == 0 && broken_on[$topic] == 0)) || {
    broken_on[master]=1
    non_building+=("$merge_commit")
  }
  rm -f "${index_of[$topic]}"
}

echo "demo history: applying $(grep -c '^pick' "$series") patches ($mode)"
line_no=0
while read -r verb arg role extra || [[ -n $verb ]]; do
  line_no=$((line_no + 1))
  [[ -z $verb || $verb == \#* ]] && continue
  [[ -z ${extra:-} ]] || die "$series:$line_no: too many words"
  case $verb in
    pick) pick "$arg" "${role:-}" ;;
    branch) start_branch "$arg" ;;
    mainline) branch=master ;;
    merge) merge_branch "$arg" ;;
    *) die "$series:$line_no: unknown command '$verb'" ;;
  esac
done <"$series"

[[ $branch == master ]] || die "$series ends inside branch $branch"
[[ -n $planted ]] || die "$series marks no patch planted"
[[ -n $merge_commit ]] || die "$series has no merge"
((${#non_building[@]} > 0)) || die "$series has no commit marked breaks"
((broken_on[master] == 0)) || die "$series: the tip does not build (a breaks without fixes)"
tip=${tip_of[master]}
function_body "$tip" ext4_dio_read_iter | grep -q -x '[[:space:]]*inode_lock(inode);' ||
  die "the regression is no longer present at the tip"

# Bring the working tree from the base to the tip: only the touched files are rewritten.
git update-ref refs/heads/master "$tip"
git read-tree -m -u "$base" "$tip"
rm -f .git/index.main .git/demo-*
[[ -z $(git status --porcelain) ]] || die "the working tree does not match the tip after checkout"
commits=$(git rev-list --count "$base..$tip")

if [[ -e $out_dir ]]; then rm -rf "$out_dir"; fi
rm -f "$meta"
mv "$work" "$out_dir"
work=

json_list() {
  local sep='' item
  printf '['
  for item in "$@"; do printf '%s"%s"' "$sep" "$item" && sep=', '; done
  printf ']'
}
json_string() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
{
  printf '{\n'
  printf '  "generator": "%s",\n' "$version"
  printf '  "mode": "%s",\n' "$mode"
  printf '  "source": %s,\n' "$(json_string "$source_tarball")"
  printf '  "kernel_version": "%s",\n' "$kernel_version"
  printf '  "repo": %s,\n' "$(json_string "$out_dir")"
  printf '  "good": "%s",\n' "$base"
  printf '  "bad": "%s",\n' "$tip"
  printf '  "planted": "%s",\n' "$planted"
  printf '  "planted_subject": %s,\n' "$(json_string "$planted_subject")"
  printf '  "merge": "%s",\n' "$merge_commit"
  printf '  "non_building": %s,\n' "$(json_list "${non_building[@]}")"
  printf '  "doc_only": %s,\n' "$(json_list "${doc_only[@]}")"
  printf '  "commits": %d\n' "$commits"
  printf '}\n'
} >"$meta.tmp"
mv "$meta.tmp" "$meta"

echo "demo history: $out_dir ($mode, linux $kernel_version) in $((SECONDS - start)) s"
echo "  good (base)   $base"
echo "  bad (tip)     $tip"
echo "  commits       $commits after the base, merge ${merge_commit:0:12}"
echo "  non-building  ${#non_building[@]}, documentation-only ${#doc_only[@]}"
echo "  planted       ${planted:0:12} $planted_subject"
echo "  metadata      $meta"
