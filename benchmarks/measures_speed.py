"""Speed of the measure kernels against ir_measures (issue 2's benchmark; run by hand).

    python benchmarks/measures_speed.py [--images 1000]

Prints, in one run and on the same machine:
1. TREC DL 2020 (59 runs x 54 topics, from ../shared/data; skipped when absent): our evaluation of
   AP(rel=2), nDCG@10, P(rel=2)@10, RR(rel=2) on the collection (from the frames, interning
   included) against ir_measures called as its documentation recommends for many runs,
   ``ir_measures.evaluator(measures, qrels)`` once, then ``.iter_calc(run)`` on each run given as
   a dict of dicts (pytrec_eval's C++ path; building the evaluator is timed, converting the frames
   to dicts is not, and is printed apart), and against ``ir_measures.iter_calc(measures, qrels,
   run)`` on each run's frame; each three times: the best of three and the first call.
2. A simulated 20 systems x 50 topics x 1000 documents collection: the same comparison.
3. The batched engine on 1000 Poisson(1) corpus images of that collection, 4 measures together,
   100 images per call: on multiplicities drawn beforehand (``Evaluator.evaluate``) and on images
   drawn inside the kernel (``Evaluator.evaluate_poisson``, what the corpus bootstrap needs), each
   as a ratio to a *floor* measured in the same run: a parallel numba loop that only reads the
   multiplicity of every retrieved document on every image and sums them (the cheapest pass over
   the same data). Goal: within 3x of the floor.
4. Materialising images and evaluating them with ir_measures (its evaluator on dicts, rebuilt for
   each image's qrels), timed on a few images and extrapolated to the same 1000.
5. ``evaluate`` on one measure in a fresh process (from importing pyterrier_boot, as numpy and
   pandas are already loaded in a session), with an empty numba cache
   (cold: compiles) and with it filled (warm). Goals: cold < 5 s, warm < 1 s.

Timings on a shared machine are noisy: the load average is printed with them, and the engine
figures are given as ratios to the floor measured in the same run.
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
from numba import njit, prange

from pyterrier_boot import read_qrels, read_runs, simulate_collection
from pyterrier_boot.corpus.multiplicity import docno_hashes, image_keys, poisson_multiplicities
from pyterrier_boot.measures.evaluation import prepare
from pyterrier_boot.measures.materialisation import image_qrels, image_run

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DL = ["AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RR(rel=2)"]
SIM = ["AP", "nDCG@10", "P@10", "RR"]


def ir_frames(runs, qrels):
    iq = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    return iq, {n: r.rename(columns={"qid": "query_id", "docno": "doc_id"}) for n, r in runs.items()}


def time_ir_measures(runs, qrels, measures):
    """``ir_measures.iter_calc(measures, qrels, run)`` on each run's frame."""
    iq, irs = ir_frames(runs, qrels)
    parsed = [ir_measures.parse_measure(m) for m in measures]
    start = time.perf_counter()
    for run in irs.values():
        for _ in ir_measures.iter_calc(parsed, iq, run):
            pass
    return time.perf_counter() - start


def as_dicts(runs, qrels):
    """The qrels and runs as ir_measures' dicts of dicts (``{qid: {docno: value}}``), and the seconds it took."""
    start = time.perf_counter()
    qrels_dict = {}
    for q, d, label in zip(qrels["qid"].tolist(), qrels["docno"].tolist(), qrels["label"].tolist()):
        qrels_dict.setdefault(q, {})[d] = int(label)
    run_dicts = {}
    for name, run in runs.items():
        out = {}
        for q, d, score in zip(run["qid"].tolist(), run["docno"].tolist(), run["score"].tolist()):
            out.setdefault(q, {})[d] = score
        run_dicts[name] = out
    return qrels_dict, run_dicts, time.perf_counter() - start


