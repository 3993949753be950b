#!/usr/bin/env bash
# `kbisect run` for real, and the kernel image the VM tests boot: Debian's linux-source-6.1 as
# the base of the small generated history (scripts/demo-history --small), built (tinyconfig +
# vmimages/kconfig/{guest,ext4,lean,xfs}.config), booted under QEMU with an emulated NVMe namespace,
# kdio run on ext4 in the guest, the sample found in the database; then a commit that does not
# compile must come out build-failed without a boot, a job file kdio would refuse is reported
# before a build, a workdir another process holds is refused, and a VM that cannot start stops
# a bisection. Leaves OUT/bzImage for the VM tests.
#   run_real_kernel.sh KBISECT SOURCE_DIR OUT_DIR
set -euo pipefail
kbisect=$1 source_dir=$2 out=$3
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

source "$source_dir/tests/lib/kernel_history.sh"
"$source_dir/scripts/demo-history/generate.sh" --small "$out/history"
meta="$out/history.meta.json"
base=$(meta_value "$meta" good) broken=$(meta_first "$meta" non_building)
newest=$(meta_value "$meta" bad)
[[ -n "$base" && -n "$broken" && -n "$newest" ]] || fail "cannot read $meta"

kernel_scenario real-kernel "$source_dir" "$out" 64m 3 >"$out/run.yaml"
db=$out/run.db
rm -f "$db" "$db-wal" "$db-shm"

"$kbisect" --db "$db" run -c "$out/run.yaml" --commit "$base" --samples 1 --timings | tee "$out/run.out"
grep -q "sample 1/1: ok read.iops = " "$out/run.out" || fail "no ok sample"
grep -q "^timings: checkout" "$out/run.out" || fail "no timings"
samples=$("$kbisect" --db "$db" query --format csv \
  "select count(*) as n from samples where commit_id = '$base'" | tr -d '\r' | tail -n 1)
[[ "$samples" == 1 ]] || fail "expected 1 stored sample of $base, found '$samples'"

# The build's cache entry (the directory of its log) holds the image the database names.
build_row() {
  "$kbisect" --db "$db" query --format csv \
    "select $1 as v from builds where commit_id = '$base' and outcome = 'ok'" | tr -d '\r' |
    tail -n 1
}
image=$(build_row image_sha256)
cp "$(dirname "$(build_row log_path)")/bzImage" "$out/bzImage.tmp"
[[ "$(sha256sum <"$out/bzImage.tmp" | cut -d' ' -f1)" == "$image" ]] || fail "cached image differs"
mv "$out/bzImage.tmp" "$out/bzImage"

# --json: every line on stdout is JSON, the result last.
"$kbisect" --json --db "$db" run -c "$out/run.yaml" --commit "$base" --samples 1 >"$out/run.jsonl"
python3 - "$out/run.jsonl" <<'PY' || fail "run --json: $(cat "$out/run.jsonl")"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
result = lines[-1]["variants"][0]
assert result["outcomes"] == ["ok"], result
assert result["metrics"][0]["metric"] == "read.iops", result
PY

set +e
"$kbisect" --db "$db" run -c "$out/run.yaml" --commit "$broken" --samples 1 | tee "$out/broken.out"
status=${PIPESTATUS[0]}
set -e
[[ $status -eq 1 ]] || fail "a commit that does not build must exit 1, got $status"
grep -q "sample 1/1: build-failed (.*error: " "$out/broken.out" ||
  fail "not build-failed with the compiler's error: $(cat "$out/broken.out")"
# The compiler's error is in a file that commit changed: its own, not built again from empty.
if grep -q "built again from an empty one" "$out/broken.out"; then
  fail "a compile error in a file the commit changed was built again from an empty directory"
fi
grep -q "^no sample was measured: nothing to summarize" "$out/broken.out" ||
  fail "an empty summary for a commit that does not build: $(cat "$out/broken.out")"
outcome=$("$kbisect" --db "$db" query --format csv \
  "select outcome from builds where commit_id = '$broken'" | tr -d '\r' | tail -n 1)
[[ "$outcome" == build-failed ]] || fail "builds table says '$outcome'"
if pgrep -f 'qemu-system-x86_64.*kbisect' >/dev/null; then fail "a QEMU process was left"; fi

# A comparison with a side that does not build stops there, aborted: that side would never have
# a sample, and the other is not booted for nothing.
set +e
"$kbisect" --db "$db" compare -c "$out/run.yaml" --a "$broken" --b "$base" --samples 2 \
  >/dev/null 2>"$out/compare-broken.err"
status=$?
set -e
[[ $status -eq 1 ]] || fail "a comparison with a side that does not build must exit 1, got $status"
grep -q "build-failed (.*error: .*); a comparison needs kernels that build and boot" \
  "$out/compare-broken.err" || fail "compare with a broken side: $(cat "$out/compare-broken.err")"
last_session() {
  "$kbisect" --db "$db" query --format csv "select $1 as v from sessions order by id desc limit 1" |
    tr -d '\r' | tail -n 1
}
[[ $(last_session status) == aborted ]] || fail "the comparison's session is $(last_session status)"
booted=$("$kbisect" --db "$db" query --format csv \
  "select count(*) from runs where session_id = (select max(id) from sessions)" | tr -d '\r' |
  tail -n 1)
[[ $booted == 1 ]] || fail "the comparison went on after a side did not build: $booted runs"

