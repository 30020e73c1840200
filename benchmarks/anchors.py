"""Anchors in one run: our figures beside the reference each one replaces, same data, same process.

    python benchmarks/anchors.py [--runs 20] [--resamples 1000] [--images 200] [--reference-images 2]

ranx comes with the ``bench`` extra (``pip install -e ".[dev,bench]"``).

On TREC DL 2020 passage runs (the first ``--runs`` of the 59, frames read once beforehand; a
simulated collection when ../shared/data is absent), AP, nDCG@10, P@10, RR at rel >= 1:

1. ``pt.Experiment`` vs ``pt.boot.Experiment`` with the topic bootstrap (``--resamples``), on the
   same runs given as ``pt.Transformer.from_df`` (baseline 0, as a user would call both);
2. ``ranx.compare(qrels, runs, metrics, stat_test="fisher", n_permutations=..., threads=0)`` (its one
   documented call for comparing runs, numba-compiled, on every core; the ``Qrels``/``Run`` objects
   built beforehand, not timed; evaluation included) vs our ``evaluate`` + ``compare(test=
   "randomization")`` from the frames on every pair, same measures and resamples;
3. ``scipy.stats.bootstrap((matrix,), np.mean, axis=-1, vectorized=True, method="BCa")`` (one
   vectorised call over the runs x topics matrix, all 10,000 resamples in one batch: its fastest
   documented path) vs ``bootstrap_ci`` (BCa, 10,000 resamples), on the same per-topic AP;
4. a materialising corpus bootstrap (each image's qrels and runs materialised and evaluated with
   ``ir_measures.evaluator(measures, qrels).iter_calc(run)`` on dicts; timed on
   ``--reference-images`` images and extrapolated) vs ``CorpusBootstrap.evaluate`` on ``--images``
   Poisson images.

Every row is timed warm (numba's cache loaded, each library imported and called once), best of
three (the materialising reference: once on ``--reference-images``, extrapolated), and printed
as a ratio reference / ours, with the load average; ratios measured side by side in one process
are robust to the load of a shared machine, wall times are not.
"""
import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import pyterrier_boot as ptb

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
FOLDER = SHARED / "data" / "trec-dl-2020-passage"
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]
TREC = ["map", "ndcg_cut_10", "P_10", "recip_rank"]  # the same four, as pt.Experiment names them
RANX = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "RR": "mrr"}


def timed(fn, repeat=1):
    """Best wall time of ``repeat`` calls, and the last call's result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def load(n_runs):
    """``(name -> run frame, qrels frame, what)``: DL 2020's first ``n_runs`` runs, or a simulation."""
    if FOLDER.exists():
        runs = ptb.read_runs(sorted((FOLDER / "runs").iterdir())[:n_runs])
        qrels = ptb.read_qrels(FOLDER / "qrels.dl20-passage.txt").frame
        return dict(runs), qrels, f"TREC DL 2020 passage, {len(runs)} runs x 54 topics"
    sim = ptb.simulate_collection(n_topics=50, n_systems=n_runs, depth=1000, rng=3)
    return sim.runs, sim.qrels, f"simulated, {n_runs} runs x 50 topics x 1000 documents (DL 2020 not found)"


def experiment_anchor(runs, qrels, resamples):
    import pyterrier as pt

    topics = pd.DataFrame({"qid": qrels["qid"].unique(), "query": "unused"})
    names = list(runs)
    systems = [pt.Transformer.from_df(run) for run in runs.values()]
    pt.Experiment(systems, topics, qrels, TREC, names=names, baseline=0)
    ptb.Experiment(systems, topics, qrels, TREC, names=names, baseline=0, n_resamples=100, rng=0, verbose=False)
    reference, _ = timed(lambda: pt.Experiment(systems, topics, qrels, TREC, names=names, baseline=0), 3)
    ours, _ = timed(lambda: ptb.Experiment(systems, topics, qrels, TREC, names=names, baseline=0,
                                           n_resamples=resamples, rng=0, verbose=False), 3)
    return (f"pt.Experiment vs pt.boot.Experiment (topic bootstrap, {resamples:,} resamples)",
            "pt.Experiment", reference, ours)


def ranx_anchor(runs, qrels, resamples):
    try:
        import ranx
    except ImportError:
        raise SystemExit("the ranx anchor needs ranx: pip install -e '.[dev,bench]'") from None

    def frame(df, value):  # ranx wants object (str) ids
        return pd.DataFrame({"qid": df["qid"].astype(str).astype(object),
                             "docno": df["docno"].astype(str).astype(object), value: df[value]})

    rq = ranx.Qrels.from_df(frame(qrels, "label").astype({"label": int}), q_id_col="qid", doc_id_col="docno",
                            score_col="label")
    rr = [ranx.Run.from_df(frame(run, "score"), q_id_col="qid", doc_id_col="docno", score_col="score", name=name)
          for name, run in runs.items()]
    metrics = [RANX[m] for m in MEASURES]

    def reference():
        return ranx.compare(rq, rr, metrics, stat_test="fisher", n_permutations=resamples, max_p=0.05, threads=0)

    def ours():
        per_topic = ptb.evaluate(runs, qrels, MEASURES)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ptb.compare(per_topic, test="randomization", correction=None, n_resamples=resamples, rng=0)

    reference(), ours()  # compile and warm both
    t_ref, report = timed(reference, 3)
    t_ours, table = timed(ours, 3)
    pairs = len(runs) * (len(runs) - 1) // 2
    ranx_means = np.array([[report.results[n][RANX[m]] for m in MEASURES] for n in runs])
    our_means = ptb.evaluate(runs, qrels, MEASURES).groupby(["name", "measure"], sort=False)["value"].mean()
    our_means = np.array([[our_means[(n, m)] for m in MEASURES] for n in runs])
    gaps = np.abs(ranx_means - our_means).max(axis=0)
    note = ("largest |ranx - ours| of a mean, from ranx's own order within score ties (ours is trec_eval's): "
            + ", ".join(f"{m} {g:.0e}" for m, g in zip(MEASURES, gaps)))
    if len(table) != pairs * len(MEASURES):
        raise RuntimeError(f"compare returned {len(table)} rows, expected {pairs * len(MEASURES)}")
    return (f"ranx.compare vs evaluate + compare ({pairs} pairs x {len(MEASURES)} measures, "
            f"randomisation, {resamples:,} resamples; {note})", "ranx", t_ref, t_ours)