def time_ir_measures_evaluator(run_dicts, qrels_dict, measures):
    """ir_measures' fastest documented path for many runs: one evaluator, ``iter_calc`` on dicts."""
    parsed = [ir_measures.parse_measure(m) for m in measures]
    start = time.perf_counter()
    evaluator = ir_measures.evaluator(parsed, qrels_dict)
    for run in run_dicts.values():
        for _ in evaluator.iter_calc(run):
            pass
    return time.perf_counter() - start


def time_ours(runs, qrels, measures):
    start = time.perf_counter()
    evaluator, _ = prepare(runs, qrels, measures)
    intern = time.perf_counter() - start
    evaluator.evaluate(np.ones((1, evaluator.arrays.n_docs), np.int32), identity=True)
    return time.perf_counter() - start, intern


def compare(title, runs, qrels, measures, repeat=3):
    """Ours and ir_measures' two paths on the same runs, each ``repeat`` times in a row: the first
    call (ours after a warm-up on one run, which loads the kernels from numba's cache) and the best
    of the repeats (timeit's convention: the least disturbed by other load on a shared machine)."""
    first = next(iter(runs))
    time_ours({first: runs[first]}, qrels, measures)  # kernels loaded (numba's cache) before timing
    qrels_dict, run_dicts, converting = as_dicts(runs, qrels)
    before = load()
    ours = [time_ours(runs, qrels, measures) for _ in range(repeat)]
    evaluator = [time_ir_measures_evaluator(run_dicts, qrels_dict, measures) for _ in range(repeat)]
    frames = [time_ir_measures(runs, qrels, measures) for _ in range(repeat)]
    best, intern = min(ours)
    print(f"{title} ({before} before, {load()} after):\n"
          f"  ours, evaluate from the frames: {best:.2f} s, best of {repeat} (interning {intern:.2f} s; first call "
          f"{ours[0][0]:.2f} s)")
    for label, times in (("ir_measures.evaluator(measures, qrels).iter_calc(run) on dicts "
                          f"(converting the frames to dicts: {converting:.2f} s more)", evaluator),
                         ("ir_measures.iter_calc(measures, qrels, run) on frames", frames)):
        print(f"  {label}: {min(times):.2f} s (first call {times[0]:.2f} s) = {min(times) / best:.1f}x ours "
              f"(first calls {times[0] / ours[0][0]:.1f}x)")


@njit(parallel=True)
def floor_kernel(multiplicity, run_docs, out):
    """The floor: for every image, the sum of the multiplicities of every retrieved document."""
    for b in prange(multiplicity.shape[0]):
        k = multiplicity[b]
        total = 0
        for i in range(run_docs.shape[0]):
            total += k[run_docs[i]]
        out[b] = total


def timed(fn, batches):
    start = time.perf_counter()
    for batch in batches:
        fn(batch)
    return time.perf_counter() - start


def batched(runs, qrels, measures, n_images, batch=100):
    evaluator, _ = prepare(runs, qrels, measures)
    a = evaluator.arrays
    keys = image_keys(1, n_images)
    hashes = docno_hashes(a.docnos)
    slices = [slice(first, first + batch) for first in range(0, n_images, batch)]
    floor_out = np.zeros(batch, np.int64)
    floor_kernel(poisson_multiplicities(keys[:2], hashes), a.run_docs, floor_out)  # compile
    evaluator.evaluate(poisson_multiplicities(keys[:2], hashes))  # warm (compiled) start
    evaluator.evaluate_poisson(keys[:2], hashes)
    drawn = {}
    draw = timed(lambda s: drawn.__setitem__(s.start, poisson_multiplicities(keys[s], hashes)), slices)
    floor = timed(lambda s: floor_kernel(drawn[s.start], a.run_docs, floor_out), slices)
    given = timed(lambda s: evaluator.evaluate(drawn[s.start]), slices)
    inside = timed(lambda s: evaluator.evaluate_poisson(keys[s], hashes), slices)
    visits = n_images * len(a.run_docs)
    print(f"batched engine: {n_images} images x {a.n_systems} systems x {a.n_topics} topics x {len(measures)} "
          f"measures ({a.n_docs} distinct documents, {visits:.1e} document visits), {batch} images per call:")
    print(f"  floor (read and sum every retrieved document's multiplicity): {floor:.2f} s")
    print(f"  evaluate(multiplicities drawn beforehand): {given:.2f} s = {given / floor:.1f}x the floor "
          f"(+ drawing {draw:.2f} s = {draw / floor:.1f}x)")
    print(f"  evaluate_poisson(images drawn in the kernel): {inside:.2f} s = {inside / floor:.1f}x the floor; "
          f"goal within 3x: {'met' if inside <= 3 * floor else 'NOT met'}")
    return inside


