#!/usr/bin/env bash
# e2e: the whole pipeline — libgit2, kernel builds, QEMU boots, kdio in the guest, SQLite, the
# statistics — on the small generated history (scripts/demo-history --small). The culprit must
# be the planted commit, plain `git bisect run` with `kbisect run --git-bisect-run` must end at
# it too (counting stored samples of the same accelerator, guest image and QEMU only), and no VM
# may be left behind.
# It shares the history, the build cache and the kernel work tree with tests/kernel
# (SHARED_DIR), so its builds are incremental.
#   bisect_small_history.sh KBISECT SOURCE_DIR WORK_DIR SHARED_DIR
set -euo pipefail
kbisect=$1 source_dir=$2 work=$3 shared=$4
mkdir -p "$work" "$shared"

source "$source_dir/tests/lib/kernel_history.sh"
"$source_dir/scripts/demo-history/generate.sh" --small "$shared/history"
meta="$shared/history.meta.json"
good=$(meta_value "$meta" good) bad=$(meta_value "$meta" bad)
planted=$(meta_value "$meta" planted)
[[ -n "$good" && -n "$bad" && -n "$planted" ]] || { echo "FAIL: cannot read $meta"; exit 1; }

{
  kernel_scenario e2e-small "$source_dir" "$shared" 64m 3
  # 5 samples a side are the fewest with which Mann-Whitney can reach alpha 0.01.
  echo "bisect: {min_samples: 3, max_samples: 5, alpha: 0.01, min_effect: 10%}"
} >"$work/e2e.yaml"

"$kbisect" --db "$work/e2e.db" --json bisect -c "$work/e2e.yaml" --good "$good" --bad "$bad" \
  --fresh >"$work/events.jsonl"
result=$(tail -n 1 "$work/events.jsonl")
echo "result: $result"
# The stored answer, as a person reads it.
"$kbisect" --db "$work/e2e.db" bisect -c "$work/e2e.yaml" --good "$good" --bad "$bad" || true
culprit=$(sed -n 's/.*"culprit":"\([0-9a-f]*\)".*/\1/p' <<<"$result")

status=0
if [[ "$culprit" != "$planted" ]]; then
  echo "FAIL: culprit '${culprit:-none}' is not the planted commit $planted"
  status=1
fi
# The verdict on the culprit belongs to a step that names it, also when its image is that of a
# commit measured before (a documentation commit on top of it builds the same one).
culprit_steps=$("$kbisect" --db "$work/e2e.db" query --format csv \
  "select count(*) from verdicts v join steps st on st.session_id = v.session_id and \
   st.step = v.step where st.commit_id = '${culprit:-none}' and v.verdict = 'bad'" |
  tr -d '\r' | tail -n 1)
if [[ "$culprit_steps" != [1-9]* ]]; then
  echo "FAIL: no step of the session names the culprit with its verdict (kbisect query steps)"
  status=1
fi
# Plain git bisect driving `kbisect run --git-bisect-run`: each commit judged against the
# endpoints' samples stored above (exit 0 or 1), 125 for a commit that does not build; the
# samples stored for its kernel image count towards its --samples 3.
history() { git -C "$shared/history" "$@"; }
history bisect reset >/dev/null 2>&1 || true
history bisect start --no-checkout "$bad" "$good" >/dev/null
history bisect run "$kbisect" --db "$work/e2e.db" run -c "$work/e2e.yaml" --commit BISECT_HEAD \
  --samples 3 --git-bisect-run >"$work/git-bisect-run.out" 2>&1 || true
history bisect reset >/dev/null 2>&1
if ! grep -q "^$planted is the first bad commit" "$work/git-bisect-run.out"; then
  echo "FAIL: git bisect run with kbisect run --git-bisect-run did not end at $planted:"
  tail -n 20 "$work/git-bisect-run.out"
  status=1
