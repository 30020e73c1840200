"""Speed of the statistics core against ranx on all pairs of the 59 TREC DL 2020 passage runs.

Workload: 59 runs -> 1711 pairs, 4 measures (nDCG@10, AP(rel=2), RR(rel=2)@10, R(rel=2)@1000),
54 judged topics. We run

* pyterrier_boot.compare(test="paired_bootstrap") with 10,000 resamples,
* pyterrier_boot.compare(test="randomization") with 10,000 sign flips,

and, in the same process on the same runs and qrels, ranx.compare(qrels, runs, metrics,
stat_test="fisher", n_permutations=1000) (ranx's documented call for comparing runs, numba-compiled,
on every core by default; ranx is optional: ``pip install ranx``; it is not a dependency of
pyterrier_boot). ranx evaluates the runs inside compare(), so its evaluation time is measured
separately (ranx.evaluate) and subtracted to give its testing time. Per-topic scores for our
functions come from ir_measures (the project's own evaluate() is not used here).

Usage: python benchmarks/stats_speed.py [--data ../shared/data] [--repeat 2]
"""
import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MEASURES = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10", "R(rel=2)@1000"]
RANX_METRICS = ["ndcg@10", "map-l2", "mrr@10-l2", "recall@1000-l2"]


def read_run(path):
    with gzip.open(path, "rt") as f:
        frame = pd.read_csv(f, sep=r"\s+", header=None, usecols=[0, 2, 4],
                            names=["query_id", "doc_id", "score"], dtype={0: str, 2: str, 4: float})
    return frame


def load(data):
    folder = data / "trec-dl-2020-passage"
    qrels = pd.read_csv(folder / "qrels.dl20-passage.txt", sep=r"\s+", header=None,
                        names=["query_id", "iteration", "doc_id", "relevance"], dtype=str)
    qrels["relevance"] = qrels["relevance"].astype(int)
    runs = {}
    for path in sorted((folder / "runs").glob("input.*.gz")):
        runs[path.name[len("input."):-len(".gz")]] = read_run(path)
    return qrels[["query_id", "doc_id", "relevance"]], runs


def score_matrices(qrels, runs):
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    topics = sorted(qrels["query_id"].unique())
    names = list(runs)
    values = np.zeros((len(MEASURES), len(names), len(topics)))
    col = {t: j for j, t in enumerate(topics)}
    key = {str(m): i for i, m in enumerate(measures)}
    for s, name in enumerate(names):
        for metric in ir_measures.iter_calc(measures, qrels, runs[name]):
            if metric.query_id in col:
                values[key[str(metric.measure)], s, col[metric.query_id]] = metric.value
    return {m: pd.DataFrame(values[i], index=names, columns=topics) for i, m in enumerate(MEASURES)}


