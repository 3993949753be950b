#!/bin/bash
# Integration test of scripts/demo-history/generate.sh --small: generates the small demo
# history and checks its shape, its metadata, the planted regression, determinism (against
# REFERENCE, a history another run generated, or a second generation), the cache path, and that
# `git bisect run` with an oracle (regression present? builds?) lands on the planted commit.
# usage: check_history.sh GENERATE_SH WORK_DIR [REFERENCE]
set -euo pipefail

generate=$1 work=$2 reference=${3:-}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else fail "$what"; fi
}

mkdir -p "$work"
rm -rf "$work"/a "$work"/b "$work"/a.meta.json "$work"/b.meta.json "$work"/foreign

# Bad input is refused before any work is done, and a directory we did not make is never deleted.
if "$generate" --small --bogus "$work/a" 2>/dev/null; then fail "an unknown option is refused"; fi
mkdir -p "$work/foreign" && echo precious >"$work/foreign/file"
if msg=$("$generate" --small "$work/foreign" 2>&1); then
  fail "generating into a foreign non-empty directory must fail"
else
  check "a foreign directory is refused with a clear message" grep -q "was not made by this generator" <<<"$msg"
fi
check "the foreign directory is left alone" test -f "$work/foreign/file"
rm -rf "$work/foreign"

"$generate" --small "$work/a"
if [[ -z $reference ]]; then
  reference=$work/b
  "$generate" --small "$reference"
fi

repo=$work/a
meta=$work/a.meta.json
g() { git -C "$repo" "$@"; }
value() { sed -n "s/^  \"$1\": \"\\(.*\\)\",\\{0,1\\}\$/\\1/p" "$meta"; }
list() { sed -n "s/^  \"$1\": \\[\\(.*\\)\\],\\{0,1\\}\$/\\1/p" "$meta" | tr -d '",'; }

if command -v jq >/dev/null; then
  check "the metadata is valid JSON" jq -e . "$meta" >/dev/null
fi
good=$(value good)
bad=$(value bad)
planted=$(value planted)
merge=$(value merge)
read -r -a non_building <<<"$(list non_building)"
read -r -a doc_only <<<"$(list doc_only)"
commits=$(sed -n 's/^  "commits": \([0-9]*\)$/\1/p' "$meta")
for key in good bad planted merge; do
  [[ $(value $key) =~ ^[0-9a-f]{40}$ ]] || fail "meta key $key is a commit id"
done

# History shape.
check "HEAD is the tip named in the metadata" test "$(g rev-parse HEAD)" = "$bad"
check "the working tree is clean" test -z "$(g status --porcelain)"
check "the first commit is the base and has no parent" test "$(g rev-list --max-parents=0 HEAD)" = "$good"
check "the metadata's commit count matches" test "$(g rev-list --count "$good..$bad")" = "$commits"
check "at least 8 commits after the base" test "$commits" -ge 8
check "exactly one merge, the one in the metadata" test "$(g rev-list --merges "$good..$bad")" = "$merge"
check "the merge is a --no-ff merge of a topic branch" \
  grep -q "^Merge branch 'xfs-fixes'$" <<<"$(g log -1 --format=%s "$merge")"
check "the topic branch has at least two commits" test "$(g rev-list --count "$merge^1..$merge^2")" -ge 2
bad_subjects=$(g log --format=%s "$good..$bad" |
  grep -v -E "^(ext4|xfs|block|blk-mq|blk-cgroup|elevator|nvme|nvme-pci|mm/[a-z_]+|Documentation: [a-z0-9]+): |^Merge branch '" || true)
check "every subject has a kernel-style prefix" test -z "$bad_subjects"

# The planted regression: one commit, fs/ext4/file.c, inode_lock_shared -> inode_lock.
dio_read() { g show "$1:fs/ext4/file.c" | sed -n '/^static ssize_t ext4_dio_read_iter(/,/^}/p'; }
check "the planted commit touches only fs/ext4/file.c" \
  test "$(g diff-tree --no-commit-id --name-only -r "$planted")" = fs/ext4/file.c
