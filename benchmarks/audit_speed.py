"""Speed of ``audit_tests`` on a 30-system x 50-topic matrix (issue 35).

Workload: the first 30 runs of TREC-8 ad hoc (AP, 50 topics, Urbano et al.'s score matrix), 5
tests (t, Wilcoxon, sign, paired bootstrap, randomisation; 1,000 resamples each), 10,000 simulated
topic sets per topic count (random pairs, the null and 4 effect sizes on the same draws), families
of 5 systems (2,000 per topic count) under 5 corrections. Target: under 60 s warm on 2 cores.

Printed: the wall time, warm (the best of ``--repeat``), and this process's CPU time (on a shared
machine the CPU time is what one core needs; with ``--workers`` it leaves the workers out), the
phases of the last run (read, fit, pair simulations, family simulations), and the load average
before and after.

Usage: python benchmarks/audit_speed.py [--data ../shared/data] [--repeat 2] [--topics 50 ...]
       [--simulations 10000] [--workers 0]
"""
import argparse
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

import pyterrier_boot as pb

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--topics", type=int, nargs="+", default=[50])
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=0, help="a process pool of this many workers (0: none)")
    args = parser.parse_args()
    path = args.data / "urbano-sigir2019-scores" / "adhoc8_ap.csv"
    if not path.is_file():
        raise SystemExit(f"score matrix not found at {path} (pass --data or set PYTERRIER_BOOT_SHARED)")
    scores = pd.read_csv(path).iloc[:, :args.systems].T
    scores.columns = pd.Index([str(q) for q in range(scores.shape[1])], name="qid")
    print(f"data: {scores.shape[0]} systems x {scores.shape[1]} topics (AP), load average {os.getloadavg()}")
    executor = ProcessPoolExecutor(args.workers) if args.workers else None
    options = dict(measure="AP", n_topics=args.topics, n_simulations=args.simulations, n_resamples=1000,
                   rng=1, executor=executor, verbose=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.FitWarning)  # a fit outside its tolerance is shown by the table
        pb.audit_tests(scores, **dict(options, n_simulations=500))  # warm-up: imports, caches
        times, cpu = [], []
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            audit = pb.audit_tests(scores, **options)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    print(f"audit_tests, {args.simulations:,} simulations per topic count {args.topics}: best {min(times):.1f} s "
          f"wall of {[round(t, 1) for t in times]} (target < 60 s warm); CPU time of this process "
          f"{[round(t, 1) for t in cpu]} s (the work of one core, whatever the load; workers not counted)")
    print(f"phases of the last run: {audit.settings['phases']}")
    print(f"load average after: {os.getloadavg()}")
    if executor is not None:
        executor.shutdown()


if __name__ == "__main__":
    main()
