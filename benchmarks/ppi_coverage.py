"""Coverage of prediction-powered intervals with a simulated judge on real TREC collections.

For each collection (TREC DL 2019 and 2020 passage, Robust 2003: real runs and human qrels), a
simulated automatic judge (``pyterrier_boot.simulate_judge`` with its default, known bias and
noise: lenient on non-relevant documents the runs rank in their top 10, misses marginal relevant
documents, moves grades) relabels the human qrels; every run is scored per topic once with the
human and once with the automatic qrels (``pyterrier_boot.evaluate``). Then, on these arrays:

* the real topics are the topic *population*, and the target is each run's mean human score over
  them (the full-human-qrels mean), and the difference of each run from the median run;
* a replication draws a collection of ``N`` topics from the population at random (with
  replacement: iid topics, the model the intervals assume), of which a random ``f`` share
  (10%, 25%, 50%) is human-judged and the rest judged only automatically;
* for every run (and difference), 95% intervals: the default of ``ppi_mean_ci`` (the
  small-sample rule: plain PPI below 30 human-judged topics, cross-fitted PPI++ from 30,
  Welch-Satterthwaite t quantiles), the asymptotic PPI (lam=1) and PPI++ (in-sample lam) of the
  papers and ``ppi_py`` (z quantiles), plain PPI with the small-sample t quantile, automatic-only
  (classical interval on the automatic scores of all N topics) and human-only (Student's t, and
  the z interval of the PPI papers, on the human-judged topics); each covers the target or not.

Reported: coverage (mean over runs and replications) with its standard error (over the
independent replication x judge units), and the mean width relative to the human-only (t) interval.
``N`` is the collection's real number of topics (43, 54, 100: few human-judged topics at 10%)
and 200 (enough for the normal approximations the intervals rest on); ``--topics`` sets others.

With ``--real-judges`` it measures instead the two *estimands* with the real LLM judges of the
DL 2019 / 2020 pools (``llm-judgments/``: GPT-4o and Llama 3.2, binary labels read as grade 2,
so that they count as relevant at ``rel=2`` and gain 2 in nDCG), NIST's qrels the truth, on the
collection's own topics:

* design ``topics``: the real topics, a random ``n`` of them human-judged (a simple random sample
  without replacement, a new one per replication); target: the mean human score over these
  topics (the full-NIST-qrels mean);
* design ``population``: a collection of as many topics drawn with replacement from the real ones
  (iid topics), a random ``n`` of them human-judged; target: the mean over the real topics;

and in both designs both intervals (the default ``ppi_mean_ci`` with ``estimand="population"``
and ``estimand="topics"``; in the population design the topics interval is scored against the mean
over the drawn topics, its own target). ``n`` = 5, 10, 20 human-judged topics; means of every run
and differences of every run from the median run; nDCG@10 and AP(rel=2). Coverage over runs and
replications, SE over the replications (the units), mean width.

Usage: python benchmarks/ppi_coverage.py [--data ../shared/data] [--replications 1000]
       [--judges 2] [--topics real 200] [--collections dl19 dl20 robust03] [--rng 1]
       python benchmarks/ppi_coverage.py --real-judges [--replications 1000] [--human-topics 5 10 20]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
COLLECTIONS = {
    "dl19": ("trec-dl-2019-passage", "qrels.dl19-passage.txt", ("nDCG@10", "AP(rel=2)")),
    "dl20": ("trec-dl-2020-passage", "qrels.dl20-passage.txt", ("nDCG@10", "AP(rel=2)")),
    "robust03": ("trec-robust2003", "qrels.robust2003.txt.gz", ("nDCG@10", "AP")),
}
FRACTIONS = (0.10, 0.25, 0.50)
REAL_JUDGES = {"gpt4o": "binary_gpt4o_{}.txt.gz", "llama3.2": "binary_llama3.2_{}.txt.gz"}
ESTIMANDS = ("population", "topics")
METHODS = ("PPI default", "PPI (z)", "PPI++ (z)", "PPI (t)", "auto-only", "human-only (t)", "human-only (z)")


def per_topic_scores(runs: dict, qrels, measures, judge_rng) -> tuple[np.ndarray, np.ndarray]:
    """Human and simulated-judge scores, each ``(measures, topics, runs)``."""
    import pyterrier_boot as pb

    auto = pb.simulate_judge(qrels, runs, rng=judge_rng)
    cubes = []
    for q in (qrels, auto):
        long = pb.evaluate(runs, q, list(measures))
        cube = long.pivot_table(index=["measure", "qid"], columns="name", values="value")
        cube = cube.reindex(columns=list(runs)).reindex(list(measures), level=0)
        cubes.append(cube.to_numpy().reshape(len(measures), -1, len(runs)))
    return cubes[0], cubes[1]


def replicate(human: np.ndarray, auto: np.ndarray, n_topics: int, fraction: float, replications: int,
              rng: np.random.Generator) -> dict:
    """Coverage indicators ``(replications, columns)`` and widths for the intervals of ``METHODS``.

    ``human``/``auto``: ``(population topics, columns)``; the target is ``human.mean(0)``.
    """
    from pyterrier_boot import FitWarning, classical_mean_ci, ppi_mean_ci

    target = human.mean(0)
    n = max(2, int(round(fraction * n_topics)))
    draws = rng.integers(0, human.shape[0], size=(replications, n_topics))
    labeled, unlabeled = draws[:, :n], draws[:, n:]
    cols = human.shape[1]

    def stack(values, index):  # (topics in the sample, replications * columns)
        return values[index].transpose(1, 0, 2).reshape(index.shape[1], replications * cols)

    y, yhat, yhat_u = stack(human, labeled), stack(auto, labeled), stack(auto, unlabeled)
    with warnings.catch_warnings():  # the warning below 10 human-judged topics: measured here
        warnings.simplefilter("ignore", FitWarning)
        results = {
            "PPI default": ppi_mean_ci(y, yhat, yhat_u),
            "PPI (z)": ppi_mean_ci(y, yhat, yhat_u, lam=1, small_sample=False),
            "PPI++ (z)": ppi_mean_ci(y, yhat, yhat_u, small_sample=False),
            "PPI (t)": ppi_mean_ci(y, yhat, yhat_u, lam=1),
            "auto-only": classical_mean_ci(np.concatenate([yhat, yhat_u])),
            "human-only (t)": classical_mean_ci(y),
            "human-only (z)": classical_mean_ci(y, small_sample=False),
        }
    goal = np.tile(target, replications)
    out = {}
    for method, res in results.items():
        low, high = res.confidence_interval
        out[method] = ((low <= goal) & (goal <= high)).reshape(replications, cols), (high - low).reshape(
            replications, cols)
    return out


def real_judge_scores(data: Path, key: str, judge: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Measures and human (NIST) and real-judge scores, each ``(measures, topics, runs)``."""
    import pyterrier_boot as pb

    folder, qrels_file, measures = COLLECTIONS[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.InputWarning)
        runs = pb.read_runs(str(data / folder / "runs"))
    qrels = pb.read_qrels(str(data / folder / qrels_file)).frame
    auto = pb.read_qrels(str(data / "llm-judgments" / REAL_JUDGES[judge].format(key))).frame
    auto = auto.assign(label=np.where(auto["label"] > 0, 2, 0))  # relevant at rel=2, gain 2
    cubes = []
    for q in (qrels, auto):
        long = pb.evaluate(runs, q, list(measures))
        cube = long.pivot_table(index=["measure", "qid"], columns="name", values="value")
        cube = cube.reindex(index=pd.MultiIndex.from_product([list(measures), sorted(set(qrels["qid"]))]),
                            columns=list(runs), fill_value=0.0).fillna(0.0)
        cubes.append(cube.to_numpy().reshape(len(measures), -1, len(runs)))
    return list(measures), cubes[0], cubes[1]