# A kernel that panics before its init reports in: boot-failed, with no boot or workload time.
sed 's|^  base_config: tinyconfig|&\n  cmdline_extra: "rdinit=/nonexistent root=/dev/nonexistent"|' \
  "$out/run.yaml" >"$out/panic.yaml"
set +e
"$kbisect" --db "$db" run -c "$out/panic.yaml" --commit "$base" --samples 1 >"$out/panic.out"
status=$?
set -e
[[ $status -eq 1 ]] || fail "a kernel that panics must exit 1, got $status"
grep -q "sample 1/1: boot-failed (.*Kernel panic" "$out/panic.out" || fail "$(cat "$out/panic.out")"
times=$("$kbisect" --db "$db" query --format csv "select coalesce(boot_seconds, 'null') || ' ' ||
  coalesce(workload_seconds, 'null') as t from runs order by id desc limit 1" | tr -d '\r' |
  tail -n 1)
[[ $times == "null null" ]] || fail "a boot that never reached init stored times '$times'"

# A job file kdio would refuse in the guest is reported at its line before anything is built.
printf '[j]\nrw=read\nbsize=4k\nsize=${SIZE}\n' >"$out/misspelt.fio"
sed "s|jobs: \[.*\]|jobs: [$out/misspelt.fio]|" "$out/run.yaml" >"$out/misspelt.yaml"
builds="select count(*) from builds where commit_id = '$newest'"
set +e
"$kbisect" --db "$db" run -c "$out/misspelt.yaml" --commit "$newest" --samples 1 \
  >/dev/null 2>"$out/misspelt.err"
status=$?
set -e
[[ $status -eq 1 ]] || fail "a misspelt job option must exit 1, got $status"
grep -qx "kbisect: error: $out/misspelt.fio:3: unknown option 'bsize'.*" "$out/misspelt.err" ||
  fail "misspelt job option: $(cat "$out/misspelt.err")"
[[ $("$kbisect" --db "$db" query --format csv "$builds" | tr -d '\r' | tail -n 1) == 0 ]] ||
  fail "a misspelt job option: a kernel was built first"

# A workdir that another process holds (here flock(1), around this kbisect) is refused before
# anything is touched: two runs would share its work tree, objects and NVMe image.
workdir=$(sed -n 's/^workdir: //p' "$out/run.yaml")
set +e
flock "$workdir" "$kbisect" --db "$db" run -c "$out/run.yaml" --commit "$base" --samples 1 \
  >/dev/null 2>"$out/busy.err"
status=$?
set -e
[[ $status -eq 1 ]] || fail "a run in a held workdir must exit 1, got $status"
grep -q "^kbisect: error: $workdir is in use by another kbisect process; wait for it" \
  "$out/busy.err" || fail "held workdir: $(cat "$out/busy.err")"

# A VM that cannot start (here: a QEMU that exits at once) stops a bisection with the reason
# and the command that continues it; it is the host's problem, so no commit is skipped.
mkdir -p "$out/fake-qemu"
cat >"$out/fake-qemu/qemu-system-x86_64" <<EOF
#!/bin/sh
[ "\$1" = --version ] && exec $(command -v qemu-system-x86_64) --version
echo "fake qemu: cannot start" >&2
exit 1
EOF
chmod +x "$out/fake-qemu/qemu-system-x86_64"
sed 's/accel: auto/accel: tcg/' "$out/run.yaml" >"$out/no-vm.yaml"  # no KVM probe, no cached answer
rm -f "$out"/no-vm*.db*
# kbisect run stops at the first such run too, instead of booting for every sample.
set +e
PATH="$out/fake-qemu:$PATH" "$kbisect" --db "$out/no-vm-run.db" run -c "$out/no-vm.yaml" \
  --commit "$base" --samples 3 >"$out/no-vm-run.out" 2>&1
status=$?
set -e
[[ $status -eq 1 ]] || fail "a run whose VM cannot start must exit 1, got $status"
grep -q "^kbisect: error: ${base:0:12}: VM did not start: .*fake qemu: cannot start; that is this host" \
  "$out/no-vm-run.out" || fail "run, VM that cannot start: $(cat "$out/no-vm-run.out")"
runs=$("$kbisect" --db "$out/no-vm-run.db" query --format csv "SELECT count(*) AS n FROM runs" |
  tail -n 1 | tr -d '\r')
[[ $runs == 1 ]] || fail "a run whose VM cannot start must stop after one try, stored $runs runs"
set +e
PATH="$out/fake-qemu:$PATH" "$kbisect" --db "$out/no-vm.db" bisect -c "$out/no-vm.yaml" \
  --good "$base" --bad "$(meta_value "$meta" bad)" >"$out/no-vm.out" 2>&1
status=$?
set -e
[[ $status -eq 1 ]] || fail "a bisection whose VM cannot start must exit 1, got $status"
grep -q "^kbisect: error: ${base:0:12}: VM did not start: .*fake qemu: cannot start; that is this host or the VM set-up, not the kernel: fix that first" \
  "$out/no-vm.out" || fail "VM that cannot start: $(cat "$out/no-vm.out")"
grep -q "continue it with .kbisect --db $out/no-vm.db bisect -c $out/no-vm.yaml --resume 1" \
  "$out/no-vm.out" || fail "no resume command: $(cat "$out/no-vm.out")"
echo "PASS"
