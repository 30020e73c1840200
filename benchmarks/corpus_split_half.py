"""Split-half validation of the corpus bootstrap (Cormack & Lynam 2006, §6-8) on TREC 2003 Robust.

The corpus is split into halves A and B by the MD5 of each docno (``corpus_split``); every run and
the qrels are split the same way. A corpus bootstrap of half A gives a 95% interval for each
(run, topic) AP; AP measured on half B should fall inside about 83.5% of the time (both halves have
SD σ, so ``AP_B - AP_A`` has SD ``σ√2`` and ``1.96/√2 = 1.39`` bounds 83.5% of a normal), with about
equal misses below and above (8.25% each). Rows: normal and logit intervals, without and with the
small-R correction (§7), for all (run, topic) pairs whose ranking on A is not empty and for topics
with R > 5 on A; percentile and BCa for comparison; then B predicting A. Then MAP and L-MAP
(Tables 3 and 4) on this one split: bootstrap (normal on the per-image mean) and the parametric
interval (default and the paper's formula). One split says little about system-level intervals (the
17 runs move together between halves): ``benchmarks/corpus_calibration.py`` repeats the check over
many random splits.

Usage: python benchmarks/corpus_split_half.py [--data ../shared/data] [--images 1000] [--rng 1]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"


def shares(truth, low, high):
    n = len(truth)
    below = np.count_nonzero(truth < low) / n
    above = np.count_nonzero(truth > high) / n
    return below, 1 - below - above, above


def row(label, n, values):
    below, inside, above = values
    return f"| {label} | {n} | {100 * below:.1f}% | {100 * inside:.1f}% | {100 * above:.1f}% |"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--epsilon", type=float, default=1e-5, help="the logit interval's epsilon")
    args = parser.parse_args(argv)
    folder = args.data / "trec-robust2003"
    if not folder.exists():
        print(f"TREC 2003 Robust data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1

    from pyterrier_boot import (
        CorpusBootstrap,
        DegenerateWarning,
        corpus_split,
        read_qrels,
        read_runs,
    )

    warnings.simplefilter("ignore", DegenerateWarning)
    start = time.perf_counter()
    runs = read_runs(folder / "runs")
    qrels = read_qrels(folder / "qrels.robust2003.txt.gz").frame
    halves = {}
    for half in ("A", "B"):
        half_runs = {name: corpus_split(run, half) for name, run in runs.items()}
        boot = CorpusBootstrap(corpus_split(qrels, half), n_images=args.images, rng=args.rng, verbose=False)
        halves[half] = boot.evaluate(half_runs, ["AP"])
    a, b = halves["A"], halves["B"]
    assert a.systems == b.systems and a.qids == b.qids
    print(f"17 TREC 2003 Robust runs, {len(a.qids)} topics, {args.images} Poisson images per half, "
          f"rng={args.rng}, logit epsilon={args.epsilon:g} ({time.perf_counter() - start:.0f} s)")
    print(f"documents seen: A {len(a.documents):,}, B {len(b.documents):,}; relevant per topic: "
          f"A median {int(np.median(a.n_relevant[:, 0]))} (min {a.n_relevant[:, 0].min()}), "
          f"B median {int(np.median(b.n_relevant[:, 0]))} (min {b.n_relevant[:, 0].min()})")

    for src, dst, label in ((a, b, "AP_B w.r.t. intervals from A"), (b, a, "AP_A w.r.t. intervals from B")):
        truth = dst.statistic[..., 0].reshape(-1)
        nonempty = src.depth[..., 0].reshape(-1) > 0
        big = nonempty & (np.broadcast_to(src.n_relevant[None, :, 0], src.depth[..., 0].shape).reshape(-1) > 5)
        print(f"\n{label} (95% intervals; the model predicts 8.25% / 83.5% / 8.25%)\n")
        print("| interval | n | below | in | above |")
        print("|---|---:|---:|---:|---:|")
        for subset, subset_label in ((nonempty, "all"), (big, "R > 5")):
            for method, small_r in (("normal", False), ("logit", False), ("normal", True), ("logit", True),
                                    ("percentile", True), ("bca", True)):
                table = src.per_topic(method=method, small_r=small_r, eps=args.epsilon)
                low, high = table["ci_low"].to_numpy(), table["ci_high"].to_numpy()
                name = f"{method}{', small-R corrected' if small_r else ''} ({subset_label})"
                print(row(name, int(subset.sum()), shares(truth[subset], low[subset], high[subset])))

    print("\nMAP and L-MAP of the 17 runs (Cormack & Lynam Tables 3-4; expected 8.25% / 83.5% / 8.25%)\n")
    print("| statistic | interval | w.r.t. | below | in | above |")
    print("|---|---|---|---:|---:|---:|")
    for statistic, label in (("mean", "MAP"), ("logit_mean", "L-MAP")):
        for method, variance in (("normal", "mixed"), ("parametric", "mixed"), ("parametric", "logit")):
            for src, dst, direction in ((a, b, "B w.r.t. A"), (b, a, "A w.r.t. B")):
                table = src.per_system(statistic=statistic, method=method, eps=args.epsilon, variance=variance)
                method_label = method if method == "normal" else f"{method} ({variance})"
                truth = dst.per_system(statistic=statistic)["AP"].to_numpy()
                below, inside, above = shares(truth, table["AP ci_low"].to_numpy(), table["AP ci_high"].to_numpy())
                print(f"| {label} | {method_label} | {direction} | {100 * below:.1f}% | {100 * inside:.1f}% | "
                      f"{100 * above:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
