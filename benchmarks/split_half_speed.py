"""Speed of ``split_half_validation``: CPU and wall time, and where the time goes.

TREC 2003 Robust (17 runs x 100 topics), AP, ``--splits`` random document splits x 2 halves x
``--images`` Poisson images, every kind of row (per topic, per system, paired differences of every
pair, per-topic differences), reading and interning included. Prints the wall time, the CPU time of
the process (all threads: the measure kernels run on ``NUMBA_NUM_THREADS`` threads) and the load
average, then the CPU time of each step of one split (interning, bootstrapping one half, each kind
of interval check). On a shared machine the wall time depends on the load; the CPU time does not.

Usage: python benchmarks/split_half_speed.py [--data ../shared/data] [--splits 20] [--images 100]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"


def cpu_time(function, repeat=1):
    """Mean CPU seconds of ``function()`` over ``repeat`` calls, and its last result."""
    start = time.process_time()
    for _ in range(repeat):
        result = function()
    return (time.process_time() - start) / repeat, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--images", type=int, default=100)
    args = parser.parse_args(argv)
    folder = args.data / "trec-robust2003"
    if not folder.exists():
        print(f"TREC 2003 Robust not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1
    runs, qrels = folder / "runs", folder / "qrels.robust2003.txt.gz"

    import numba

    from pyterrier_boot import DegenerateWarning, split_half_validation
    from pyterrier_boot.corpus.bootstrap import CorpusBootstrap
    from pyterrier_boot.corpus.multiplicity import docno_hashes, salted_bits
    from pyterrier_boot.corpus.validation import KINDS, _split_rows
    from pyterrier_boot.measures.evaluation import prepare

    warnings.simplefilter("ignore", DegenerateWarning)
    warnings.simplefilter("ignore", UserWarning)
    split_half_validation(runs, qrels, ["AP"], n_splits=2, n_images=10, rng=0, verbose=False)  # compile, warm caches

    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    split_half_validation(runs, qrels, ["AP"], n_splits=args.splits, n_images=args.images, rng=1, verbose=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"split_half_validation, Robust 2003 (17 runs x 100 topics), AP, {args.splits} splits x 2 halves x "
          f"{args.images} images, every row: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({numba.get_num_threads()} kernel threads; load average {load:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at end)")

    print("\nCPU time of each step:")
    read_seconds, (evaluator, read) = cpu_time(lambda: prepare(runs, qrels, ["AP"], verbose=False))
    print(f"  read and intern the runs and qrels (once): {read_seconds:.2f} s")
    hashes = docno_hashes(evaluator.arrays.docnos)
    in_a = salted_bits(hashes, 12345) == 0
    boot = CorpusBootstrap(read, n_images=args.images, rng=1, verbose=False)
    seconds, _ = cpu_time(lambda: evaluator.arrays.restrict(in_a), 3)
    print(f"  restrict the interned data to a half: {seconds:.3f} s")
    half_seconds, half_a = cpu_time(lambda: boot.evaluate_prepared(evaluator, keep=in_a, hashes=hashes), 2)
    print(f"  bootstrap one half ({args.images} images + {boot.n_groups} jackknife collections): {half_seconds:.2f} s")
    half_b = boot.evaluate_prepared(evaluator, keep=~in_a, hashes=hashes)
    checks = 0.0
    for kind in KINDS:
        seconds, _ = cpu_time(lambda k=kind: _split_rows(half_a, half_b, ("AP",), 0.95, 1e-5, (k,)), 2)
        checks += seconds
        print(f"  interval checks, {kind}: {seconds:.3f} s per split")
    floor = 2 * args.splits * half_seconds
    print(f"\nfloor (the {2 * args.splits} half bootstraps alone, timed above): {floor:.1f} s CPU; the whole run "
          f"took {cpu / floor:.2f} x the floor (interval checks {args.splits * checks:.1f} s, reading {read_seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