planted_diff=$(g diff-tree -p "$planted")
check "the planted commit takes inode_lock() instead of inode_lock_shared()" \
  grep -q -x '+		inode_lock(inode);' <<<"$planted_diff"
check "the planted commit also changes the unlock" grep -q -x -e '-	inode_unlock_shared(inode);' <<<"$planted_diff"
check "the planted commit also changes the IOCB_NOWAIT trylock" \
  grep -q -x '+		if (!inode_trylock(inode))' <<<"$planted_diff"
check "the base reads with inode_lock_shared()" grep -q 'inode_lock_shared(inode);' <<<"$(dio_read "$good")"
check "the tip still has the exclusive lock" grep -q -x '[[:space:]]*inode_lock(inode);' <<<"$(dio_read "$bad")"
check "the tip has no shared lock in ext4_dio_read_iter()" \
  test -z "$(grep 'inode_lock_shared\|inode_unlock_shared' <<<"$(dio_read "$bad")")"
check "the planted commit is not next to the base" test "$(g rev-parse "$planted^")" != "$good"
check "the planted commit is not the tip or its parent" \
  test "$planted" != "$bad" -a "$(g rev-parse "$bad^")" != "$planted"
check "the planted commit lies between base and tip" g merge-base --is-ancestor "$planted" "$bad"

# Documentation-only commits touch nothing else.
check "at least one documentation-only commit" test "${#doc_only[@]}" -ge 1
for c in "${doc_only[@]}"; do
  others=$(g diff-tree --no-commit-id --name-only -r "$c" | grep -v '^Documentation/' || true)
  check "doc-only commit ${c:0:12} touches only Documentation/" test -z "$others"
  check "doc-only commit ${c:0:12} touches something" test -n "$(g diff-tree --no-commit-id -r "$c")"
done

# The non-building commits: the first one introduces an unknown identifier that the tip lacks.
check "at least one non-building commit" test "${#non_building[@]}" -ge 1
for c in "${non_building[@]}"; do
  check "non-building commit ${c:0:12} uses the typo'd field npsss" \
    test -n "$(g grep -n 'ctrl->npsss' "$c" -- drivers/nvme/host/core.c)"
  check "non-building commit ${c:0:12} is not next to the planted one" \
    test "$(g rev-parse "$planted^")" != "$c" -a "$(g rev-parse "$c^")" != "$planted"
done
check "the tip builds: no npsss left" test -z "$(g grep -n 'npsss' "$bad" -- drivers/nvme/host/core.c)"
fixes=$(g log --format=%H --grep='^Fixes: ' "$good..$bad")
check "the fix names the broken commit in a Fixes: tag" \
  grep -q "^Fixes: ${non_building[0]:0:12} (\"" <<<"$(g log -1 --format=%B "$fixes")"

# git bisect with an oracle: skip what does not build, bad when the regression is present.
oracle=$work/oracle.sh
cat >"$oracle" <<EOF
#!/bin/bash
case " ${non_building[*]} " in *" \$(git rev-parse HEAD) "*) exit 125 ;; esac
sed -n '/^static ssize_t ext4_dio_read_iter(/,/^}/p' fs/ext4/file.c | grep -q -x '[[:space:]]*inode_lock(inode);' && exit 1
exit 0
EOF
chmod +x "$oracle"
g bisect start "$bad" "$good" >/dev/null
bisect_out=$(g bisect run "$oracle" 2>&1 || true)
g bisect reset -q >/dev/null 2>&1 || g bisect reset
check "git bisect run with an oracle names the planted commit" grep -q "^$planted is the first bad commit" <<<"$bisect_out"
check "the bisection is back at the tip" test "$(g rev-parse HEAD)" = "$bad" -a -z "$(g status --porcelain)"

# Determinism and the cache path.
check "another generation gives the same tip" test "$(git -C "$reference" rev-parse HEAD)" = "$bad"
check "another generation gives the same metadata" \
  diff <(grep -v '"repo"' "$meta") <(grep -v '"repo"' "$reference.meta.json")
rm -rf "$work/b" "$work/b.meta.json"
cached=$("$generate" --small "$repo")
check "a run over an up-to-date history says so" grep -q -x "demo history: up to date ($repo)" <<<"$cached"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all checks passed"
