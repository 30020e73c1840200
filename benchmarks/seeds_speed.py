"""Speed and memory of systems given as several runs (seeds): issue 34's item 5 for seeds.

Workload: 10 systems x 5 runs (50 runs) x 300 topics, depth 100, simulated
(``simulate_collection(n_runs=5, seed_sd=..., seed_interaction_sd=...)``), measure AP,
10,000 topic resamples, ``seeds="random"``. Timed warm (a first call compiles and caches the
kernels), best of ``--repeat``, in one process:

* ``experiment_result(..., bootstrap=None)``: reading and evaluating the 50 runs, no statistics;
* ``experiment_result(..., baseline=0)``: the same with every mean's interval (bootstrap-t with the
  generalized seed term), the replicates for rank intervals and the 9 baseline tests;
* ``leaderboard(...)``: all of it plus the 45 pairs' tests, letters and rank intervals;
* the statistics alone: the leaderboard's time minus the evaluation's;
* ``leaderboard(..., executor=ThreadPoolExecutor(2))``: the same numbers (checked), and its time.

Memory: for B = 1,000, 10,000 and 50,000 resamples, a fresh subprocess builds the collection,
records its resident memory, runs the leaderboard and reports the peak's growth over that floor;
beside it the bytes the result keeps per resample (the plan's topic indices and the replicates).

Usage: python benchmarks/seeds_speed.py [--repeat 3] [--resamples 10000] [--memory]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

SYSTEMS, RUNS, TOPICS = 10, 5, 300


def collection():
    import pyterrier_boot as ptb

    return ptb.simulate_collection(n_topics=TOPICS, n_systems=SYSTEMS, n_runs=RUNS, seed_sd=0.1,
                                   seed_interaction_sd=0.2, corpus_size=20_000, matching=300, depth=100,
                                   pool_depth=10, rng=34)


def _best(call, repeat):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - started)
    return min(times), out


def speed(args):
    import warnings

    import numpy as np

    import pyterrier_boot as ptb

    sim = collection()
    runs, qrels = sim.runs, sim.qrels
    B = args.resamples
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # simulated topics with few relevant documents: not the point here
        ptb.leaderboard(runs, qrels, ["AP"], n_resamples=200)  # warm: kernels compiled and cached
        evaluation, _ = _best(lambda: ptb.experiment_result(runs, None, qrels, ["AP"], bootstrap=None), args.repeat)
        baseline, _ = _best(lambda: ptb.experiment_result(runs, None, qrels, ["AP"], baseline=0, n_resamples=B),
                            args.repeat)
        board_time, board = _best(lambda: ptb.leaderboard(runs, qrels, ["AP"], n_resamples=B), args.repeat)
        with ThreadPoolExecutor(2) as pool:
            pooled_time, pooled = _best(lambda: ptb.leaderboard(runs, qrels, ["AP"], n_resamples=B, executor=pool),
                                        args.repeat)
    same = board.to_frame().equals(pooled.to_frame()) and np.array_equal(board.result.distribution_,
                                                                          pooled.result.distribution_)
    load = os.getloadavg()
    print(f"{SYSTEMS} systems x {RUNS} runs x {TOPICS} topics, AP, {B:,} resamples, seeds='random'; "
          f"load average {load[0]:.1f} / {load[1]:.1f} on {os.cpu_count()} cores; best of {args.repeat}, warm")
    print(f"  evaluation only (bootstrap=None)            {evaluation:7.2f} s")
    print(f"  experiment_result, baseline (9 tests)       {baseline:7.2f} s")
    print(f"  leaderboard (45 pairs, letters, ranks)      {board_time:7.2f} s")
    print(f"  statistics alone (leaderboard - evaluation) {board_time - evaluation:7.2f} s")
    print(f"  leaderboard on ThreadPoolExecutor(2)        {pooled_time:7.2f} s  (identical numbers: {same})")


def memory_child(B, seeds):
    """Peak RSS growth (MiB) of one leaderboard with B resamples over the floor before it."""
    import warnings

    import pyterrier_boot as ptb

    sim = collection()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=200)
        with open("/proc/self/statm") as f:
            floor = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
        peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        board = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=B, seeds=seeds)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    kept = (board.result.plan.indices.nbytes + board.result.distribution_.nbytes
            + board.ranks.bootstrap_distribution.nbytes) / 2**20
    print(json.dumps({"B": B, "growth": peak - max(floor, 0), "peak_before": peak_before, "peak": peak,
                      "kept": kept}))


def memory(args):
    print("peak resident memory of one leaderboard over the floor before it (fresh process per B); "
          "seeds='fixed' (today's topic bootstrap on run-averaged scores) is the reference:")
    for B in (1_000, 10_000, 50_000):
        for seeds in ("fixed", "random"):
            out = subprocess.run([sys.executable, __file__, "--child", str(B), "--seeds", seeds], capture_output=True,
                                 text=True, check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"  B = {B:>6,}, seeds={seeds!r:8}: growth {row['growth']:6.1f} MiB; the result keeps "
                  f"{row['kept']:5.1f} MiB (plan, replicates, rank replicates); growth - kept "
                  f"{row['growth'] - row['kept']:5.1f} MiB")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seeds", default="random", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        memory_child(args.child, args.seeds)
        return
    speed(args)
    if args.memory:
        memory(args)


if __name__ == "__main__":
    main()
