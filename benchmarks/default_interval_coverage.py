"""Coverage of each per-system interval method at small topic-set sizes, on real TREC ad hoc scores.

This is the measurement behind the default interval of :func:`pyterrier_boot.bootstrap_ci`,
``Experiment`` (``ci_low``/``ci_high``) and the CLI. Population: every system of the TREC-5..8 ad
hoc AP score matrices of Urbano et al. (SIGIR 2019), its 50 topics being the population of topics
(Park 2010's design). A replication picks a system at random and draws n topics with replacement;
it covers when the 95% interval of its mean holds the system's mean over the 50 topics. Methods:
percentile, basic, bca, studentized, normal, t; n = 5, 10, 25, 50. Coverage is a proportion of R
independent replications, reported with its standard error sqrt(c (1 - c) / R).

Replications come in blocks of 100 that share one resample plan (drawn independently of the data,
a new one per block), so the intervals of one block are computed in one call.

Usage: python benchmarks/default_interval_coverage.py [--replications 4000] [--resamples 2000]
           [--data ../shared/data] [--out coverage.md]
Run time: about 4 minutes on one core with the defaults.
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
METHODS = ("percentile", "basic", "bca", "studentized", "normal", "t")
SIZES = (5, 10, 25, 50)
COLLECTIONS = ("adhoc5_ap", "adhoc6_ap", "adhoc7_ap", "adhoc8_ap")
BLOCK = 100


def population(data):
    """All systems of the four collections: a list of per-topic AP vectors (the populations)."""
    rows = []
    for name in COLLECTIONS:
        frame = pd.read_csv(data / "urbano-sigir2019-scores" / f"{name}.csv")
        rows.extend(frame.to_numpy(dtype=float).T)
    return rows


def measure(systems, replications, resamples, seed):
    import pyterrier_boot as pb

    rng = np.random.default_rng(seed)
    means = np.array([s.mean() for s in systems])
    covered = {(m, n): 0 for m in METHODS for n in SIZES}
    for n in SIZES:
        for start in range(0, replications, BLOCK):
            rows = min(BLOCK, replications - start)
            which = rng.integers(0, len(systems), rows)
            sample = np.stack([systems[s][rng.integers(0, systems[s].size, n)] for s in which])
            truth = means[which]
            plan = pb.resample_plan(n, n_resamples=resamples, rng=rng)
            for method in METHODS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    low, high = pb.bootstrap_ci(sample, method=method, plan=None if method == "t" else plan,
                                                n_resamples=resamples).confidence_interval
                covered[method, n] += int(np.sum((low <= truth) & (truth <= high)))
        print(f"  n = {n} done", file=sys.stderr, flush=True)
    return covered


def table(covered, replications):
    lines = ["| method | " + " | ".join(f"n = {n}" for n in SIZES) + " |",
             "|---|" + "---|" * len(SIZES)]
    for m in METHODS:
        cells = []
        for n in SIZES:
            c = covered[m, n] / replications
            cells.append(f"{c:.3f} ± {np.sqrt(c * (1 - c) / replications):.3f}")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=4000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not (args.data / "urbano-sigir2019-scores").is_dir():
        sys.exit(f"no urbano-sigir2019-scores/ under {args.data}: pass --data")
    started = time.time()
    systems = population(args.data)
    covered = measure(systems, args.replications, args.resamples, args.seed)
    text = (f"Coverage of 95% intervals of a system's mean AP: {len(systems)} TREC-5..8 ad hoc systems, "
            f"their 50 topics the population; {args.replications:,} replications per cell, B = "
            f"{args.resamples:,}; ± one standard error.\n\n" + table(covered, args.replications))
    print(text)
    print(f"({time.time() - started:.0f} s)", file=sys.stderr)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
