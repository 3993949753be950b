#!/bin/sh
# TEST-ONLY stand-in for kdio, used by tests/vm until the real static kdio binary exists.
# It proves the guest plumbing (job files in, mkfs, mount, framed JSON out) with busybox dd;
# its numbers are not measurements. Usage as kdio: --output-format=json --output=FILE JOBFILE...
output=
for arg in "$@"; do
  case "$arg" in
    --output=*) output=${arg#--output=} ;;
    --output-format=*) ;;
    *) [ -r "$arg" ] || { echo "standin-kdio: cannot read job file $arg" >&2; exit 1; } ;;
  esac
done
[ -n "$output" ] || { echo "standin-kdio: --output=FILE is required" >&2; exit 1; }
dd if=/dev/zero of=standin.dat bs=4096 count=2048 oflag=direct 2>/dev/null || exit 2
dd if=standin.dat of=/dev/null bs=4096 iflag=direct 2>/dev/null || exit 3
bytes=$(stat -c %s standin.dat)
printf '{"kdio-version":"standin","jobs":[{"jobname":"standin-dd","read":{"io_bytes":%s},"write":{"io_bytes":%s}}]}\n' \
  "$bytes" "$bytes" >"$output"