def materialised(runs, qrels, measures, n_images, elapsed_ours, probe=3):
    rng = np.random.default_rng(2)
    docnos = pd.unique(pd.concat([qrels["docno"]] + [r["docno"] for r in runs.values()]))
    start = time.perf_counter()
    for _ in range(probe):
        k = dict(zip(docnos, rng.poisson(1.0, len(docnos))))
        images = {name: image_run(run, k) for name, run in runs.items()}
        qrels_dict, run_dicts, _ = as_dicts(images, image_qrels(qrels, k))
        time_ir_measures_evaluator(run_dicts, qrels_dict, measures)
    per_image = (time.perf_counter() - start) / probe
    total = per_image * n_images
    print(f"materialising + ir_measures.evaluator on dicts: {per_image:.2f} s per image -> {total / 60:.0f} min for "
          f"{n_images} images (measured on {probe}); the batched engine is {total / elapsed_ours:,.0f}x faster")


COLD = """
import time
import numpy as np
import pandas as pd
t, c = time.perf_counter(), time.process_time()
from pyterrier_boot import evaluate
qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]})
run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
evaluate(run, qrels, ["AP"])
print(f"{time.perf_counter() - t:.2f} {time.process_time() - c:.2f}")
"""


def fresh_call(env):
    """Wall and CPU time of COLD in a fresh process (from importing pyterrier_boot to the result)."""
    out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True)
    wall, cpu = out.stdout.split()[-2:]
    return float(wall), float(cpu)


def cold_start():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        (cold, cold_cpu), (warm, warm_cpu) = fresh_call(env), fresh_call(env)
    print(f"evaluate(run, qrels, ['AP']) in a fresh process, importing pyterrier_boot included (CPU time "
          f"in brackets: robust to load):\n  cold (empty numba cache) {cold:.2f} s [{cold_cpu:.2f} s CPU], goal "
          f"< 5 s: {'met' if cold < 5 else 'NOT met'}\n  warm (cache filled) {warm:.2f} s [{warm_cpu:.2f} s CPU], "
          f"goal < 1 s: {'met' if warm < 1 else 'NOT met'}")


def load():
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--evaluation-only", action="store_true", help="only sections 1 and 2")
    args = parser.parse_args()
    print(f"numba threads: {os.environ.get('NUMBA_NUM_THREADS', os.cpu_count())}; {load()}")
    if not args.evaluation_only:
        cold_start()
        print(load())
    dl = SHARED / "data" / "trec-dl-2020-passage"
    if dl.exists():
        compare("TREC DL 2020, 59 runs x 54 topics", read_runs(dl / "runs"),
                read_qrels(dl / "qrels.dl20-passage.txt").frame, DL)
    else:
        print(f"TREC DL 2020 skipped: {dl} not found")
    sim = simulate_collection(n_topics=50, n_systems=20, depth=1000, rng=3)
    runs, qrels = sim.runs, sim.qrels
    compare("simulated 20 systems x 50 topics x 1000 docs (raw frames: read_runs checks them first)", runs, qrels,
            SIM)
    if args.evaluation_only:
        return
    elapsed = batched(runs, qrels, SIM, args.images)
    print(load())
    materialised(runs, qrels, SIM, args.images, elapsed)


if __name__ == "__main__":
    main()
