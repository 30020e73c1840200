"""Speed and memory of the corpus bootstrap on the 17 TREC 2003 Robust runs.

Workload: 17 runs x 100 topics x 1000 Poisson images x {AP, nDCG, P@10, RBP(p=0.95), RR}
(Zobel & Rashidi's measures). We report

* the one-off numba compile (a fresh process with an empty numba cache, timing a tiny evaluation),
* ``CorpusBootstrap(...).evaluate(...)`` on the pre-read runs (interning, full-corpus values,
  jackknife, drawing the images and evaluating them), its peak traced memory (``tracemalloc``:
  numpy allocations) and the process's peak resident size,
* the same work the slow way, as a user would do it without the kernels: materialise each image
  (``image_run`` / ``image_qrels``) and evaluate it with ir_measures' fastest documented path for
  many runs (``ir_measures.evaluator(measures, qrels)``, then ``.iter_calc(run)`` on dicts), timed on a few images and
  extrapolated to 1000 (the values are checked equal to ours on those images).

Usage: python benchmarks/corpus_speed.py [--data ../shared/data] [--images 1000] [--reference-images 2]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MEASURES = ["AP", "nDCG", "P@10", "RBP(p=0.95, rel=1)", "RR"]


def nested(frame, column, kind):
    """``{qid: {docno: value}}``: the dicts ``ir_measures.evaluator`` reads fastest (pytrec_eval's own format)."""
    out = {}
    for q, d, v in zip(frame["qid"].tolist(), frame["docno"].tolist(), frame[column].tolist()):
        out.setdefault(q, {})[d] = kind(v)
    return out


def compile_only():
    """Run in a fresh process with an empty numba cache: time the first tiny evaluation."""
    import pandas as pd

    start = time.perf_counter()
    from pyterrier_boot import CorpusBootstrap

    imported = time.perf_counter()
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1, 0]})
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
    CorpusBootstrap(qrels, n_images=2, rng=1, verbose=False).evaluate({"r": run}, MEASURES)
    done = time.perf_counter()
    print(f"{imported - start:.2f} {done - imported:.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--reference-images", type=int, default=2,
                        help="images materialised and evaluated with ir_measures (then extrapolated)")
    parser.add_argument("--compile-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_only:
        compile_only()
        return 0
    folder = args.data / "trec-robust2003"
    if not folder.exists():
        print(f"TREC 2003 Robust data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1

    import numba

    print(f"machine: {os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}, "
          f"load average at start {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, __file__, "--compile-only"], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        print(f"one-off numba compile (empty cache): import {float(out[0]):.1f} s, first tiny evaluation "
              f"{float(out[1]):.1f} s")

    from pyterrier_boot import CorpusBootstrap, read_qrels, read_runs
    from pyterrier_boot.corpus.multiplicity import docno_hashes, poisson_multiplicities

    start = time.perf_counter()
    runs = read_runs(folder / "runs")
    qrels = read_qrels(folder / "qrels.robust2003.txt.gz")
    print(f"reading 17 runs and the qrels: {time.perf_counter() - start:.1f} s")
    # warm start: numba's cache loaded, pyterrier imported
    CorpusBootstrap(qrels, n_images=2, rng=0, verbose=False).evaluate(runs, MEASURES)

    boot = CorpusBootstrap(qrels, n_images=args.images, rng=1, verbose=False)
    tracemalloc.start()
    start = time.perf_counter()
    res = boot.evaluate(runs, MEASURES)
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    S, Q, M = res.statistic.shape
    D = len(res.documents)
    print(f"\n{S} runs x {Q} topics x {args.images} images x {M} measures ({D:,} documents seen):")
    print(f"  CorpusBootstrap.evaluate: {elapsed:.1f} s ({args.images / elapsed:.0f} images/s)")
    print(f"  peak traced memory {peak / 2**20:.0f} MiB (image distribution "
          f"{res.bootstrap_distribution.nbytes / 2**20:.0f} MiB); peak RSS of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB")
    hashes = docno_hashes(res.documents)
    start = time.perf_counter()
    for b in range(0, args.images, 50):
        poisson_multiplicities(boot.keys[b:b + 50], hashes)
    draw = time.perf_counter() - start
    print(f"  of which drawing the {args.images} x {D:,} Poisson multiplicities: {draw:.1f} s")

    # the slow way: materialise images and evaluate them with ir_measures
    import ir_measures
    import pandas as pd

    from pyterrier_boot.measures.materialisation import image_qrels, image_run

    parsed = [ir_measures.parse_measure(m) for m in MEASURES]
    k = boot.multiplicities(res.documents, 0, args.reference_images)
    t_materialise = t_measure = 0.0
    worst = 0.0
    for b in range(args.reference_images):
        mapping = pd.Series(k[b], index=res.documents)
        start = time.perf_counter()
        qrels_b = image_qrels(qrels.frame, mapping)
        runs_b = {name: image_run(run, mapping) for name, run in runs.items()}
        t_materialise += time.perf_counter() - start
        start = time.perf_counter()
        evaluator = ir_measures.evaluator(parsed, nested(qrels_b, "label", int))
        values = np.zeros((S, Q, M))
        for s, name in enumerate(res.systems):
            for metric in evaluator.iter_calc(nested(runs_b[name], "score", float)):
                values[s, res.qids.index(metric.query_id), parsed.index(metric.measure)] = metric.value
        t_measure += time.perf_counter() - start
        worst = max(worst, float(np.abs(values - res.bootstrap_distribution[b]).max()))
    per_image = (t_materialise + t_measure) / args.reference_images
    print(f"\nmaterialise + ir_measures.evaluator(measures, qrels).iter_calc(run) on dicts, {args.reference_images} "
          f"images: materialising {t_materialise / args.reference_images:.1f} s/image, ir_measures (the frames turned "
          f"into its dicts included) {t_measure / args.reference_images:.1f} s/image; max |difference| from ours "
          f"{worst:.1e}; load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(f"  extrapolated to {args.images} images: {per_image * args.images:,.0f} s "
          f"({per_image * args.images / 3600:.1f} h)")
    print(f"  speed-up of CorpusBootstrap: {per_image * args.images / elapsed:,.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
