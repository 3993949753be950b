#!/usr/bin/env python3
"""kdio against fio 3.x on the same file, alternating, several rounds per case.

Prints per case: IOPS kdio/fio (median of the per-round ratios), CPU time per I/O kdio/fio,
p50 and p99 clat of both, and the mean clat ratio. Targets: IOPS ratio >= 1.00 and CPU per I/O
ratio <= 1.00 everywhere; psync QD1 mean clat within 10% of fio's.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

CASES = [
    ("psync QD1 4k randread", ["--ioengine=psync", "--rw=randread", "--iodepth=1"]),
    ("libaio QD16 4k randread", ["--ioengine=libaio", "--rw=randread", "--iodepth=16"]),
    ("io_uring QD16 4k randread", ["--ioengine=io_uring", "--rw=randread", "--iodepth=16"]),
    ("psync 4k randrw 4 jobs", ["--ioengine=psync", "--rw=randrw", "--numjobs=4",
                                "--group_reporting"]),
]


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_tool(argv):
    before = children_cpu()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cpu = children_cpu() - before
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
    text = proc.stdout
    # fio may print notes before the JSON document.
    data = json.loads(text[text.index("{"):])
    ios = 0
    iops = 0.0
    clat = None
    for job in data["jobs"]:
        for d in ("read", "write"):
            ios += job[d]["total_ios"]
            iops += job[d]["iops"]
        if clat is None:
            clat = job["read"]["clat_ns"]
    return {
        "iops": iops,
        "cpu_per_io_us": cpu / max(ios, 1) * 1e6,
        "p50": clat["percentile"]["50.000000"],
        "p99": clat["percentile"]["99.000000"],
        "mean": clat["mean"],
    }


def prepare(path, size):
    if os.path.exists(path) and os.path.getsize(path) >= size:
        return
    chunk = os.urandom(1 << 20)
    with open(path, "wb") as f:
        for _ in range(size >> 20):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kdio", required=True)
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--dir", required=True, help="directory on a real disk (not tmpfs)")
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--runtime", type=int, default=5, help="seconds per run")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--case", default="", help="run only the cases whose name contains this")
    args = ap.parse_args()

    os.makedirs(args.dir, exist_ok=True)
    path = os.path.join(args.dir, "kdio_vs_fio.dat")
    prepare(path, args.size_mib << 20)
    # One direct pass over the file first, so that whichever tool runs first does not pay for
    # a cold cache below the guest (the virtual disk's host) alone.
    subprocess.run(["dd", f"if={path}", "of=/dev/null", "bs=1M", "iflag=direct"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    common = [f"--filename={path}", f"--size={args.size_mib}m", "--bs=4k", "--direct=1",
              "--time_based", f"--runtime={args.runtime}", "--output-format=json"]

    rows = []
    for name, opts in [c for c in CASES if args.case in c[0]]:
        runs = {"kdio": [], "fio": []}
        for r in range(args.rounds):
            order = ["fio", "kdio"] if r % 2 == 0 else ["kdio", "fio"]
            for tool in order:
                exe = args.kdio if tool == "kdio" else args.fio
                runs[tool].append(run_tool([exe, "--name=bench"] + opts + common))
            print(f"  {name} round {r + 1}: kdio {runs['kdio'][-1]['iops']:.0f} IOPS, "
                  f"fio {runs['fio'][-1]['iops']:.0f} IOPS", file=sys.stderr)
        ratio = lambda key: statistics.median(
            k[key] / f[key] for k, f in zip(runs["kdio"], runs["fio"]))
        med = lambda tool, key: statistics.median(x[key] for x in runs[tool])
        rows.append((name, med("kdio", "iops"), med("fio", "iops"), ratio("iops"),
                     med("kdio", "cpu_per_io_us"), med("fio", "cpu_per_io_us"),
                     ratio("cpu_per_io_us"), med("kdio", "p50"), med("fio", "p50"),
                     med("kdio", "p99"), med("fio", "p99"), ratio("mean")))

    print(f"kdio vs fio: {args.rounds} rounds x {args.runtime} s per tool and case, "
          f"{args.size_mib} MiB file, O_DIRECT, alternating")
    head = ("case", "IOPS kdio", "IOPS fio", "IOPS k/f", "CPU/IO kdio", "CPU/IO fio", "CPU k/f",
            "p50 kdio", "p50 fio", "p99 kdio", "p99 fio", "mean clat k/f")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        (name, ki, fi, ir, kc, fc, cr, k50, f50, k99, f99, mr) = row
        print(f"| {name} | {ki:.0f} | {fi:.0f} | {ir:.2f} | {kc:.2f} us | {fc:.2f} us | "
              f"{cr:.2f} | {k50 / 1e3:.1f} us | {f50 / 1e3:.1f} us | {k99 / 1e3:.1f} us | "
              f"{f99 / 1e3:.1f} us | {mr:.2f} |")
    ok = all(r[3] >= 1.0 and r[6] <= 1.0 for r in rows) and all(
        abs(r[11] - 1) <= 0.10 for r in rows if r[0].startswith("psync QD1"))
    print("targets (IOPS k/f >= 1.00, CPU k/f <= 1.00, psync QD1 mean clat within 10%): "
          + ("met" if ok else "NOT met"))


if __name__ == "__main__":
    main()