def replicate_estimands(human: np.ndarray, auto: np.ndarray, n: int, replications: int,
                        rng: np.random.Generator) -> list[dict]:
    """Coverage units ``(replications,)`` and mean widths of both intervals in both designs."""
    from pyterrier_boot import FitWarning, ppi_mean_ci

    size, cols = human.shape
    rows = []
    for design in ESTIMANDS:
        if design == "topics":  # the real topics, a simple random sample of n human-judged
            drawn = np.argsort(rng.random((replications, size)), axis=1)
        else:  # as many topics drawn iid from the real ones
            drawn = rng.integers(0, size, size=(replications, size))
        labeled, unlabeled = drawn[:, :n], drawn[:, n:]

        def stack(values, index):
            return values[index].transpose(1, 0, 2).reshape(index.shape[1], replications * cols)

        y, yhat, yhat_u = stack(human, labeled), stack(auto, labeled), stack(auto, unlabeled)
        targets = {"population": np.tile(human.mean(0), replications),
                   "topics": human[drawn].mean(1).reshape(-1)}  # the mean over the drawn topics
        for estimand in ESTIMANDS:
            with warnings.catch_warnings():  # the warning below 10 human-judged topics: measured here
                warnings.simplefilter("ignore", FitWarning)
                low, high = ppi_mean_ci(y, yhat, yhat_u, estimand=estimand).confidence_interval
            goal = targets[estimand]
            cover = ((low <= goal) & (goal <= high)).reshape(replications, cols).mean(1)
            rows.append({"design": design, "interval": estimand, "units": cover, "width": (high - low).mean()})
    return rows


