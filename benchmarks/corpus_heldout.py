"""Held-out image check of the corpus bootstrap (Zobel & Rashidi 2020, §4 and Table 2) on TREC DL 2020.

As in the paper: the top 50 runs by mean RBP(p=0.95) on the full corpus, 100 corpus images; for
every pair of runs and every topic, images 1-99 give a 95% percentile interval of the paired
difference (computed within each image) and the 100th image's difference is counted below, in or
above it. Measures: AP, nDCG@10, P@10, RBP(p=0.95), RR. DL 2020's official binary relevance is
grade >= 2 (``rel=2``); nDCG@10 uses the graded labels. The paper's Table 2 finds about 2.5 / 95 /
2.5%. Note that a linear-interpolation 95% interval of 99 values covers a new i.i.d. continuous value
with probability (96.55 - 3.45)/100 = 93.1%, and ties (e.g. two runs both scoring 0 on every image)
raise "in"; we also report the triples whose interval has positive width, and the average over all
100 choices of the held-out image (each image predicted from the other 99).

Usage: python benchmarks/corpus_heldout.py [--data ../shared/data] [--model poisson|multinomial] [--top 50]
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MEASURES = ["AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RBP(p=0.95, rel=2)", "RR(rel=2)"]
LABELS = ["AP", "nDCG@10", "P@10", "RBP(p=0.95)", "RR"]
#: documents in the MS MARCO v1 passage corpus (ir_datasets' msmarco-passage docs_count)
MSMARCO_PASSAGES = 8_841_823


def classify(held, low, high):
    below = held < low
    above = held > high
    return np.count_nonzero(below), np.count_nonzero(~below & ~above), np.count_nonzero(above)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--model", choices=["poisson", "multinomial"], default="poisson")
    parser.add_argument("--top", type=int, default=50, help="runs kept, by mean RBP(p=0.95) (0: all 59)")
    parser.add_argument("--images", type=int, default=100)
    parser.add_argument("--rng", type=int, default=1)
    args = parser.parse_args(argv)
    folder = args.data / "trec-dl-2020-passage"
    if not folder.exists():
        print(f"TREC DL 2020 data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1

    from pyterrier_boot import CorpusBootstrap, read_qrels, read_runs
    from pyterrier_boot.corpus.intervals import image_interval

    start = time.perf_counter()
    runs = read_runs(folder / "runs")
    qrels = read_qrels(folder / "qrels.dl20-passage.txt")
    size = MSMARCO_PASSAGES if args.model == "multinomial" else None
    boot = CorpusBootstrap(qrels, n_images=args.images, model=args.model, corpus_size=size, rng=args.rng,
                           verbose=False)
    res = boot.evaluate(runs, MEASURES)
    rbp = res.statistic[..., MEASURES.index("RBP(p=0.95, rel=2)")].mean(axis=1)
    keep = np.argsort(-rbp, kind="stable")[:args.top] if args.top else np.arange(len(res.systems))
    S = len(keep)
    Q = len(res.qids)
    a, b = np.triu_indices(S, k=1)
    print(f"TREC DL 2020 passage: {S} of {len(res.systems)} runs (top by RBP), {Q} topics, {len(a)} pairs, "
          f"{len(a) * Q:,} (system, system, topic) triples; {args.images} {args.model} images, rng={args.rng} "
          f"({time.perf_counter() - start:.0f} s)")
    x = res.bootstrap_distribution[:, keep]  # [B, S, Q, M]
    d = x[:, a] - x[:, b]  # [B, pairs, Q, M]
    B = d.shape[0]

    print("\nHeld-out image (images 1-99 predict image 100), % of triples; Zobel & Rashidi Table 2: ~2.5/95/2.5\n")
    print("| measure | below | in | above | triples with a non-degenerate interval: below | in | above (n) |"
          " every image held out in turn: below | in | above |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, label in enumerate(LABELS):
        dm = d[..., m].reshape(B, -1)
        low, high = image_interval(dm[-1], dm[:-1], method="percentile")
        n = dm.shape[1]
        below, inside, above = classify(dm[-1], low, high)
        wide = high > low
        wb, wi, wa = classify(dm[-1][wide], low[wide], high[wide])
        nw = max(int(wide.sum()), 1)
        totals = np.zeros(3)
        for held in range(B):
            rest = np.delete(dm, held, axis=0)
            lo, hi = image_interval(dm[held], rest, method="percentile")
            totals += classify(dm[held], lo, hi)
        tb, ti, ta = 100 * totals / (B * n)
        print(f"| {label} | {100 * below / n:.1f} | {100 * inside / n:.1f} | {100 * above / n:.1f} | "
              f"{100 * wb / nw:.1f} | {100 * wi / nw:.1f} | {100 * wa / nw:.1f} ({int(wide.sum()):,}) | "
              f"{tb:.1f} | {ti:.1f} | {ta:.1f} |")

    print("\nSD over images of the per-topic pairwise differences (Zobel & Rashidi Table 3: mean ± SD of the SDs)\n")
    print("| measure | mean SD | SD of SDs |")
    print("|---|---:|---:|")
    for m, label in enumerate(LABELS):
        sd = d[..., m].std(axis=0, ddof=1)
        print(f"| {label} | {sd.mean():.3f} | {sd.std():.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
