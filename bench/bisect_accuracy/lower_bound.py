#!/usr/bin/env python3
"""The fewest samples any bisection could take in a bisect_accuracy cell, on average.

Two bounds, added, for the benchmark's setting (64 candidates, the culprit uniform among them,
the sim runner's noise):
- the search: naming the culprit right with probability 1 - pe takes, by Fano's inequality,
  log2(64) - h(pe) - pe log2(63) bits about it, and one sample at a commit carries at most the
  capacity of the channel from "good or bad" to the sampled value (the two noise densities as
  sim_measurer.cc draws them, known exactly). Endpoint samples carry none about where the culprit
  is, so the check's samples do not count here.
- the endpoint check: any test that declares a regression with probability <= alpha where there
  is none and misses one with probability <= beta needs, on average under the regression,
  d(1-beta || alpha) / KL samples, KL being what one sample tells the two apart (Wald's
  inequality; d(.||.) the binary relative entropy). Normal and lognormal noise: the shift on the
  log scale, d sigmas (sigma about the CV for normal noise), in a location nobody knows, so the
  test reads the difference of the two sides' means: KL = d^2 / 8 per sample with the samples
  split evenly. Bimodal noise: KL of bad's density against good's as if good's were known
  exactly (weaker, but a bound).
Both bounds assume the noise is known; a real procedure must learn it and takes more.

    lower_bound.py [--alpha A] [TABLE]

TABLE: a saved bisect_accuracy output; for each cell with a target it then also prints half of
pinpoint's samples (what the sample target allows) and whether the bound is above it.
"""
import argparse
import math
import sys

CANDIDATES = 64
P2, MODE2 = 0.2, 0.8  # the benchmark's bimodal noise (sim_measurer.cc, scenario.h)
GRID = 20000


def log_normal_pdf(x, mean, sd):
    z = (x - mean) / sd
    return -0.5 * z * z - math.log(sd * math.sqrt(2 * math.pi))


def log_density(noise, cv, base):
    """log f(y) of one sample of a commit whose true value is `base` (sim_measurer.cc)."""
    if noise == "normal":
        return lambda y: log_normal_pdf(y, base, base * cv)
    if noise == "lognormal":
        sigma = math.sqrt(math.log(1 + cv * cv))
        mu = math.log(base) - sigma * sigma / 2
        return lambda y: log_normal_pdf(math.log(y), mu, sigma) - math.log(y)

    def bimodal(y):
        a = math.log(1 - P2) + log_normal_pdf(y, base, base * cv)
        b = math.log(P2) + log_normal_pdf(y, MODE2 * base, MODE2 * base * cv)
        top = max(a, b)
        return top + math.log(math.exp(a - top) + math.exp(b - top))

    return bimodal


def grid(regression, cv):
    low = MODE2 * (1 - regression) * (1 - 10 * cv)
    high = 1 + 10 * cv
    step = (high - low) / GRID
    return [low + (i + 0.5) * step for i in range(GRID)], step


def densities(noise, regression, cv):
    """The good and bad log densities on the integration grid, and its step."""
    ys, step = grid(regression, cv)
    good, bad = log_density(noise, cv, 1.0), log_density(noise, cv, 1.0 - regression)
    return [(good(y), bad(y)) for y in ys], step


def mutual_information(points, step, p_bad):
    """Bits one sample tells about good/bad when the commit is bad with probability p_bad."""
    total = 0.0
    for lg, lb in points:
        fg, fb = math.exp(lg), math.exp(lb)
        mix = (1 - p_bad) * fg + p_bad * fb
        if mix <= 0:
            continue
        if fg > 0:
            total += (1 - p_bad) * fg * math.log2(fg / mix)
        if fb > 0:
            total += p_bad * fb * math.log2(fb / mix)
    return total * step


def capacity(points, step):
    """The largest mutual information over the probability of "bad" (golden-section search)."""
    low, high = 0.01, 0.99
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(30):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if mutual_information(points, step, a) < mutual_information(points, step, b):
            low = a
        else:
            high = b
    return mutual_information(points, step, (low + high) / 2)


def binary_entropy(p):
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def search_bound(points, step, accuracy):
    pe = 1 - accuracy
    bits = math.log2(CANDIDATES) - binary_entropy(pe) - pe * math.log2(CANDIDATES - 1)
    return bits / capacity(points, step)


def binary_relative_entropy(p, q):
    """d(p || q) in nats."""
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def check_bound(noise, regression, cv, points, step, alpha, beta):
    if noise == "bimodal":
        kl = sum(math.exp(lb) * (lb - lg) for lg, lb in points) * step
    else:
        sigma = math.sqrt(math.log(1 + cv * cv)) if noise == "lognormal" else cv
        shift = math.log(1 / (1 - regression)) / sigma
        kl = shift * shift / 8
    return binary_relative_entropy(1 - beta, alpha) / kl


def read_table(path):
    """{(history, noise, regression %, cv %): pinpoint's mean samples} from bisect_accuracy."""
    cells = {}
    pinpoint = None
    with open(path) as table:
        for line in table:
            columns = [c.strip() for c in line.split("|")]
            if columns[0].startswith("history"):
                pinpoint = columns.index("pinpoint")
                continue
            words = columns[0].split()
            if pinpoint is None or len(words) != 4 or len(columns) <= pinpoint:
                continue
            history, noise, regression, cv = words
            samples = float(columns[pinpoint].split()[1])
            cells[(history, noise, int(regression.rstrip("%")), int(cv.rstrip("%")))] = samples
    if not cells:
        sys.exit(f"{path}: no bisect_accuracy table rows with a pinpoint column found")
    return cells


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", help="saved bisect_accuracy output")
    parser.add_argument("--alpha", type=float, default=0.01,
                        help="the check's false-alarm rate (default 0.01, bisect's alpha)")
    args = parser.parse_args()
    if not 0 < args.alpha < 0.5:
        sys.exit(f"--alpha {args.alpha}: must be between 0 and 0.5")
    pinpoint = read_table(args.table) if args.table else None
    print(f"lower bounds on mean samples per bisection (alpha {args.alpha}); "
          "accuracy: the target's (99% at >= 2x the CV, 95% at 1x)")
    print(f"{'noise':9} {'reg':>4} {'cv':>4} | {'search':>6} {'check':>6} {'sum':>6}"
          + (" | half of pinpoint's (linear, merges)" if pinpoint else ""))
    for noise in ("normal", "lognormal", "bimodal"):
        for regression in (3, 5, 10, 30):
            for cv in (1, 5, 10):
                if regression < cv:
                    continue
                accuracy = 0.95 if regression == cv else 0.99
                points, step = densities(noise, regression / 100, cv / 100)
                search = search_bound(points, step, accuracy)
                check = check_bound(noise, regression / 100, cv / 100, points, step, args.alpha,
                                    1 - accuracy)
                line = (f"{noise:9} {regression:>3}% {cv:>3}% | {search:6.1f} {check:6.1f} "
                        f"{search + check:6.1f}")
                if pinpoint:
                    for history in ("linear", "merges"):
                        allowed = pinpoint.get((history, noise, regression, cv))
                        if allowed is not None:
                            allowed /= 2
                            beyond = "  beyond reach" if search + check > allowed else ""
                            line += f" | {history} {allowed:5.1f}{beyond}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