fi
# A drop in read.iops is said to be worse, as the bisection's verdicts say it.
if ! grep -q "is bad (median [0-9.]*% worse than good's, p vs good" "$work/git-bisect-run.out"; then
  echo "FAIL: no bad commit said to be worse than good:"
  grep "^kbisect: " "$work/git-bisect-run.out" | tail -n 5
  status=1
fi
# Its first commit is the bisection's first (both choose as git does): that kernel's samples
# are stored, and it is judged on them without a boot.
if ! grep -q "samples stored for this kernel image" "$work/git-bisect-run.out"; then
  echo "FAIL: git bisect run measured again every kernel the bisection had measured"
  status=1
fi
# Samples of another accelerator do not count: with the samples of a commit's kernel image
# marked as KVM's, `run --git-bisect-run` boots it (under TCG) instead of judging it on them.
measured=$(sqlite3 "$work/e2e.db" "SELECT commit_id FROM samples WHERE commit_id NOT IN \
  ('$good', '$bad') GROUP BY commit_id ORDER BY min(id) LIMIT 1")
cp "$work/e2e.db" "$work/kvm.db"
sqlite3 "$work/kvm.db" "UPDATE samples SET accel = 'kvm' WHERE build_id IN (SELECT id FROM \
  builds WHERE image_sha256 = (SELECT image_sha256 FROM builds WHERE commit_id = '$measured' \
  AND image_sha256 IS NOT NULL))"
history bisect start --no-checkout "$bad" "$good" >/dev/null
"$kbisect" --db "$work/kvm.db" run -c "$work/e2e.yaml" --commit "$measured" --samples 1 \
  --git-bisect-run >"$work/kvm.out" 2>&1 || true
history bisect reset >/dev/null 2>&1
booted=$(sqlite3 "$work/kvm.db" "SELECT count(*) FROM samples WHERE commit_id = '$measured' \
  AND accel = 'tcg'")
if grep -q "samples stored for this kernel image" "$work/kvm.out" || [[ "$booted" -lt 1 || "$booted" -gt 10 ]]; then
  echo "FAIL: run --git-bisect-run counted samples of another accelerator ($booted new):"
  cat "$work/kvm.out"
  status=1
fi
# Nor do samples taken with another guest image or QEMU (a kdio rebuilt since, an upgrade): with
# the runs of that kernel image marked as another environment's, it is booted again.
cp "$work/e2e.db" "$work/environment.db"
sqlite3 "$work/environment.db" "UPDATE runs SET environment = 'initramfs-0-0; QEMU 0.0' WHERE id IN \
  (SELECT run_id FROM samples WHERE build_id IN (SELECT id FROM builds WHERE image_sha256 = \
  (SELECT image_sha256 FROM builds WHERE commit_id = '$measured' AND image_sha256 IS NOT NULL)))"
history bisect start --no-checkout "$bad" "$good" >/dev/null
"$kbisect" --db "$work/environment.db" run -c "$work/e2e.yaml" --commit "$measured" --samples 1 \
  --git-bisect-run >"$work/environment.out" 2>&1 || true
history bisect reset >/dev/null 2>&1
booted=$(sqlite3 "$work/environment.db" "SELECT count(*) FROM samples s JOIN runs r ON r.id = \
  s.run_id WHERE s.commit_id = '$measured' AND r.environment LIKE 'initramfs-%; QEMU emulator%'")
if grep -q "samples stored for this kernel image" "$work/environment.out" || [[ "$booted" -lt 1 || "$booted" -gt 10 ]]; then
  echo "FAIL: run --git-bisect-run counted samples of another guest image or QEMU ($booted new):"
  cat "$work/environment.out"
  status=1
fi
if pgrep -f 'qemu-system-x86_64.*kbisect' >/dev/null; then
  echo "FAIL: a QEMU process was left behind:"
  pgrep -af 'qemu-system-x86_64.*kbisect'
  status=1
fi
[[ $status -eq 0 ]] && echo "PASS: culprit $culprit is the planted commit, git bisect run agrees; no VM left"
exit $status
