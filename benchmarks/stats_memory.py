"""Peak memory and time of compare's all-pairs tests, in one process and on a process pool.

Workload (issue #14): 200 simulated systems x 250 topics, all 19,900 pairs, 10,000 topic resamples,
Sakai's paired bootstrap test (the default) on one measure. Materialising the null distributions
of every pair would take ``19,900 x 10,000 x 8`` bytes = 1.5 GiB; compare streams the pairs in
chunks of at most ``CHUNK_CELLS`` resampled values and keeps only per-pair summaries.

Each configuration runs in a fresh subprocess; we print its peak RSS (the parent, and the largest
worker), the part of it above the RSS of the same process just before the call (data loaded, imports
done, a 3-system compare run; the floor), the ratio of that growth to the 1.5 GiB of null distributions, the wall
time, and the time on ``ProcessPoolExecutor(2)`` as a ratio to the one-process time measured in
the same run. A third run with a randomisation test checks that the two tables are identical.

Usage: python benchmarks/stats_memory.py [--systems 200] [--topics 250] [--resamples 10000]
       [--test paired_bootstrap]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def _current_rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _scores(systems, topics):
    import pandas as pd

    rng = np.random.default_rng(14)
    topic = rng.beta(2, 5, topics)
    values = np.clip(topic + rng.normal(0, 0.03, (systems, 1)) + rng.normal(0, 0.08, (systems, topics)), 0, 1)
    return pd.DataFrame(values, index=[f"run{i:04d}" for i in range(systems)],
                        columns=pd.Index([f"q{j}" for j in range(topics)], name="qid"))


def one(args):
    """One configuration, in this (fresh) process: prints a JSON line."""
    import warnings
    from concurrent.futures import ProcessPoolExecutor

    import pyterrier_boot as ptb

    scores = _scores(args.systems, args.topics)
    with warnings.catch_warnings():  # load what compare imports lazily, so the floor holds it
        warnings.simplefilter("ignore")
        ptb.compare({"AP": scores.iloc[:3]}, test=args.test, n_resamples=100, rng=1)
    floor = _current_rss_mib()
    pool = ProcessPoolExecutor(args.workers) if args.workers else None
    if pool is not None:  # start the workers before timing (a long job pays this once)
        list(pool.map(abs, range(args.workers)))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ptb.compare({"AP": scores}, test=args.test, n_resamples=args.resamples, rng=1,
                            correction="fdr_bh", executor=pool)
    seconds = time.perf_counter() - start
    if pool is not None:
        pool.shutdown()
    digest = float(np.nansum(table["p-value"].to_numpy() * np.arange(1, len(table) + 1)))
    print(json.dumps({"seconds": seconds, "peak_mib": _rss_mib(), "floor_mib": floor,
                      "workers_peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**10,
                      "digest": digest, "rows": len(table)}))


def run(args, workers):
    command = [sys.executable, __file__, "--one", "--workers", str(workers), "--systems", str(args.systems),
               "--topics", str(args.topics), "--resamples", str(args.resamples), "--test", args.test]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--test", default="paired_bootstrap")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return one(args)
    pairs = args.systems * (args.systems - 1) // 2
    whole = pairs * args.resamples * 8 / 2**20
    print(f"compare(test={args.test!r}) of {args.systems} systems x {args.topics} topics, {pairs:,} pairs, "
          f"{args.resamples:,} resamples; null distributions of every pair would be {whole:,.0f} MiB; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    here = run(args, 0)
    pool = run(args, 2)
    for label, r in (("executor=None", here), ("ProcessPoolExecutor(2)", pool)):
        growth = r["peak_mib"] - r["floor_mib"]
        workers = f", largest worker {r['workers_peak_mib']:,.0f} MiB" if r["workers_peak_mib"] else ""
        print(f"  {label:24s} {r['seconds']:7.1f} s   peak RSS {r['peak_mib']:,.0f} MiB (floor {r['floor_mib']:,.0f}, "
              f"growth {growth:,.0f} MiB = {growth / whole:.3f} x the null distributions){workers}")
    print(f"  time ratio pool/none: {pool['seconds'] / here['seconds']:.2f}; identical tables: "
          f"{here['digest'] == pool['digest'] and here['rows'] == pool['rows']}; load average now "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