def scipy_anchor(runs, qrels):
    from scipy import stats

    per_topic = ptb.evaluate(runs, qrels, ["AP"])
    matrix = per_topic.pivot(index="name", columns="qid", values="value").loc[list(runs)].to_numpy()
    B = 10_000

    def reference():
        return stats.bootstrap((matrix,), np.mean, axis=-1, vectorized=True, method="BCa", n_resamples=B,
                               rng=np.random.default_rng(0)).confidence_interval

    def ours():
        return ptb.bootstrap_ci(matrix, method="bca", n_resamples=B, rng=0).confidence_interval

    reference(), ours()
    t_ref, ci_ref = timed(reference, 3)
    t_ours, ci = timed(ours, 3)
    width = float(np.mean(ci_ref.high - ci_ref.low))
    gap = max(float(np.abs(ci_ref.low - ci.low).max()), float(np.abs(ci_ref.high - ci.high).max()))
    return (f"scipy.stats.bootstrap(vectorized=True, axis=-1) vs bootstrap_ci ({len(matrix)} runs' AP, BCa, "
            f"{B:,} resamples; bounds differ by at most {gap / width:.1%} of the mean width)", "scipy", t_ref, t_ours)


def _nested(frame, column, kind):
    """``{qid: {docno: value}}``: the dicts ``ir_measures.evaluator`` reads fastest (pytrec_eval's own format)."""
    out = {}
    for q, d, v in zip(frame["qid"].tolist(), frame["docno"].tolist(), frame[column].tolist()):
        out.setdefault(q, {})[d] = kind(v)
    return out


def corpus_anchor(runs, qrels, images, reference_images):
    import ir_measures

    from pyterrier_boot.measures.materialisation import image_qrels, image_run

    ptb.CorpusBootstrap(qrels, n_images=2, rng=0, verbose=False).evaluate(runs, MEASURES)  # warm
    boot = ptb.CorpusBootstrap(qrels, n_images=images, rng=1, verbose=False)
    t_ours, res = timed(lambda: boot.evaluate(runs, MEASURES))
    parsed = [ir_measures.parse_measure(m) for m in MEASURES]
    k = boot.multiplicities(res.documents, 0, reference_images)
    start = time.perf_counter()
    worst = 0.0
    for b in range(reference_images):
        mapping = pd.Series(k[b], index=res.documents)
        evaluator = ir_measures.evaluator(parsed, _nested(image_qrels(qrels, mapping), "label", int))
        values = np.zeros(res.bootstrap_distribution.shape[1:])
        for s, name in enumerate(res.systems):
            for metric in evaluator.iter_calc(_nested(image_run(runs[name], mapping), "score", float)):
                values[s, res.qids.index(metric.query_id), parsed.index(metric.measure)] = metric.value
        worst = max(worst, float(np.abs(values - res.bootstrap_distribution[b]).max()))
    t_ref = (time.perf_counter() - start) / reference_images * images
    return (f"materialise + ir_measures.evaluator on dicts vs CorpusBootstrap ({images:,} images; reference timed on "
            f"{reference_images} and extrapolated, its values differ from ours by at most {worst:.1e})",
            "materialising", t_ref, t_ours)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="runs of DL 2020 used (all pairs are tested)")
    parser.add_argument("--resamples", type=int, default=1000, help="topic resamples / permutations")
    parser.add_argument("--images", type=int, default=200, help="corpus images of our corpus bootstrap")
    parser.add_argument("--reference-images", type=int, default=2, help="images materialised (then extrapolated)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # e.g. unbounded intervals of runs with many all-zero topics: not timed here
    import numba

    print(f"machine: {os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}, "
          f"load average at start {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    runs, qrels, what = load(args.runs)
    print(f"data: {what}; measures {', '.join(MEASURES)}\n")
    rows = [experiment_anchor(runs, qrels, args.resamples), ranx_anchor(runs, qrels, args.resamples),
            scipy_anchor(runs, qrels), corpus_anchor(runs, qrels, args.images, args.reference_images)]
    print(f"{'reference':>14} {'reference s':>12} {'ours s':>8} {'reference/ours':>15}  anchor")
    for title, reference, t_ref, t_ours in rows:
        print(f"{reference:>14} {t_ref:12.2f} {t_ours:8.2f} {t_ref / t_ours:14.1f}x  {title}")
    print(f"\nload average at the end {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
