"""Speed of the measure kernels against ir_measures (issue 2's benchmark; run by hand).

    python benchmarks/measures_speed.py [--images 1000]

Prints, in one run and on the same machine:
1. TREC DL 2020 (59 runs x 54 topics, from ../shared/data; skipped when absent): our evaluation of
   AP(rel=2), nDCG@10, P(rel=2)@10, RR(rel=2) on the collection against ir_measures.iter_calc.
2. A simulated 20 systems x 50 topics x 1000 documents collection: the same comparison.
3. The batched engine on 1000 Poisson(1) corpus images of that collection: time and
   (image x system x topic) evaluations per second for the 4 measures together (target: < 10 s).
4. Materialising images and evaluating them with ir_measures, timed on a few images and
   extrapolated to the same 1000.
5. The numba compile on a cold cache, in a fresh process (target: < 10 s).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd

from pyterrier_boot import read_qrels, read_runs, simulate_collection
from pyterrier_boot.measures.evaluation import prepare
from pyterrier_boot.measures.materialisation import image_qrels, image_run

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DL = ["AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RR(rel=2)"]
SIM = ["AP", "nDCG@10", "P@10", "RR"]


def ir_frames(runs, qrels):
    iq = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    return iq, {n: r.rename(columns={"qid": "query_id", "docno": "doc_id"}) for n, r in runs.items()}


def time_ir_measures(runs, qrels, measures):
    iq, irs = ir_frames(runs, qrels)
    parsed = [ir_measures.parse_measure(m) for m in measures]
    start = time.perf_counter()
    for run in irs.values():
        for _ in ir_measures.iter_calc(parsed, iq, run):
            pass
    return time.perf_counter() - start


def time_ours(runs, qrels, measures):
    start = time.perf_counter()
    evaluator, _ = prepare(runs, qrels, measures)
    intern = time.perf_counter() - start
    evaluator.evaluate(np.ones((1, evaluator.arrays.n_docs), np.int32), identity=True)
    return time.perf_counter() - start, intern


def compare(title, runs, qrels, measures):
    first = next(iter(runs))
    time_ours({first: runs[first]}, qrels, measures)  # kernels loaded (numba's cache) before timing
    ours, intern = time_ours(runs, qrels, measures)
    reference = time_ir_measures(runs, qrels, measures)
    print(f"{title}: ours {ours:.2f} s (interning {intern:.2f} s, target < 1 s: {'met' if intern < 1 else 'NOT met'}) "
          f"| ir_measures {reference:.2f} s | ir_measures / ours = {reference / ours:.1f}x (target >= 10x: "
          f"{'met' if reference / ours >= 10 else 'NOT met'})")


def batched(runs, qrels, measures, n_images, batch=100):
    evaluator, _ = prepare(runs, qrels, measures)
    a = evaluator.arrays
    rng = np.random.default_rng(1)
    evaluator.evaluate(rng.poisson(1.0, (2, a.n_docs)).astype(np.int32))  # warm (compiled) start
    start = time.perf_counter()
    draw = 0.0
    for first in range(0, n_images, batch):
        t = time.perf_counter()
        k = rng.poisson(1.0, (min(batch, n_images - first), a.n_docs)).astype(np.int32)
        draw += time.perf_counter() - t
        evaluator.evaluate(k)
    elapsed = time.perf_counter() - start
    evaluations = n_images * a.n_systems * a.n_topics
    print(f"batched engine: {n_images} images x {a.n_systems} systems x {a.n_topics} topics x "
          f"{len(measures)} measures ({a.n_docs} distinct documents) in {elapsed:.2f} s "
          f"(drawing multiplicities {draw:.2f} s): {evaluations / elapsed:,.0f} evaluations/s, "
          f"target < 10 s: {'met' if elapsed < 10 else 'NOT met'}")
    return elapsed


def materialised(runs, qrels, measures, n_images, elapsed_ours, probe=3):
    rng = np.random.default_rng(2)
    docnos = pd.unique(pd.concat([qrels["docno"]] + [r["docno"] for r in runs.values()]))
    parsed = [ir_measures.parse_measure(m) for m in measures]
    start = time.perf_counter()
    for _ in range(probe):
        k = dict(zip(docnos, rng.poisson(1.0, len(docnos))))
        iq = image_qrels(qrels, k).rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
        for run in runs.values():
            ir = image_run(run, k).rename(columns={"qid": "query_id", "docno": "doc_id"})
            for _ in ir_measures.iter_calc(parsed, iq[["query_id", "doc_id", "relevance"]],
                                           ir[["query_id", "doc_id", "score"]]):
                pass
    per_image = (time.perf_counter() - start) / probe
    total = per_image * n_images
    print(f"materialising + ir_measures: {per_image:.2f} s per image -> {total / 60:.0f} min for "
          f"{n_images} images (measured on {probe}); the batched engine is {total / elapsed_ours:,.0f}x faster")


COLD = """
import time, numpy as np, pandas as pd
t = time.perf_counter()
from pyterrier_boot import evaluate
qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]})
run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
evaluate(run, qrels, ["AP"])
print(f"{time.perf_counter() - t:.2f}")
"""


def cold_start():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = float(subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True,
                                    check=True).stdout.split()[-1])
        warm = float(subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True,
                                    check=True).stdout.split()[-1])
    print(f"first call in a fresh process: {cold:.2f} s with an empty numba cache (compile, target < 10 s: "
          f"{'met' if cold < 10 else 'NOT met'}), {warm:.2f} s with the cache filled")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=1000)
    args = parser.parse_args()
    print(f"numba threads: {os.environ.get('NUMBA_NUM_THREADS', os.cpu_count())}")
    cold_start()
    dl = SHARED / "data" / "trec-dl-2020-passage"
    if dl.exists():
        compare("TREC DL 2020, 59 runs x 54 topics", read_runs(dl / "runs"),
                read_qrels(dl / "qrels.dl20-passage.txt").frame, DL)
    else:
        print(f"TREC DL 2020 skipped: {dl} not found")
    sim = simulate_collection(n_topics=50, n_systems=20, depth=1000, rng=3)
    runs, qrels = sim.runs, sim.qrels
    compare("simulated 20 systems x 50 topics x 1000 docs", runs, qrels, SIM)
    elapsed = batched(runs, qrels, SIM, args.images)
    materialised(runs, qrels, SIM, args.images, elapsed)


if __name__ == "__main__":
    main()
