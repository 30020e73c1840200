"""Speed of pyterrier_boot.Experiment against pt.Experiment (issue 5's benchmark; run by hand).

    python benchmarks/experiment_speed.py [--resamples 10000] [--images 1000]

On the 59 TREC DL 2020 passage runs (frames, read once beforehand) x 4 measures, one process:
* pt.Experiment (reference);
* ours with bootstrap=None (target: within 1.2x of pt.Experiment);
* ours with the topic bootstrap, 10,000 resamples (target: within 2x);
* ours with the corpus bootstrap, 1,000 images (the factor is reported);
* the first call in a fresh process (numba compile included), empty and filled numba cache.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyterrier as pt

import pyterrier_boot as ptb

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
FOLDER = SHARED / "data" / "trec-dl-2020-passage"
MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]

FRESH = f"""
import time
start = time.perf_counter()
import pyterrier_boot as ptb
runs = ptb.read_runs({str(FOLDER / 'runs')!r})
qrels = ptb.read_qrels({str(FOLDER / 'qrels.dl20-passage.txt')!r}).frame
read = time.perf_counter()
ptb.Experiment(runs, None, qrels, {MEASURES!r}, n_resamples=10_000, rng=0)
print(f"{{read - start:.2f}} {{time.perf_counter() - read:.2f}}")
"""


def timed(fn, repeat=2):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def fresh_process():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = subprocess.run([sys.executable, "-W", "ignore", "-c", FRESH], env=env, capture_output=True,
                              text=True, check=True).stdout.split()
        warm = subprocess.run([sys.executable, "-W", "ignore", "-c", FRESH], env=env, capture_output=True,
                              text=True, check=True).stdout.split()
    print(f"fresh process, topic bootstrap (reading the 59 runs: {cold[0]} s, then Experiment): "
          f"{cold[1]} s with an empty numba cache (compile included), {warm[1]} s with it filled")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--images", type=int, default=1_000)
    args = parser.parse_args()
    if not FOLDER.exists():
        sys.exit(f"TREC DL 2020 data not found at {FOLDER} (set PYTERRIER_BOOT_SHARED)")
    runs = ptb.read_runs(FOLDER / "runs")
    qrels = ptb.read_qrels(FOLDER / "qrels.dl20-passage.txt").frame
    topics = pd.DataFrame({"qid": qrels["qid"].unique(), "query": "unused"})
    names, frames = list(runs), list(runs.values())
    ptb.Experiment(runs, topics, qrels, MEASURES, bootstrap=None)  # warm the numba cache

    reference = timed(lambda: pt.Experiment(frames, topics, qrels, MEASURES, names=names, baseline=0))
    print(f"pt.Experiment, 59 runs x 4 measures, baseline 0: {reference:.2f} s")
    rows = [
        ("bootstrap=None", dict(bootstrap=None), 1.2),
        (f"topic bootstrap, {args.resamples:,} resamples", dict(n_resamples=args.resamples), 2.0),
        (f"corpus bootstrap, {args.images:,} images", dict(bootstrap="corpus", n_resamples=args.images), None),
    ]
    for label, options, target in rows:
        repeat = 1 if "corpus" in label else 2
        seconds = timed(lambda options=options: ptb.Experiment(runs, topics, qrels, MEASURES, baseline=0, rng=0,
                                                               verbose=False, **options), repeat)
        verdict = "" if target is None else f" (target within {target}x: {'met' if seconds / reference <= target else 'NOT met'})"
        print(f"ours, {label}: {seconds:.2f} s = {seconds / reference:.2f}x pt.Experiment{verdict}")
    fresh_process()


if __name__ == "__main__":
    main()
