"""Confidence sequences over topics whose scores come from a judging plan (issue 27, item 3 with the
plans of issue 26): do they hold when each topic is scored from an LLM's labels of the whole pool
and people's labels of a sample of it?

    python benchmarks/sequential_plan_validation.py [--orders 300] [--iid 1000] [--length 200] [--seed 0]

Cells: TREC DL 2019 and 2020 passage; the judges GPT-4o and Llama 3.2 of the shared data (their 1
as grade 2); a default judging plan (stratified strategy and design) of 5, 10 or 20% of the pool;
NIST's labels as the people's. Measures nDCG@10 and AP(rel=2). The truth of each column is its
full-set mean by NIST's labels of every pool pair: each run's mean, and each run minus the median
run (by that truth).

1. **orders** (the package's path, ``--orders`` sequences per cell): each draws a fresh sample with
   the plan's probabilities and a random order of the topics, and estimates every topic as
   ``SequentialEvaluation.from_plan`` does (``PlanEstimator.estimate(topic_order=)``: each topic's
   ``lam`` tuned on the topics before it); then the 95% betting sequence of every column. A miss:
   the sequence ever excludes the truth. Orders are draws without replacement, so this setting is
   conservative, as in ``sequential_validation.py``.
2. **iid** (``--iid`` sequences of ``--length`` topics per cell): topics drawn with replacement,
   each occurrence scored from its own sample (one of 100 independent samples of the pool); ``lam``
   per measure fixed from a further independent sample (a fixed ``lam`` is predictable too). 10 runs
   spread over the ranking and their 9 differences from the median run.

Printed per cell and measure: the time-uniform miss rate over the columns (SE clustered by
sequence) and the worst column's, for means and differences; and the median widths at n = 25 and
50 (iid) of the plan's sequences and of the same sequences scored with NIST's labels of every pair
(what judging a sample costs).
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import pyterrier_boot as ptb
from pyterrier_boot.judging import designs
from pyterrier_boot.ppi.sampled import PlanEstimator

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "data"
COLLECTIONS = {"DL 2019": ("trec-dl-2019-passage", "qrels.dl19-passage.txt", "dl19"),
               "DL 2020": ("trec-dl-2020-passage", "qrels.dl20-passage.txt", "dl20")}
JUDGES = {"GPT-4o": "binary_gpt4o_{}.txt.gz", "Llama 3.2": "binary_llama3.2_{}.txt.gz"}
MEASURES = ("nDCG@10", "AP(rel=2)")
BUDGETS = (0.05, 0.10, 0.20)
LOOKS = (25, 50)
LEVEL = 0.95
INDEPENDENT_SAMPLES = 100


class Cell:
    """One collection, judge and budget: the plan, its estimator and the truth."""

    def __init__(self, runs, nist: pd.DataFrame, auto: pd.DataFrame, budget: float, seed: int):
        self.plan = ptb.judging_plan(runs, auto, budget, rng=seed)
        pool = self.plan.pool
        self.estimator = PlanEstimator(runs, pool, list(MEASURES), depth=self.plan.depth)
        labels = nist.set_index(["qid", "docno"])["label"]
        index = pd.MultiIndex.from_frame(pool[["qid", "docno"]])
        self.human = labels.reindex(index).fillna(0).to_numpy(np.int64)  # NIST, unjudged as 0
        self.pi = pool["inclusion_probability"].to_numpy(float)
        self.stratum = pool["stratum"].to_numpy(np.int64)
        self.take = np.bincount(self.stratum, weights=pool["sampled"].to_numpy(float)).astype(np.int64)
        every = np.ones(len(pool), bool)
        # every pair labelled, probability 1: the estimates are the measures on NIST's labels
        self.truth = self.estimator.estimate(every, self.human, np.ones(len(pool))).estimates["ppi"][:, 0]
        self.qids = list(self.estimator.qids)

    def sample(self, rng) -> np.ndarray:
        return designs.draw(self.pi, self.stratum, "stratified", rng, self.take)

    def estimates(self, sampled, rng, *, order=None, lam=None) -> np.ndarray:
        """``(measures, topics, runs)`` plan estimates from the sample ``sampled``."""
        result = self.estimator.estimate(sampled, self.human[sampled], self.pi[sampled], rng=rng,
                                         topic_order=order, lam=lam)
        return result.estimates["ppi"][:, 0]


def columns(values: np.ndarray, median: int, runs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: ``(..., topics, runs)`` values as means (y None: zeros of the same shape means a
    mean) and differences from the median run; ``runs`` selects the runs."""
    chosen = np.arange(values.shape[-1]) if runs is None else runs
    others = chosen[chosen != median]
    return values[..., chosen], values[..., others] - values[..., [median]]


def misses(values: np.ndarray, truth: np.ndarray, bounds) -> tuple[np.ndarray, np.ndarray]:
    """Per column, whether its sequence ever excludes ``truth``; and the widths at LOOKS."""
    with warnings.catch_warnings():  # an empty sequence is counted as a miss
        warnings.simplefilter("ignore", ptb.DegenerateWarning)
        cs = ptb.confidence_sequence(values, bounds=bounds, confidence_level=LEVEL)
    missed = (cs.ci_low > truth + 1e-12) | (cs.ci_high < truth - 1e-12) | np.isnan(cs.ci_low)
    looks = [n - 1 for n in LOOKS if n <= len(values)]
    return missed.any(axis=0), (cs.ci_high - cs.ci_low)[looks]


