"""Speed of the meta-evaluation core on the 59 TREC DL 2020 passage runs (1711 system pairs).

Workload (issue 7): discriminative power (Sakai's paired bootstrap, 1,000 resamples shared by all
measures and pairs) for 5 measures -- AP(rel=2), nDCG@10, P(rel=2)@10, RR(rel=2), RBP(p=0.8,rel=2)
-- over 54 judged topics. Target: under a minute. Also timed, on the same topic samples: the swap
method (1,000 trials, a second set of samples), the stability method (20 fuzziness values) and
the per-topic evaluation with ``pyterrier_boot.evaluate`` (reported separately).

Usage: python benchmarks/meta_speed.py [--data ../shared/data] [--repeat 3] [--resamples 1000]
"""
import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

import pyterrier_boot as pb

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MEASURES = ["AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RR(rel=2)", "RBP(p=0.8,rel=2)"]


def timed(function, repeat):
    best = np.inf
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    folder = args.data / "trec-dl-2020-passage"
    if not folder.is_dir():
        raise SystemExit(f"TREC DL 2020 data not found at {folder} (pass --data or set PYTERRIER_BOOT_SHARED)")

    start = time.perf_counter()
    scores = pb.evaluate([str(folder / "runs")], str(folder / "qrels.dl20-passage.txt"), MEASURES)
    t_eval = time.perf_counter() - start
    n_sys, n_top = scores["name"].nunique(), scores["qid"].nunique()
    n_pairs = n_sys * (n_sys - 1) // 2
    print(f"data: {n_sys} runs, {n_top} topics, {n_pairs} pairs, {len(MEASURES)} measures")
    print(f"evaluate (read 59 runs + 5 measures, first call incl. JIT): {t_eval:7.2f} s")

    B = args.resamples
    # warm-up (imports, BLAS) outside the timings; the warnings name pairs of runs that are
    # identical on a measure (reported once here, then silenced)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pb.discriminative_power(scores, n_resamples=100, rng=0)
    for w in caught:
        print(f"note: {w.message}")
    warnings.simplefilter("ignore", pb.DegenerateWarning)
    t_dp, dp = timed(lambda: pb.discriminative_power(scores, n_resamples=B, rng=1), args.repeat)
    t_swap, _ = timed(lambda: pb.swap_method(scores, plan=dp.plan, rng=2), args.repeat)
    t_stab, _ = timed(lambda: pb.stability_method(scores, plan=dp.plan), args.repeat)
    t_t, _ = timed(lambda: pb.discriminative_power(scores, test="t"), args.repeat)
    t_rand, _ = timed(lambda: pb.discriminative_power(scores, test="randomization", n_resamples=B, rng=1),
                      args.repeat)
    # reference: the stats core's single-pair test looped over pairs (no shared vectorisation)
    wide = {m: g.pivot(index="name", columns="qid", values="value") for m, g in scores.groupby("measure")}
    X = wide[MEASURES[0]].to_numpy()
    pairs = list(zip(*np.triu_indices(n_sys, 1)))[:100]
    start = time.perf_counter()
    for i, j in pairs:
        pb.paired_bootstrap_test(X[i], X[j], plan=dp.plan)
    t_loop = (time.perf_counter() - start) / len(pairs) * n_pairs * len(MEASURES)
    print(f"\nbest of {args.repeat} runs, {B} resamples:")
    print(f"  discriminative_power(paired_bootstrap)  {t_dp:7.2f} s   (target < 60 s: "
          f"{'met' if t_dp < 60 else 'NOT met'}; {60 / t_dp:.0f}x under)")
    print(f"  reference: paired_bootstrap_test looped over the pairs (extrapolated from 100 pairs) "
          f"{t_loop:7.2f} s ({t_loop / t_dp:.0f}x slower)")
    print(f"  discriminative_power(randomization)     {t_rand:7.2f} s")
    print(f"  discriminative_power(t)                 {t_t:7.2f} s")
    print(f"  swap_method (second set of samples)     {t_swap:7.2f} s")
    print(f"  stability_method (20 fuzziness values)  {t_stab:7.2f} s")
    print("\nsensitivity (paired bootstrap, alpha = 0.05):")
    print(dp.summary().to_string(index=False))


if __name__ == "__main__":
    main()
