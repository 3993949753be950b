#!/usr/bin/env bash
# A seed scenario's short variant for real: configs/SEED-*.yaml with kernel.repo and
# build.cache_dir pointed at the test kernel's history and build cache (tests/kernel, whose
# base commit is Debian's pristine linux-source-6.1, so its build is a cache hit), accel tcg,
# booted under QEMU; the command of the scenario prints its table, and numbers in the table
# are checked against kdio's JSON stored in the database. The four seeds share one work tree
# (OUT_DIR/work), so only the first pays for materialising the kernel tree.
#   run_seed.sh KBISECT SOURCE_DIR TEST_KERNEL_DIR OUT_DIR SEED
set -euo pipefail
kbisect=$1 source_dir=$2 kernel_dir=$3 out=$4 seed=$5
source "$source_dir/tests/lib/kernel_history.sh"
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$out"
good=$(meta_value "$kernel_dir/history.meta.json" good)
[[ -n "$good" ]] || fail "cannot read $kernel_dir/history.meta.json"
g=${good:0:12}

shipped=$(ls "$source_dir"/configs/"$seed"-*.yaml)
config=$out/$seed.yaml
# The environment's lines only: where the kernel and the build cache are, and TCG as the
# acceptance asks; relative paths of the repository become absolute.
sed -e "s#^  repo: .*#  repo: $kernel_dir/history#" \
    -e "s#^  cache_dir: .*#  cache_dir: $kernel_dir/cache#" \
    -e "s#^  accel: .*#  accel: tcg#" \
    -e "s#\.\./#$source_dir/#g" "$shipped" >"$config"
grep -q "^  repo: $kernel_dir/history\$" "$config" || fail "no kernel.repo line in $shipped"
grep -q "^  cache_dir: $kernel_dir/cache\$" "$config" || fail "no build.cache_dir line in $shipped"
grep -q "^  accel: tcg\$" "$config" || fail "no vm.accel line in $shipped"

db=$out/$seed.db
rm -f "$db" "$db-wal" "$db-shm"
ks() { "$kbisect" --db "$db" --workdir "$out/work" "$@"; }
# query SQL: the single value the statement selects.
query() { ks query --format csv "$1" | tr -d '\r' | tail -n 1; }
expect() { grep -qF -- "$1" "$out/$seed.out" || fail "the table lacks '$1'"; }

start=$SECONDS
case $seed in
seed000)
  ks compare -c "$config" --a "$g@lock-short" --b "$g@nolock-short" --samples 1 \
    2>"$out/$seed.err" | tee "$out/$seed.out"
  # One sample a side reproduces the report's table; no difference can be significant, and
  # kbisect says so rather than calling the sides the same.
  grep -q "^warning: 1 sample a side cannot show a difference at alpha 0.01 (the smallest p is 1); --samples 5 can" \
    "$out/$seed.err" || fail "no warning of too few samples: $(cat "$out/$seed.err")"
  expect "too few samples"
  expect "= psync direct (reader, group 0) ="
  expect "= libaio direct iodepth=64 (reader, group 1) ="
  expect "= psync buffered (reader, group 2) ="
  expect "=== $g@lock-short ==="
  expect "=== $g@nolock-short ==="
  expect "     slat (usec): min="
  iops=$(query "select json_extract(kdio_json, '\$.jobs[1].write.iops') from samples
                where variant = 'nolock-short'")
  expect "iops=$(printf %.0f "$iops"), "
  ;;
seed001)
  # The history's planted commit takes the inode lock exclusively for direct reads: the
  # inverse of the report's 16c54688592c. The e2e bisection confirms it by building bad with
  # it reverted, so after that test both sides here are build-cache hits.
  bad=$(meta_value "$kernel_dir/history.meta.json" bad)
  planted=$(meta_value "$kernel_dir/history.meta.json" planted)
  b=${bad:0:12} p=${planted:0:12}
  ks revert-check -c "$config" --base "$b" --revert "$p" \
    --variant short,BS=4k --variant short,BS=1m --samples 1 | tee "$out/$seed.out"
  expect "short,BS=4k:"
  expect "short,BS=1m:"
  for side in "$b" "$b -$p"; do
    grep -q "^$side *| READ .* | WRITE " "$out/$seed.out" || fail "no line of '$side'"
  done
  iops=$(query "select json_extract(kdio_json, '\$.jobs[0].read.iops') from samples
                where variant = 'short,BS=1m' and commit_id = '$bad'")
  expect "$(printf '%6.0f' "$iops"), "
  # The report compares the sides per variant and repeats both in its command.
  ks report last >"$out/$seed.report"
  for variant in short,BS=4k short,BS=1m; do
    grep -qx "reverted vs base, variant $variant" "$out/$seed.report" ||
      fail "the report has no comparison of $variant: $(cat "$out/$seed.report")"
  done
  grep -q -- "--variant short,BS=4k --variant short,BS=1m --samples 1$" "$out/$seed.report" ||
    fail "the report's command lacks a variant: $(cat "$out/$seed.report")"
  ;;
seed002)
  ks compare -c "$config" --a "$g@ext4-short" --b "$g@xfs-short" --samples 1 | tee "$out/$seed.out"
  expect "=== $g@ext4-short ==="
  expect "=== $g@xfs-short ==="
  grep -q "^    #   throttled  *unthrottled$" "$out/$seed.out" || fail "no column per job"
  # 4 writes, 3 fsyncs: as in fio, no fsync follows the last write.
  [[ $(grep -c "^    3   fsync time: " "$out/$seed.out") == 2 ]] || fail "not 3 fsyncs a side"
  ! grep -q "^    4   fsync time: " "$out/$seed.out" || fail "an fsync after the last write"
  first=$(query "select json_extract(kdio_json, '\$.jobs[1].sync.lat_log[0].lat_ns')
                 from samples where variant = 'xfs-short'")
  expect "fsync time: $(awk -v ns="$first" 'BEGIN { printf "%.4f", ns / 1e9 }')"
  # cgroup_io_max works in the guest: 3 MiB at 1 MiB/s cannot be synced before 2 s.
  ended=$(query "select json_extract(kdio_json, '\$.jobs[0].sync.lat_log[2].time_ms')
                 from samples where variant = 'ext4-short'")
  (( ended >= 2000 )) || fail "the throttled job ended after $ended ms: io.max did not throttle"
  ;;
seed003)
  ks run -c "$config" --commit "$g" --variant short,THREADS=1 --variant short,THREADS=4 \
    --samples 1 | tee "$out/$seed.out"
  grep -q "^variant  *read  *write$" "$out/$seed.out" || fail "no column per phase"
  ms=$(query "select json_extract(kdio_json, '\$.jobs[1].write.runtime') from samples
              where variant = 'short,THREADS=4'")
  grep -q "^short,THREADS=4 .* $(awk -v ms="$ms" 'BEGIN { printf "%.2f", ms / 1000 }')s$" \
    "$out/$seed.out" || fail "THREADS=4's write time is not the stored one ($ms ms)"
  grep -q "^short,THREADS=1 " "$out/$seed.out" || fail "no line for THREADS=1"
  ;;
*) fail "unknown seed $seed" ;;
esac
# Its own guests only: the VM tests may boot theirs meanwhile.
if pgrep -f "qemu-system-x86_64.*$out/work/" >/dev/null; then fail "a QEMU process was left"; fi
echo "PASS ($seed in $((SECONDS - start)) s)"
