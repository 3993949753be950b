#!/usr/bin/env bash
# `kbisect run` with `runner: libvirt` on qemu:///system, on the test kernel's build (a cache
# hit of tests/kernel/run_real_kernel.sh): a sample stored with the host that ran it, and
# Ctrl-C in the middle of a workload ends kbisect with 130 and leaves no domain and no QEMU.
#   run_libvirt.sh KBISECT SOURCE_DIR TEST_KERNEL_DIR OUT_DIR
set -euo pipefail
kbisect=$1 source_dir=$2 shared=$3 out=$4
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$out"
source "$source_dir/tests/lib/kernel_history.sh"
base=$(meta_value "$shared/history.meta.json" good)
[[ -n "$base" ]] || fail "cannot read $shared/history.meta.json"

kbisect_domains() { virsh -c qemu:///system list --all --name | grep '^kbisect-' || true; }
query() { "$kbisect" --db "$db" query --format csv "$1" | tr -d '\r' | tail -n 1; }
# scenario RUNTIME: the test kernel's scenario, booted through libvirt.
scenario() {
  kernel_scenario libvirt-cli "$source_dir" "$shared" 64m "$1" |
    sed 's|^vm: {runner: qemu,|vm: {runner: libvirt, uri: "qemu:///system",|'
}

db=$out/libvirt.db
rm -f "$db" "$db-wal" "$db-shm"
scenario 3 >"$out/libvirt.yaml"
grep -q "runner: libvirt" "$out/libvirt.yaml" || fail "the scenario does not use libvirt"
"$kbisect" --db "$db" run -c "$out/libvirt.yaml" --commit "$base" --samples 1 | tee "$out/run.out"
grep -q "sample 1/1: ok read.iops = " "$out/run.out" || fail "no ok sample"
[[ $(query "select count(*) as n from samples where commit_id = '$base'") == 1 ]] ||
  fail "the sample is not stored"
[[ $(query "select host from samples") == "$(hostname)" ]] || fail "samples.host: $(query "select host from samples")"
[[ -z $(kbisect_domains) ]] || fail "domains left: $(kbisect_domains)"

# Ctrl-C once the guest runs its (five-minute) workload.
scenario 300 >"$out/long.yaml"
console=$shared/work/runs/${base:0:12}/console-1.log
rm -f "$console"
"$kbisect" --db "$db" run -c "$out/long.yaml" --commit "$base" --samples 1 >"$out/long.out" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -qas "^KBISECT-PROGRESS workload-started" "$console" && break
  sleep 0.5
done
[[ -n $(kbisect_domains) ]] || fail "no domain running: $(cat "$out/long.out")"
sleep 2
kill -INT "$pid"
status=0
wait "$pid" || status=$?
[[ $status -eq 130 ]] || fail "Ctrl-C: exit $status, not 130: $(cat "$out/long.out")"
[[ -z $(kbisect_domains) ]] || fail "Ctrl-C left domains: $(kbisect_domains)"
if pgrep -f "qemu-system-x86_64.*kbisect-$pid-" >/dev/null; then fail "Ctrl-C left a QEMU process"; fi
[[ $(query "select count(*) as n from samples") == 1 ]] || fail "the interrupted run stored a sample"
echo "PASS"
