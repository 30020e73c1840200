"""Peak memory and time of the corpus bootstrap of every TREC DL 2020 passage run, in one process
and on executors.

Workload: the 59 official runs x 54 judged topics (up to 1,000 passages per ranking, 377k distinct
passages), 1,000 Poisson images, AP(rel=2) and nDCG@10. Every figure comes from a fresh process
whose peak resident size is read with ``resource.getrusage(RUSAGE_CHILDREN)`` by a parent that
ran nothing else (for an executor: the largest of the main process and its workers):

* ``library``: read and intern the runs and qrels, ``CorpusBootstrap(...).evaluate_prepared(...)``
  (the full corpus, the jackknife and every image) in this process;
* ``processes``: the same with ``executor=ProcessPoolExecutor(2)``;
* ``dask``: the same on a dask.distributed ``LocalCluster`` of 2 worker processes
  (``Client.get_executor()``), when dask is installed; ``dask-256M`` with ``max_memory=2**28``,
  which lets fewer batches (each carrying the interned arrays) wait in this process;
* ``cli``: ``pyterrier-boot evaluate --bootstrap corpus --n 1000`` end to end (all 1,711 pairs
  tested on the images, the table printed).

References measured in the same run, so the ratios hold on a loaded machine: ``floor`` is a fresh
process that only imports the package and reads the runs and qrels (memory no corpus bootstrap can
avoid), and the time of one evaluation of every interned run on the full corpus (the work of one
image; the median of 7), so the bootstrap's time reads as a number of such evaluations, and
every executor's time as a ratio to ``library``'s.
The goal of issue 14: under 2 GB peak. Every executor's values are checked equal to ``library``'s.

Usage: python benchmarks/corpus_memory.py [--data ../shared/data] [--images 1000] [--modes library processes dask cli]
"""
import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MEASURES = ["AP(rel=2)", "nDCG@10"]
GOAL_BYTES = 2 * 10**9
MODES = ("floor", "library", "processes", "dask", "dask-256M", "cli")


def _read(folder):
    from pyterrier_boot import read_qrels, read_runs

    return read_runs(folder / "runs"), read_qrels(folder / "qrels.dl20-passage.txt")


def _executor(mode):
    from contextlib import nullcontext

    if mode == "processes":
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(2)
    if mode.startswith("dask"):
        from pyterrier_boot._batches import executor_from

        return executor_from(2, "dask")
    return nullcontext()


def child(mode, folder, images):
    """Run one mode in this (fresh) process; print a JSON line of its timings."""
    start = time.perf_counter()
    runs, qrels = _read(folder)
    out = {"read": time.perf_counter() - start}
    if mode == "floor":
        print(json.dumps(out))
        return
    import numpy as np

    from pyterrier_boot import CorpusBootstrap
    from pyterrier_boot.measures.evaluation import prepare

    start = time.perf_counter()
    evaluator, qrels = prepare(runs, qrels, MEASURES, verbose=False)
    out["intern"] = time.perf_counter() - start
    identity = np.ones((1, evaluator.arrays.n_docs), np.int32)
    evaluator.evaluate(identity)  # numba's cache loaded
    times = []
    for _ in range(7):
        start = time.perf_counter()
        evaluator.evaluate(identity)
        times.append(time.perf_counter() - start)
    out["one_image"] = sorted(times)[3]  # the median, robust to a busy moment
    with _executor(mode) as executor:
        start = time.perf_counter()
        budget = {"max_memory": 2**28} if mode == "dask-256M" else {}  # fewer batches in flight
        boot = CorpusBootstrap(qrels, n_images=images, rng=1, verbose=False, executor=executor, **budget)
        res = boot.evaluate_prepared(evaluator)
        out["bootstrap"] = time.perf_counter() - start
    out["digest"] = hashlib.sha256(res.bootstrap_distribution.tobytes()).hexdigest()[:16]
    out["distribution_bytes"] = res.bootstrap_distribution.nbytes
    out["documents"] = len(res.documents)
    print(json.dumps(out))


def measure(argv):
    """Run ``argv`` as the only child of this process; print its JSON line with wall time and peak RSS."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        print(json.dumps({"error": done.stderr[-2000:]}))
        return
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    out = json.loads(lines[-1]) if lines else {}
    out["wall"] = wall
    out["peak_rss"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
    print(json.dumps(out))


def run_mode(mode, folder, images):
    """Peak RSS and timings of ``mode``, measured by an intermediate process that runs only it."""
    if mode == "cli":
        work = [sys.executable, "-m", "pyterrier_boot", "evaluate", "-q", str(folder / "qrels.dl20-passage.txt"),
                str(folder / "runs"), "--bootstrap", "corpus", "--n", str(images), "--rng", "1", "--quiet",
                "-m", *MEASURES]
    else:
        work = [sys.executable, __file__, "--child", mode, "--data", str(folder.parent), "--images", str(images)]
    done = subprocess.run([sys.executable, __file__, "--measure", json.dumps(work)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def report(results, images):
    floor = results["floor"]
    print(f"floor (import, read 59 runs + qrels): peak RSS {floor['peak_rss'] / 2**30:.2f} GiB, "
          f"{floor['wall']:.1f} s")
    reference = results.get("library", {})
    for mode, out in results.items():
        if mode == "floor":
            continue
        if "error" in out:
            print(f"{mode}: failed: {out['error'][-300:]}")
            continue
        peak = out["peak_rss"]
        line = (f"{mode:10s}: peak RSS {peak / 2**30:.2f} GiB ({peak / floor['peak_rss']:.1f}x floor; goal < 2 GB: "
                f"{'met' if peak < GOAL_BYTES else 'NOT met'}), wall {out['wall']:.1f} s")
        if "bootstrap" in out:
            line += (f"; {images} images {out['bootstrap']:.1f} s = {out['bootstrap'] / out['one_image']:.0f}x one "
                     f"full-corpus evaluation ({out['one_image']:.3f} s)")
        if mode not in ("library", "cli") and "digest" in reference:
            line += (f"; {out['bootstrap'] / reference['bootstrap']:.2f}x library's time; values "
                     f"{'identical to' if out['digest'] == reference['digest'] else 'DIFFERENT from'} library")
        print(line)
    if "documents" in reference:
        print(f"kept: the image distribution {reference['distribution_bytes'] / 2**20:.0f} MiB "
              f"[{images} images x 59 runs x 54 topics x 2 measures, float64]; {reference['documents']:,} documents seen")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--modes", nargs="+", choices=MODES[1:], default=list(MODES[1:]))
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    folder = args.data / "trec-dl-2020-passage"
    if args.measure:
        measure(json.loads(args.measure))
        return 0
    if args.child:
        child(args.child, folder, args.images)
        return 0
    if not folder.exists():
        print(f"TREC DL 2020 data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1
    print(f"machine: {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}")
    results = {"floor": run_mode("floor", folder, args.images)}
    for mode in args.modes:
        results[mode] = run_mode(mode, folder, args.images)
    report(results, args.images)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