def summary(missed: np.ndarray) -> str:
    """``(sequences, columns)`` misses: the mean rate (SE clustered by sequence), the worst column's."""
    per_sequence = missed.mean(axis=1)
    worst = missed.mean(axis=0).max()
    return (f"{per_sequence.mean():.4f} ({per_sequence.std(ddof=1) / np.sqrt(len(per_sequence)):.4f}); "
            f"worst {worst:.3f}")


def orders(cell: Cell, count: int, rng) -> dict:
    """Misses of every run's mean and every run minus the median run, through the package's path."""
    out: dict = {measure: {"mean": [], "difference": []} for measure in MEASURES}
    for _ in range(count):
        order = rng.permutation(len(cell.qids))
        values = cell.estimates(cell.sample(rng), rng, order=[cell.qids[i] for i in order])[:, order]
        for m, measure in enumerate(MEASURES):
            truth = cell.truth[m].mean(0)
            median = int(np.argsort(truth, kind="stable")[len(truth) // 2])
            x, d = columns(values[m], median)
            tx, td = columns(truth[None], median)
            out[measure]["mean"].append(misses(x, tx[0], (0.0, 1.0))[0])
            out[measure]["difference"].append(misses(d, td[0], (-1.0, 1.0))[0])
    return {measure: {kind: np.array(v) for kind, v in kinds.items()} for measure, kinds in out.items()}


def iid(cell: Cell, count: int, length: int, rng) -> dict:
    """Misses and widths of 10 runs and their 9 differences from the median run over iid topics."""
    fixed = cell.estimator.estimate(*_drawn(cell, rng)).lam  # lam tuned on an independent sample
    samples = np.stack([np.stack([cell.estimates(cell.sample(rng), rng, lam=fixed[m])[m]
                                  for m in range(len(MEASURES))]) for _ in range(INDEPENDENT_SAMPLES)])
    out: dict = {}
    for m, measure in enumerate(MEASURES):
        truth = cell.truth[m].mean(0)
        ranking = np.argsort(truth, kind="stable")
        median = int(ranking[len(truth) // 2])
        chosen = np.unique(np.r_[ranking[np.linspace(0, len(truth) - 1, 10).astype(int)], median])
        tx, td = columns(truth[None], median, chosen)
        result: dict = {"mean": [], "difference": [], "width": [], "nist width": []}
        for _ in range(count):
            topic = rng.integers(0, len(cell.qids), length)
            draw = rng.integers(0, INDEPENDENT_SAMPLES, length)
            x, d = columns(samples[draw, m, topic], median, chosen)
            nx, nd = columns(cell.truth[m][topic], median, chosen)
            hit, width = misses(d, td[0], (-1.0, 1.0))
            result["mean"].append(misses(x, tx[0], (0.0, 1.0))[0])
            result["difference"].append(hit)
            result["width"].append(width)
            result["nist width"].append(misses(nd, td[0], (-1.0, 1.0))[1])
        out[measure] = {kind: np.array(v) for kind, v in result.items()}
    return out


def _drawn(cell: Cell, rng):
    sampled = cell.sample(rng)
    return sampled, cell.human[sampled], cell.pi[sampled]


def load(collection: str, judge: str):
    folder, qrels_file, key = COLLECTIONS[collection]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptb.InputWarning)
        runs = ptb.read_runs(str(SHARED / folder / "runs"))
    nist = ptb.read_qrels(str(SHARED / folder / qrels_file)).frame.astype({"qid": str, "docno": str})
    auto = ptb.read_qrels(str(SHARED / "llm-judgments" / JUDGES[judge].format(key))).frame
    auto = auto[auto["qid"].astype(str).isin(set(nist["qid"]))]
    return runs, nist, auto.assign(label=auto["label"].to_numpy() * 2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=300, help="random orders per cell (default 300)")
    parser.add_argument("--iid", type=int, default=1000, help="iid sequences per cell (default 1000)")
    parser.add_argument("--length", type=int, default=200, help="topics of an iid sequence (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    rows, widths = [], []
    for collection in COLLECTIONS:
        for judge in JUDGES:
            runs, nist, auto = load(collection, judge)
            for budget in BUDGETS:
                cell = Cell(runs, nist, auto, budget, int(rng.integers(2**31)))
                by_order, by_iid = orders(cell, args.orders, rng), iid(cell, args.iid, args.length, rng)
                for measure in MEASURES:
                    row = {"collection": collection, "judge": judge, "budget": f"{budget:.0%}", "measure": measure}
                    for kind in ("mean", "difference"):
                        row[f"{kind}, orders"] = summary(by_order[measure][kind])
                        row[f"{kind}, iid"] = summary(by_iid[measure][kind])
                    rows.append(row)
                    width, nist_width = by_iid[measure]["width"], by_iid[measure]["nist width"]
                    for i, n in enumerate(LOOKS):
                        widths.append({"collection": collection, "judge": judge, "budget": f"{budget:.0%}",
                                       "measure": measure, "n": n,
                                       "plan width (difference)": np.nanmedian(width[:, i]),
                                       "every pair labelled": np.nanmedian(nist_width[:, i]),
                                       "ratio": np.nanmedian(width[:, i] / nist_width[:, i])})
                print(f"{collection} {judge} {budget:.0%}: done at {time.perf_counter() - started:.0f} s", flush=True)
    pd.set_option("display.width", 250)
    print(f"\nTime-uniform miss rate at 95% over the columns (SE clustered by sequence); worst column. "
          f"{args.orders} orders, {args.iid} iid sequences of {args.length} topics per cell")
    print(pd.DataFrame(rows).to_markdown(index=False))
    print("\nMedian width of the differences' sequences (iid), plan against every pair labelled by NIST")
    print(pd.DataFrame(widths).to_markdown(index=False, floatfmt=".3f"))
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
