"""Confidence-sequence widths beside retrieval-eval-gate's betting sequence and the fixed-n t interval,
and the time for every pair of DL 2020's runs (issue 27, items 1 and 6).

    python benchmarks/sequential_widths.py [--sequences 500] [--seed 0]

retrieval-eval-gate comes with the ``bench`` extra (``pip install -e ".[dev,bench]"``).

Populations: the per-topic scores of TREC DL 2020 passage (nDCG@10) and Robust 2003 (AP) runs,
computed with ``ptb.evaluate``. Each of ``--sequences`` sequences draws 50 topics with
replacement; for one system's mean (the best run) and for the paired difference of the two best
runs the script prints the median width at n = 25 and 50 of:

* ``rag_eval_gate.sequential.ConfidenceSequence(alpha=0.05)`` (its documented class: a grid of
  200 candidate means, fed with ``extend()`` up to n = 25 and then to 50; a difference is rescaled
  to [0, 1] as its ``paired_gate`` does, and its width scaled back);
* ``ptb.confidence_sequence`` with ``method="betting"`` and ``"asymptotic"``;
* the fixed-n Student t interval (valid at one n chosen in advance only);

each as a ratio to retrieval-eval-gate's width, and the time-uniform miss rate of ours over the
50 topics. Last, the wall time of the betting and the asymptotic sequence for all 1,711 pairs of
DL 2020's 59 runs over 250 topics drawn with replacement (warm: compiled once before).
"""
import argparse
import os
import time
from pathlib import Path

import numpy as np
from rag_eval_gate.sequential import ConfidenceSequence as GateSequence
from scipy import stats

import pyterrier_boot as ptb

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
COLLECTIONS = {"DL 2020 nDCG@10": ("trec-dl-2020-passage", "qrels.dl20-passage.txt", "nDCG@10"),
               "Robust 2003 AP": ("trec-robust2003", "qrels.robust2003.txt.gz", "AP")}
LOOKS = (25, 50)


def per_topic(folder, qrels, measure):
    """Topics x runs matrix of per-topic scores (topics every run has)."""
    data = SHARED / "data" / folder
    frame = ptb.evaluate(ptb.read_runs(data / "runs"), ptb.read_qrels(data / qrels).frame, [measure])
    return frame.pivot(index="qid", columns="name", values="value").dropna()


def gate_widths(z):
    """retrieval-eval-gate's widths at LOOKS for each column of ``z`` (scores in [0, 1])."""
    out = np.empty((len(LOOKS), z.shape[1]))
    for k in range(z.shape[1]):
        sequence, seen = GateSequence(alpha=0.05), 0
        for row, n in enumerate(LOOKS):
            low, high = sequence.extend(z[seen:n, k])
            out[row, k], seen = high - low, n
    return out


def t_widths(d):
    return np.array([2 * stats.t.ppf(0.975, n - 1) * stats.sem(d[:n]) for n in LOOKS])


def compare(name, x, y, mean):
    d = x if y is None else x - y
    lo = 0.0 if y is None else -1.0
    scale = 1.0 - lo
    started = time.perf_counter()
    gate = gate_widths((d - lo) / scale) * scale
    gate_time = time.perf_counter() - started
    rows = {"t (fixed n)": t_widths(d)}
    for method in ("betting", "asymptotic"):
        res = ptb.confidence_sequence(x, y, method=method)
        width = res.ci_high - res.ci_low
        rows[method] = np.array([width[n - 1] for n in LOOKS])
        miss = ((res.ci_low > mean) | (res.ci_high < mean) | np.isnan(res.ci_low)).any(axis=0).mean()
        rows[method + " miss"] = miss
    print(f"\n{name} ({x.shape[1]} sequences; retrieval-eval-gate took {gate_time:.1f} s)")
    print("  retrieval-eval-gate median width: " + ", ".join(
        f"n={n}: {np.median(gate[i]):.4f}" for i, n in enumerate(LOOKS)))
    for label in ("betting", "asymptotic", "t (fixed n)"):
        ratios = ", ".join(f"n={n}: {np.median(rows[label][i] / gate[i]):.3f}" for i, n in enumerate(LOOKS))
        extra = f"  (ever misses over 50 topics: {rows[label + ' miss']:.3f})" if label + " miss" in rows else ""
        print(f"  {label:12s} width / retrieval-eval-gate's, median: {ratios}{extra}")


def all_pairs_time(scores, rng):
    draw = rng.integers(0, scores.shape[0], 250)
    i, j = np.triu_indices(scores.shape[1], 1)
    x, y = scores[draw][:, i], scores[draw][:, j]
    for method in ("betting", "asymptotic"):
        ptb.confidence_sequence(x[:, :2], y[:, :2], method=method)  # compile / warm
        best = min(_timed(lambda m=method: ptb.confidence_sequence(x, y, method=m)) for _ in range(3))
        print(f"{method}: {x.shape[1]} pairs x 250 topics in {best:.2f} s (best of 3, load {os.getloadavg()[0]:.1f})")


def _timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    for label, (folder, qrels, measure) in COLLECTIONS.items():
        scores = per_topic(folder, qrels, measure)
        order = scores.mean().sort_values().index
        a, b = scores[order[-1]].to_numpy(), scores[order[-2]].to_numpy()
        draws = rng.integers(0, len(a), (max(LOOKS), args.sequences))
        compare(f"{label}, mean of {order[-1]}", a[draws], None, a.mean())
        compare(f"{label}, {order[-1]} - {order[-2]}", a[draws], b[draws], (a - b).mean())
        if label.startswith("DL 2020"):
            print()
            all_pairs_time(scores.to_numpy(), rng)


if __name__ == "__main__":
    main()
