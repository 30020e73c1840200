"""Start-up: the first ``evaluate`` in a fresh process, with numba's cache filled and empty (run by hand).

    python benchmarks/startup_speed.py [--repeat 5] [--cold-repeat 3]

Every figure is the best of ``--repeat`` fresh processes (``--cold-repeat`` for the empty cache,
each compiling), timed inside the process from ``import pyterrier_boot`` to the result, numpy and
pandas being imported before (as in a session), wall and CPU time; beside them, measured in the
same run:

* the floor: a fresh ``python -c "import numpy, pandas"``, timed from outside (the whole process);
* numba's own start: ``import numba`` and the initialisation of its CPU target, which loading any
  cached kernel does first (numba then imports its implementation registries, scipy.linalg's
  BLAS among them): the least a call running a compiled kernel can cost; and, within it, the
  import of scipy.linalg's BLAS and LAPACK (timed after ``import numba``);
* ``import pyterrier`` (which loads pyterrier_boot through its entry point), and the heavy
  modules it has loaded by then.

The processes cache Python's bytecode (in a temporary folder), as an installed package has it; one
row shows the same call where Python compiles pyterrier_boot's sources in every process (a
checkout run with ``PYTHONDONTWRITEBYTECODE=1``, as on this project's machines).

Two calls: ``evaluate(run, qrels, ["AP"])`` on a one-document run (issue 33's measurement; with
the cache filled also timed after numba's start, in the set-up: what is pyterrier_boot's own) and
``evaluate`` of one TREC DL 2020 run (50,024 rows) on AP(rel=2), nDCG@10, P(rel=2)@10 and
RR(rel=2), the run and qrels read before the clock starts. Targets (issue 33, idle machine): the
tiny call under 0.4 s with the cache filled and under 2.5 s with it empty. The machine is
shared: the load average is printed with each table and the ratios to the floor carry over to
an idle machine better than the seconds do.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DL = SHARED / "data" / "trec-dl-2020-passage"
PYCACHE = ""  # set by main: Python's bytecode cache for the fresh processes
HEAVY = ("numba", "scipy", "scipy.stats", "statsmodels", "ir_measures", "matplotlib", "pyterrier_boot.measures")

CLOCK = """
import sys, time
import numpy as np
import pandas as pd
{setup}
wall, cpu = time.perf_counter(), time.process_time()
{timed}
print(time.perf_counter() - wall, time.process_time() - cpu)
"""
TINY = ("qrels = pd.DataFrame({'qid': ['1'], 'docno': ['a'], 'label': [1]})\n"
        "run = pd.DataFrame({'qid': ['1'], 'docno': ['a'], 'score': [1.0]})")
REAL = (f"qrels = pd.read_csv({str(DL / 'qrels.dl20-passage.txt')!r}, sep=' ', header=None, "
        "names=['qid', 'iteration', 'docno', 'label'], dtype={'qid': str, 'docno': str})\n"
        f"run = pd.read_csv({str(DL / 'runs' / 'input.1.gz')!r}, sep=r'\\s+', header=None, "
        "names=['qid', 'Q0', 'docno', 'rank', 'score', 'tag'], dtype={'qid': str, 'docno': str})")
EVALUATE = "from pyterrier_boot import evaluate\nevaluate(run, qrels, {measures!r})"
NUMBA = "import numba\nfrom numba.core.registry import cpu_target\ncpu_target.target_context.refresh()"
BLAS = "import scipy.linalg.cython_blas, scipy.linalg.cython_lapack"
PYTERRIER = ("import pyterrier\n"
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules) or '-', file=sys.stderr)")


def load():
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def installed(**variables):
    """The environment of the processes: Python's bytecode cached (in ``PYCACHE``, a temporary folder)
    as it is for an installed package, even where ``PYTHONDONTWRITEBYTECODE`` is set (then every process
    would compile pyterrier_boot's sources again, which an installed package never does)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return dict(env, PYTHONPYCACHEPREFIX=PYCACHE, **variables)


def fresh(code, env=None):
    """``(wall, cpu, stderr)`` that a fresh process running ``code`` prints (its clocked section)."""
    env = env or installed()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    wall, cpu = (float(x) for x in done.stdout.split()[-2:])
    return wall, cpu, done.stderr.strip()


def best(code, repeat, env=None):
    fresh(code, env)  # Python's bytecode (and numba's cache, when env has one) filled
    runs = [fresh(code, env) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[-1][2]


def floor(repeat):
    """The whole of ``python -c "import numpy, pandas"``, timed from outside, best of ``repeat``."""
    walls = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy, pandas"], env=installed(), check=True)
        walls.append(time.perf_counter() - start)
    return min(walls[1:])


def row(label, wall, cpu, reference, target=None):
    verdict = "" if target is None else f"   target < {target} s idle"
    print(f"  {label:<52} {wall:6.2f} s wall {cpu:6.2f} s CPU {wall / reference:6.2f}x floor{verdict}")


def calls(repeat, cold_repeat, reference):
    cases = [("tiny: evaluate(1-document run, ['AP'])", TINY, ["AP"], (0.4, 2.5))]
    if DL.exists():
        cases.append(("DL 2020 run, 50,024 rows, 4 measures", REAL, ["AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RR(rel=2)"],
                      (None, None)))
    for label, setup, measures, (warm_target, cold_target) in cases:
        code = CLOCK.format(setup=setup, timed=EVALUATE.format(measures=measures))
        cold = []
        for _ in range(cold_repeat):
            with tempfile.TemporaryDirectory() as cache:
                cold.append(fresh(code, installed(NUMBA_CACHE_DIR=cache)))
        with tempfile.TemporaryDirectory() as cache:
            warm = best(code, repeat, installed(NUMBA_CACHE_DIR=cache))
            sources = best(code, repeat, dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONDONTWRITEBYTECODE="1"))
            ours = best(CLOCK.format(setup=f"{setup}\n{NUMBA}", timed=EVALUATE.format(measures=measures)), repeat,
                        installed(NUMBA_CACHE_DIR=cache))
        print(f" {label} ({load()})")
        row("numba's cache filled", warm[0], warm[1], reference, warm_target)
        row("  the same after numba's start (ours only)", ours[0], ours[1], reference)
        row("  the same, Python compiling our sources (no bytecode)", sources[0], sources[1], reference)
        row("numba's cache empty (compiling)", min(c[0] for c in cold), min(c[1] for c in cold), reference, cold_target)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold-repeat", type=int, default=3)
    args = parser.parse_args()
    global PYCACHE
    PYCACHE = tempfile.mkdtemp(prefix="pycache_")
    try:
        measure(args)
    finally:
        shutil.rmtree(PYCACHE, ignore_errors=True)


def measure(args):
    fresh(CLOCK.format(setup=f"{NUMBA}\nimport pyterrier", timed="from pyterrier_boot import evaluate"))  # bytecode
    print(f"{load()} at start; best of {args.repeat} fresh processes ({args.cold_repeat} with an empty cache)")
    reference = floor(args.repeat)
    label = 'floor: python -c "import numpy, pandas" (whole process)'
    print(f"  {label:<52} {reference:6.2f} s wall")
    wall, cpu, _ = best(CLOCK.format(setup="", timed=NUMBA), args.repeat)
    row("numba's start: import numba, CPU target initialised", wall, cpu, reference)
    wall, cpu, _ = best(CLOCK.format(setup="import numba", timed=BLAS), args.repeat)
    row("  within it: scipy.linalg's BLAS, LAPACK (after numba)", wall, cpu, reference)
    wall, cpu, loaded = best(CLOCK.format(setup="", timed=PYTERRIER), args.repeat)
    row("import pyterrier (pyterrier_boot through its entry point)", wall, cpu, reference)
    print(f"  {'':<52} heavy modules then loaded: {loaded}")
    calls(args.repeat, args.cold_repeat, reference)
    print(load())


if __name__ == "__main__":
    main()
