"""Peak memory of ``pyterrier-boot evaluate`` at scale (issue 14, item 4's first target; run by hand).

    python benchmarks/memory_scale.py [--runs 200] [--topics 250] [--depth 100 1000] [--n 10000]

For each depth, simulated runs (``--runs`` systems x ``--topics`` topics x ``depth`` documents per
ranking, drawn from a per-topic pool so that runs overlap as real ones do) and their qrels are
written as TREC files to a temporary folder; then, each in a fresh process, with peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN)``) and wall time:

1. ``pyterrier-boot evaluate`` with 2 measures, 10,000 topic resamples, all pairs (the command a
   user runs; target: under 1.5 GB at either depth).
2. The floor: ``ptb.compare`` on the (systems x topics) score matrices of the same two measures,
   same test and resamples (what the statistics alone hold).
3. Reading the runs alone (``read_runs``) and reading + interning (``JudgedRuns.build``), to show
   where the memory goes.

Prints each figure and its ratio to the floor measured in the same run (robust to load).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = ["nDCG@10", "AP(rel=2)"]


def write_collection(folder: Path, n_runs: int, n_topics: int, depth: int, seed: int = 1) -> Path:
    """``n_runs`` TREC run files and a qrels file in ``folder``: per topic a pool of ``3 * depth``
    documents with latent relevance; each run scores the pool with its own noise and keeps its top
    ``depth``; qrels judge 200 documents per topic (grades 0..3)."""
    rng = np.random.default_rng(seed)
    pool = 3 * depth
    runs_dir = folder / "runs"
    runs_dir.mkdir(parents=True)
    docno = np.array([f"D{t:04d}-{j:05d}" for t in range(n_topics) for j in range(pool)]).reshape(n_topics, pool)
    latent = rng.gamma(0.3, 1.0, (n_topics, pool))
    grades = np.minimum(np.floor(latent * 1.5), 3).astype(int)
    judged = np.argsort(-(latent + rng.normal(0, 0.5, latent.shape)), axis=1)[:, :200]
    with open(folder / "qrels.txt", "w") as f:
        for t in range(n_topics):
            f.writelines(f"{t + 1} 0 {docno[t, j]} {grades[t, j]}\n" for j in judged[t])
    qids = np.repeat(np.arange(1, n_topics + 1), depth).astype(str)
    ranks = np.tile(np.arange(1, depth + 1), n_topics).astype(str)
    for s in range(n_runs):
        skill = rng.uniform(0.2, 1.0)
        scores = skill * latent + rng.normal(0, 1.0, latent.shape)
        top = np.argsort(-scores, axis=1)[:, :depth]
        docs = np.take_along_axis(docno, top, axis=1).reshape(-1)
        vals = np.char.mod("%.6f", np.take_along_axis(scores, top, axis=1).reshape(-1))
        tag = f"sys{s:03d}"
        lines = np.char.add(np.char.add(np.char.add(qids, " Q0 "), docs), " ")
        lines = np.char.add(np.char.add(np.char.add(lines, ranks), " "), vals)
        with open(runs_dir / f"{tag}.txt", "w") as f:
            f.write(f" {tag}\n".join(lines.tolist()) + f" {tag}\n")
    return folder


EVALUATE = "from pyterrier_boot.cli import main; sys.exit(main(ARGV))"

SCORES = """
import numpy as np
from pyterrier_boot import evaluate
long = evaluate([FOLDER + '/runs'], FOLDER + '/qrels.txt', MEASURES)
np.savez(FOLDER + '/scores.npz', **{m: g.pivot(index='name', columns='qid', values='value').to_numpy()
                                    for m, g in long.groupby('measure')})
"""

FLOOR = """
import numpy as np
import pyterrier_boot as ptb
scores = dict(np.load(FOLDER + '/scores.npz'))
ptb.compare(scores, test='t', correction='holm', n_resamples=N, rng=np.random.default_rng(1))
"""

READ = """
from pyterrier_boot import read_qrels, read_runs
runs = read_runs(FOLDER + '/runs'); qrels = read_qrels(FOLDER + '/qrels.txt')
if INTERN:
    from pyterrier_boot.measures.arrays import JudgedRuns
    arrays = JudgedRuns.build(runs, qrels.frame)
"""

# the child's peak, measured by a parent of its own (ru_maxrss of RUSAGE_CHILDREN is the largest child so far)
WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run([sys.executable, '-c', sys.argv[1]], capture_output=True, text=True)
if done.returncode:
    sys.exit(done.stderr[-3000:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - start)
"""


def measure(code: str) -> tuple[float, float]:
    """Run ``code`` in a fresh interpreter: ``(its peak resident memory in GB, wall seconds)``."""
    # run from a neutral folder: `python -c` puts the working directory first on sys.path
    done = subprocess.run([sys.executable, "-c", WRAPPER, "import sys\n" + code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())
    if done.returncode != 0:
        raise SystemExit(f"failed:\n{done.stderr[-3000:]}")
    peak_kb, elapsed = done.stdout.split()[-2:]
    return int(peak_kb) / 2**20, float(elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--skip-parts", action="store_true", help="only the command and the floor")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}; {os.cpu_count()} cores")
    for depth in sorted(args.depth):
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            folder = write_collection(Path(tmp), args.runs, args.topics, depth)
            print(f"\n{args.runs} runs x {args.topics} topics x {depth} documents (written in "
                  f"{time.perf_counter() - t:.0f} s)")
            one_depth(folder, args)


def one_depth(folder: Path, args: argparse.Namespace) -> None:
    prelude = f"FOLDER = {str(folder)!r}; MEASURES = {MEASURES!r}; N = {args.n}\n"
    measure(prelude + SCORES)
    floor, floor_time = measure(prelude + FLOOR)
    print(f"  floor: ptb.compare on the score matrices: {floor:.2f} GB, {floor_time:.0f} s")
    if not args.skip_parts:
        for label, intern in (("read_runs", False), ("read_runs + JudgedRuns.build", True)):
            peak, elapsed = measure(prelude + f"INTERN = {intern}\n" + READ)
            print(f"  {label}: {peak:.2f} GB ({peak / floor:.1f}x the floor), {elapsed:.0f} s")
    argv = ["evaluate", "-q", str(folder / "qrels.txt"), str(folder / "runs"), "-m", *MEASURES,
            "--n", str(args.n), "--rng", "1", "--quiet", "--format", "csv"]
    peak, elapsed = measure(EVALUATE.replace("ARGV", repr(argv)))
    print(f"  pyterrier-boot evaluate: {peak:.2f} GB ({peak / floor:.1f}x the floor), {elapsed:.0f} s; "
          f"target < 1.5 GB: {'met' if peak < 1.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