def estimand_table(data: Path, collections, replications: int, human_topics, seed: int,
                   verbose: bool = True) -> pd.DataFrame:
    """Coverage of both estimands with the real judges (module docstring)."""
    root = np.random.default_rng(seed)
    rows = []
    for key, judge in product(collections, REAL_JUDGES):
        start = time.perf_counter()
        measures, human, auto = real_judge_scores(data, key, judge)
        if verbose:
            print(f"{key} {judge}: {human.shape[2]} runs, {human.shape[1]} topics scored in "
                  f"{time.perf_counter() - start:.0f}s", file=sys.stderr)
        for (m, measure), kind, n in product(enumerate(measures), ("mean", "difference"), human_topics):
            h, a = human[m], auto[m]
            if kind == "difference":  # every run minus the median run by human mean
                ref = np.argsort(h.mean(0))[h.shape[1] // 2]
                keep = np.arange(h.shape[1]) != ref
                h, a = (h - h[:, [ref]])[:, keep], (a - a[:, [ref]])[:, keep]
            for row in replicate_estimands(h, a, int(n), replications, root.spawn(1)[0]):
                units = row.pop("units")
                rows.append({"collection": key, "judge": judge, "measure": measure, "kind": kind, "topics": h.shape[0],
                             "human topics": int(n), **row, "coverage": units.mean(),
                             "se": units.std(ddof=1) / np.sqrt(len(units))})
    return pd.DataFrame(rows)


def coverage_table(data: Path, collections, replications: int, judges: int, sizes, seed: int,
                   verbose: bool = True) -> pd.DataFrame:
    """The full table; ``sizes``: topics per simulated collection, ``"real"`` for the real number."""
    import pyterrier_boot as pb

    root = np.random.default_rng(seed)
    rows = []
    for key in collections:
        folder, qrels_file, measures = COLLECTIONS[key]
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pb.InputWarning)
            runs = pb.read_runs(str(data / folder / "runs"))
        qrels = pb.read_qrels(str(data / folder / qrels_file))
        judge_rngs = root.spawn(judges)
        cubes = [per_topic_scores(runs, qrels, measures, r) for r in judge_rngs]
        if verbose:
            print(f"{key}: {len(runs)} runs, {cubes[0][0].shape[1]} topics, {judges} judges scored in "
                  f"{time.perf_counter() - start:.0f}s", file=sys.stderr)
        for m, measure in enumerate(measures):
            for kind, fraction, design in product(("mean", "difference"), FRACTIONS, sizes):
                size = cubes[0][0].shape[1] if design == "real" else int(design)
                indicators = {k: [] for k in METHODS}
                widths = {k: [] for k in METHODS}
                for (human, auto), rng in zip(cubes, root.spawn(judges)):
                    h, a = human[m], auto[m]
                    if kind == "difference":  # every run minus the median run by human mean
                        ref = np.argsort(h.mean(0))[h.shape[1] // 2]
                        keep = np.arange(h.shape[1]) != ref
                        h, a = (h - h[:, [ref]])[:, keep], (a - a[:, [ref]])[:, keep]
                    for method, (cover, width) in replicate(h, a, size, fraction, replications, rng).items():
                        indicators[method].append(cover.mean(1))  # one unit per replication
                        widths[method].append(width.mean(1))
                human_width = np.concatenate(widths["human-only (t)"]).mean()
                for method in METHODS:
                    units = np.concatenate(indicators[method])
                    rows.append({"collection": key, "measure": measure, "estimand": kind, "design": design,
                                 "topics": size, "human share": fraction,
                                 "human topics": max(2, int(round(fraction * size))), "method": method,
                                 "coverage": units.mean(), "se": units.std(ddof=1) / np.sqrt(len(units)),
                                 "width / human-only": np.concatenate(widths[method]).mean() / human_width})
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Coverage (SE) and width ratio per method and human share, pooled over collections and measures."""
    pooled = table.groupby(["design", "estimand", "human share", "method"], sort=False).agg(
        coverage=("coverage", "mean"), se=("se", lambda s: np.sqrt((s**2).sum()) / len(s)),
        width=("width / human-only", "mean"))
    return pooled.reset_index()


def estimand_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per design, interval and number of human-judged topics: the range of coverage over the
    collections, judges, measures and kinds (means, differences), and the largest SE."""
    grouped = table.groupby(["design", "interval", "human topics"], sort=False)
    return grouped.agg(cells=("coverage", "size"), lowest=("coverage", "min"), highest=("coverage", "max"),
                       pooled=("coverage", "mean"), max_se=("se", "max")).reset_index()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--judges", type=int, default=2)
    parser.add_argument("--topics", nargs="+", default=["real", "200"],
                        help="topics per simulated collection ('real': the collection's own number)")
    parser.add_argument("--collections", nargs="+", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--csv", type=Path, help="also write the full table here")
    parser.add_argument("--real-judges", action="store_true",
                        help="coverage of both estimands with the real LLM judges of DL 2019 / 2020 (docstring)")
    parser.add_argument("--human-topics", nargs="+", type=int, default=[5, 10, 20],
                        help="human-judged topics, with --real-judges")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"data folder {args.data} not found (set PYTERRIER_BOOT_SHARED or --data)")
    start = time.perf_counter()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    if args.real_judges:
        collections = [c for c in args.collections if c != "robust03"]  # the LLM judges are of DL 2019 / 2020
        table = estimand_table(args.data, collections, args.replications, args.human_topics, args.rng)
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print()
        print(estimand_summary(table).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    else:
        table = coverage_table(args.data, args.collections, args.replications, args.judges, args.topics, args.rng)
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print()
        print(summary(table).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\n{time.perf_counter() - start:.0f}s", file=sys.stderr)
    if args.csv:
        table.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