def timed(label, func, repeat):
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    print(f"  {label:<58s} " + "  ".join(f"{t:7.2f}s" for t in times), flush=True)
    return result, min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=2, help="timed repetitions (the first includes warm-up)")
    parser.add_argument("--n-resamples", type=int, default=10_000)
    args = parser.parse_args(argv)
    if not (args.data / "trec-dl-2020-passage").exists():
        print(f"TREC DL 2020 data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1

    import warnings

    import pyterrier_boot as pb
    from pyterrier_boot._warnings import DegenerateWarning

    # identical per-topic scores (e.g. R@1000 of re-rankers of one candidate list) give p = 1
    warnings.simplefilter("ignore", DegenerateWarning)

    qrels, runs = load(args.data)
    n_pairs = len(runs) * (len(runs) - 1) // 2
    print(f"TREC DL 2020 passage: {len(runs)} runs, {n_pairs} pairs, {qrels.query_id.nunique()} topics, "
          f"{len(MEASURES)} measures; CPU threads available: {os.cpu_count()}; load average "
          + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    print("timings (each repetition):")
    scores, t_eval = timed("ir_measures per-topic scores (not part of the tests)",
                           lambda: score_matrices(qrels, runs), 1)
    B = args.n_resamples
    boot, t_boot = timed(f"pyterrier_boot paired bootstrap, B={B:,}, all pairs x 4 measures",
                         lambda: pb.compare(scores, test="paired_bootstrap", n_resamples=B, rng=1), args.repeat)
    perm, t_perm = timed(f"pyterrier_boot randomisation, B={B:,}, all pairs x 4 measures",
                         lambda: pb.compare(scores, test="randomization", n_resamples=B, rng=1), args.repeat)
    assert len(boot) == len(perm) == n_pairs * len(MEASURES)
    identical = int((boot.wins + boot.losses == 0).sum())
    print(f"  ({identical} of {len(boot)} (pair, measure) rows have identical per-topic scores: p = 1)")

    try:
        import ranx
    except ImportError:
        print("ranx is not installed: skipping the comparison (pip install ranx to run it)")
        return 0
    def as_object(frame):  # ranx wants object (not pandas' str) id columns
        frame = frame.rename(columns={"query_id": "q_id"}).copy()
        for col in ("q_id", "doc_id"):
            frame[col] = frame[col].astype(object)
        return frame

    qrels_r = ranx.Qrels.from_df(as_object(qrels.rename(columns={"relevance": "score"})),
                                 q_id_col="q_id", doc_id_col="doc_id", score_col="score")
    runs_r = []
    for name, frame in runs.items():
        run = ranx.Run.from_df(as_object(frame), q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        run.name = name
        runs_r.append(run)

    def ranx_eval():
        for run in runs_r:
            ranx.evaluate(qrels_r, run, RANX_METRICS, make_comparable=True)

    _, t_ranx_eval = timed("ranx.evaluate of the 59 runs (inside compare)", ranx_eval, args.repeat)
    report, t_ranx = timed("ranx.compare fisher, 1,000 permutations (incl. evaluation)",
                           lambda: ranx.compare(qrels_r, runs_r, RANX_METRICS, stat_test="fisher",
                                                n_permutations=1000, make_comparable=True),
                           args.repeat)
    t_ranx_test = max(t_ranx - t_ranx_eval, 1e-9)
    print()
    print("load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores")
    print("| workload (all 1,711 pairs x 4 measures) | time (s) | resamples per pair |")
    print("|---|---:|---:|")
    print(f"| pyterrier_boot paired bootstrap test | {t_boot:.2f} | {B:,} |")
    print(f"| pyterrier_boot randomisation test | {t_perm:.2f} | {B:,} |")
    print(f"| ranx.compare, Fisher randomisation (testing only) | {t_ranx_test:.2f} | 1,000 |")
    print(f"| ranx.compare, Fisher randomisation (with its evaluation) | {t_ranx:.2f} | 1,000 |")
    print()
    print(f"ratio ranx testing time / ours: bootstrap {t_ranx_test / t_boot:.1f}x, "
          f"randomisation {t_ranx_test / t_perm:.1f}x (ours use {B // 1000}x more resamples); "
          f"per resample: {t_ranx_test / 1000 / (t_perm / B):.0f}x")
    # sanity: the two randomisation tests agree on the p-values, up to Monte Carlo error
    ours = perm[perm.measure == "nDCG@10"].set_index(["system_a", "system_b"])["p-value"]
    theirs = []
    for a, b in ours.index:
        theirs.append(report.comparisons[a, b]["ndcg@10"]["p_value"] if (a, b) in report.comparisons else np.nan)
    theirs = np.asarray(theirs, dtype=float)
    ok = ~np.isnan(theirs)
    if ok.any():
        diff = np.abs(ours.to_numpy()[ok] - theirs[ok])
        print(f"nDCG@10 randomisation p-values, ours (B=10,000) vs ranx (B=1,000) over {ok.sum()} pairs: "
              f"median |difference| {np.median(diff):.4f}, 99th percentile {np.quantile(diff, 0.99):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
