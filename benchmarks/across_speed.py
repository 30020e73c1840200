"""Speed and memory of across_collections (issue 34, item 5): 10 systems x 18 collections x 50-300
topics x 10,000 topic resamples, end to end from the runs in memory (evaluation, each collection's
topic bootstrap, the per-collection, average and pooled tables, both leaderboards), warm (numba's
kernels compiled, one untimed run first), best of three.

Target: under 10 s on 2 cores with 10 systems x 5 runs (seeds, ``seeds="random"``: each collection's
standard errors include the seed variance). Printed beside it, in the same run: the floor
of evaluating the same runs with no interval at all (``ptb.evaluate``, the mean scores a BEIR table
reports), the share spent on the analysis across collections once the collections' results exist,
the same call on an executor (identical numbers), and the peak memory (tracemalloc) for 1,000 to
30,000 resamples, with the load average.

Usage: python benchmarks/across_speed.py [--systems 10] [--runs 5] [--collections 18] [--resamples 10000] [--repeat 3]
"""
import argparse
import os
import time
import tracemalloc
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

import pyterrier_boot as ptb

MEASURE = "nDCG@10"


def collections(n_systems, n_collections, n_runs, seed=34):
    """Simulated collections of 50 .. 300 topics, systems S01.. whose effects vary by collection, each
    given as ``n_runs`` runs (seeds)."""
    rng = np.random.default_rng(seed)
    out = {}
    for c, n in enumerate(np.linspace(50, 300, n_collections).round().astype(int)):
        effectiveness = np.linspace(1.0, 1.6, n_systems) + rng.normal(0, 0.08, n_systems)
        sim = ptb.simulate_collection(n_topics=int(n), effectiveness=effectiveness, depth=100, pool_depth=20,
                                      corpus_size=20_000, rng=seed * 1000 + c,
                                      n_runs=n_runs, seed_sd=0.05 if n_runs > 1 else 0.0,
                                      seed_interaction_sd=0.05 if n_runs > 1 else 0.0)
        out[f"C{c:02d}"] = (sim.runs, sim.qrels)
    return out


def analysis(data, n_resamples, executor=None):
    res = ptb.across_collections(data, MEASURE, baseline="S01", n_resamples=n_resamples, executor=executor)
    tables = [res.per_collection(), res.average(), res.pooled(), res.leaderboard().to_frame(),
              res.leaderboard(which="pooled").to_frame()]
    return res, tables


def best(function, repeat):
    """``(wall seconds, CPU seconds of this process, output)`` of the fastest of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        out = function()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    wall, cpu = min(times)
    return wall, cpu, out


def memory(data, n_resamples):
    """``(peak, kept)`` MiB traced while the analysis runs from the runs, and held by its result
    afterwards."""
    tracemalloc.start()
    res, _ = analysis(data, n_resamples)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del res
    return peak / 2 ** 20, kept / 2 ** 20


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5, help="runs (seeds) per system")
    parser.add_argument("--collections", type=int, default=18)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    data = collections(args.systems, args.collections, args.runs)
    topics = [int(q["qid"].nunique()) for _, q in data.values()]
    print(f"{args.systems} systems x {args.collections} collections ({min(topics)}-{max(topics)} topics, "
          f"{sum(topics)} in all) x {args.resamples:,} resamples; {args.runs} runs per system")
    analysis(data, args.resamples)  # warm: numba kernels compiled and cached
    load = os.getloadavg()[0]
    total, total_cpu, (res, tables) = best(lambda: analysis(data, args.resamples), args.repeat)
    floor, floor_cpu, _ = best(lambda: [ptb.evaluate(runs, qrels, [MEASURE]) for runs, qrels in data.values()],
                               args.repeat)
    results = {name: ptb.experiment_result(runs, None, qrels, [MEASURE], n_resamples=args.resamples)
               for name, (runs, qrels) in data.items()}
    across, across_cpu, _ = best(lambda: analysis(results, args.resamples), args.repeat)
    print(f"end to end (evaluation, bootstrap, tables, two leaderboards): {total:.2f} s wall, {total_cpu:.2f} s CPU "
          "(target < 10 s)")
    print(f"floor, evaluating the same runs with no interval (ptb.evaluate): {floor:.2f} s wall, {floor_cpu:.2f} s "
          f"CPU -> end to end / floor {total / floor:.1f}x")
    print(f"of which the analysis across collections, the {len(results)} results given: {across:.3f} s wall, "
          f"{across_cpu:.3f} s CPU")
    with ProcessPoolExecutor(2) as pool:
        analysis(data, args.resamples, pool)  # warm the workers
        on_pool, _, (other, other_tables) = best(lambda: analysis(data, args.resamples, pool), args.repeat)
    same = all(a.equals(b) for a, b in zip(tables, other_tables, strict=True))
    print(f"on a 2-process pool: {on_pool:.2f} s, numbers identical: {same}")
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end (2 cores)")
    rows = [(b, *memory(data, b)) for b in (1_000, 10_000, 30_000)]
    print(pd.DataFrame(rows, columns=["resamples", "peak MiB", "kept by the result MiB"]).round(1)
          .to_string(index=False))


if __name__ == "__main__":
    main()
