"""Speed of the ``pyterrier-boot`` command, end to end, and where the time goes.

1. ``pyterrier-boot evaluate`` on the 59 TREC DL 2020 passage runs (59 gzipped files, 54 judged
   topics): nDCG@10 and AP(rel=2), all 1,711 pairs with Holm-corrected t-tests, topic bootstrap
   with 10,000 resamples, ``--out`` (tables and the HTML report with its plots). Wall time of the
   command as a user runs it (a new process: interpreter start, imports, reading the runs,
   everything), with and without the report. Target: under a minute.
2. The same steps timed one by one in this process (after a warm-up run), to show where the time
   goes.
3. Reference, in the same process: ir_measures computing just the two means of every run (what
   trec_eval gives), reading the same files with pandas.
4. ``pyterrier-boot demo``: with numba's cache warm, and cold (``NUMBA_CACHE_DIR`` pointed at an
   empty folder, so every kernel is compiled).

Usage: python benchmarks/cli_speed.py [--data ../shared/data] [--repeat 2] [--skip-demo]
"""
import argparse
import gzip
import io
import os
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"


def command(folder, out=None, n=10_000):
    argv = ["evaluate", "--qrels", str(folder / "qrels.dl20-passage.txt"), str(folder / "runs"),
            "--measures", "nDCG@10", "AP", "--rel", "2", "--correction", "holm", "--bootstrap", "topic",
            "--n", str(n), "--rng", "1", "--quiet"]
    return argv + (["--out", str(out)] if out is not None else [])


def wall(argv, env=None):
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pyterrier_boot", *argv], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"command failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def stages(folder, out):
    """The command's steps, timed in this process."""
    import numpy as np

    from pyterrier_boot.cli import _common
    from pyterrier_boot.cli.evaluate import print_result, write_outputs
    from pyterrier_boot.experiment.experiment import experiment_result

    times = {}
    t = time.perf_counter()
    qrels = _common.read_qrels(folder / "qrels.dl20-passage.txt", rel=2)
    runs = _common.read_runs([folder / "runs"], qrels)
    times["read qrels + 59 gzipped runs"] = time.perf_counter() - t
    measures = _common.parse_measures_rel(["nDCG@10", "AP"], 2)
    t = time.perf_counter()
    result = experiment_result(runs, None, qrels, measures, bootstrap="topic", n_resamples=10_000, rng=1)
    times["evaluate + 10,000 topic resamples (BCa)"] = time.perf_counter() - t
    t = time.perf_counter()
    pairwise = result.pairwise(test="t", correction="holm", rng=np.random.default_rng(1))
    times["1,711 pairs x 2 measures: t-tests, Holm, intervals"] = time.perf_counter() - t
    args = argparse.Namespace(format="table", alpha=0.05, digits=3, test="t", correction="holm", out=str(out),
                              no_plots=False, title=None)
    t = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        print_result(result, pairwise, args, 1, qrels)
    times["terminal table"] = time.perf_counter() - t
    t = time.perf_counter()
    with _common.OutputFolder(out, command="evaluate", overwrite=True) as staging:
        write_outputs(staging, result, pairwise, args, {"seed": "1"}, 1, _common.Status(False))
    times["tables + HTML report with 8 plots"] = time.perf_counter() - t
    return times


def reference(folder):
    """ir_measures: the two means of each run, nothing else."""
    import ir_measures
    import pandas as pd

    t = time.perf_counter()
    qrels = pd.read_csv(folder / "qrels.dl20-passage.txt", sep=r"\s+", header=None,
                        names=["query_id", "iteration", "doc_id", "relevance"], dtype={0: str, 2: str, 3: int})
    measures = [ir_measures.parse_measure("nDCG@10"), ir_measures.parse_measure("AP(rel=2)")]
    evaluator = ir_measures.evaluator(measures, qrels)
    for path in sorted((folder / "runs").iterdir()):
        with gzip.open(path, "rt") as f:
            run = pd.read_csv(f, sep=r"\s+", header=None, usecols=[0, 2, 4], names=["query_id", "doc_id", "score"],
                              dtype={0: str, 2: str, 4: float})
        evaluator.calc_aggregate(run)
    return time.perf_counter() - t


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    folder = args.data / "trec-dl-2020-passage"
    if not folder.is_dir():
        raise SystemExit(f"DL 2020 data not found at {folder}")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        wall(command(folder, n=200))  # warm numba's cache and the file cache
        print("\n1. pyterrier-boot evaluate, DL 2020, 59 runs, 2 measures, all pairs, 10,000 topic resamples")
        for i in range(args.repeat):
            full = wall(command(folder, tmp / f"out{i}"))
            table = wall(command(folder))
            print(f"   run {i + 1}: with --out (tables + report): {full:6.1f} s   terminal table only: {table:6.1f} s")
        size = (tmp / "out0" / "report.html").stat().st_size
        print(f"   report.html: {size / 1e6:.1f} MB")

        print("\n2. where the time goes (in process, after a warm-up)")
        times = stages(folder, tmp / "stages")
        total = sum(times.values())
        for name, seconds in times.items():
            print(f"   {name:<52} {seconds:6.2f} s  ({100 * seconds / total:4.1f}%)")
        print(f"   {'total (without interpreter start and imports)':<52} {total:6.2f} s")

        print("\n3. reference: ir_measures, the two means of every run only (read + evaluate)")
        ref = reference(folder)
        print(f"   {ref:.2f} s; the whole pyterrier-boot pipeline above is {total / ref:.1f}x that")

        if not args.skip_demo:
            print("\n4. pyterrier-boot demo (6 systems x 50 topics, 10,000 topic resamples, 1,000 corpus images)")
            wall(["demo", "--out", str(tmp / "demo-warmup"), "--quiet"])
            warm = wall(["demo", "--out", str(tmp / "demo-warm"), "--quiet"])
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, NUMBA_CACHE_DIR=cache)
                cold = wall(["demo", "--out", str(tmp / "demo-cold"), "--quiet"], env=env)
            print(f"   warm numba cache: {warm:5.1f} s   cold (every kernel compiled): {cold:5.1f} s")


if __name__ == "__main__":
    main()
