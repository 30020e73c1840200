"""Coverage of prediction-powered intervals from a judging plan's sample of documents (issue 26, item 5).

Real LLM judges of the TREC DL 2019 / 2020 passage pools (``llm-judgments/``: GPT-4o and Llama 3.2,
binary labels read as grade 2) and, on one collection, a simulated judge (``simulate_judge``);
NIST's qrels are the people: a pool pair's human grade is its NIST label (0 when NIST did not
judge it). The truth is each run's mean over the collection's topics with the full NIST qrels
(``evaluate``); the estimator run on the whole pool as its "sample" must give it back exactly
(checked for every collection and judge). Measures nDCG@10, AP(rel=2), P(rel=2)@10, RR(rel=2);
human budgets 2%, 5%, 10%, 20% of the pool; columns: every run's mean and every run minus the
median run (by truth).

For each (collection, judge, budget) the plan is built once (``judging_plan``: strategy and design
"stratified"); a replication redraws only its sample (``designs.draw`` with the plan's ``n_h`` per
stratum) and estimates with ``PlanEstimator`` (prepared once per collection and judge):

* estimand ``"topics"``: the collection's topics are the target, only the documents are sampled;
  the interval is the package's (design replicates, normal quantile);
* estimand ``"population"``: the topics are the population; a replication draws as many topics
  with replacement, each drawn copy with its own independent document sample; the interval is
  Student's t over the per-topic estimates (as ``SampledPPIEvaluation`` computes it).

**How replications are assembled.** A full-pool estimate costs seconds (``"topics"``: the 200
design replicates), so replications are assembled from (topic, draw) pairs: the per-topic estimates
(and, for ``"topics"``, the per-topic design replicates) of independent full-pool draws are
independent across topics, so a replication takes each topic (each drawn copy, for
``"population"``) from one draw, chosen at random. Draws are split into independent *groups*
(``--group-topics``, ``--group-population`` draws each); a replication only combines draws of
one group, and copies of one topic in one replication get distinct draws of the group (as long
as the group has enough; the output counts any reuse). Replications of one group share draws, so
the standard errors are clustered by group (the independent unit): ratio estimates with a
linearised between-group variance. One approximation: the package tunes ``lam`` once per sample
from all topics, so an assembled replication mixes the ``lam`` of its draws (the mean ``lam`` is
reported). The interval of one unassembled draw is checked against ``SampledPPIEvaluation``'s
own (``_intervals`` and ``_flags``) in every cell.

Widths beside PPI's: ``human-only`` (the same sample and design, no automatic labels);
(a) topic-level PPI with the same number of human labels (``ppi_mean_ci``: ``n`` = labels / mean
pool size per topic whole topics, at least 2, chosen at random, NIST scores on them and the
judge's on all; same estimand; independent replications); (c) the full NIST qrels (Student's t
over the drawn topics for ``"population"``, 0 for ``"topics"``). Coverage is also split by the
table's flags (``"mostly 0"``, ``"few labels in top ranks"``, computed per replication, and the ratio
flags of the measures other than P@k under a tenth of the pool or for the topics estimand).

Cost: the default run (20 cells of 2 x 1,000 replications from 8 + 64 draws each; DL 2019 at 2%
and the simulated judge at 2% fall back to the Poisson design, the stratified one refusing so small a
budget) took 1,058 s at a load average of 3.3-4 on 2 cores (Nov 2026); no multiprocessing, as the
estimator's kernels already use both cores. More ``--draws-topics`` narrow the "topics" SEs.

Usage: python benchmarks/ppi_sampled_coverage.py [--data ../shared/data] [--replications 1000]
       [--collections dl19 dl20] [--judges gpt4o llama3.2 simulated] [--budgets 0.02 0.05 0.1 0.2]
       [--estimands topics population] [--draws-topics 8] [--draws-population 64] [--out f.json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from pyterrier_boot.ppi.sampled import NONLINEAR_BUDGET

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
COLLECTIONS = {"dl19": ("trec-dl-2019-passage", "qrels.dl19-passage.txt"),
               "dl20": ("trec-dl-2020-passage", "qrels.dl20-passage.txt")}
REAL_JUDGES = {"gpt4o": "binary_gpt4o_{}.txt.gz", "llama3.2": "binary_llama3.2_{}.txt.gz"}
MEASURES = ("nDCG@10", "AP(rel=2)", "P(rel=2)@10", "RR(rel=2)")
BUDGETS = (0.02, 0.05, 0.10, 0.20)
ESTIMANDS = ("topics", "population")
LEVEL = 0.95


# ----------------------------------------------------------------------------- data

def load_collection(data: Path, key: str):
    """Runs and the NIST qrels frame of a collection."""
    import pyterrier_boot as ptb

    folder, qrels_file = COLLECTIONS[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptb.InputWarning)
        runs = ptb.read_runs(str(data / folder / "runs"))
    nist = ptb.read_qrels(str(data / folder / qrels_file)).frame
    return runs, nist.assign(qid=nist["qid"].astype(str), docno=nist["docno"].astype(str))


def judge_qrels(data: Path, key: str, judge: str, nist: pd.DataFrame, runs, seed: int) -> pd.DataFrame:
    """The automatic qrels on NIST's topics: a real judge's 1 as grade 2, or a simulated judge."""
    import pyterrier_boot as ptb

    if judge == "simulated":
        return ptb.simulate_judge(nist, runs, rng=seed)
    auto = ptb.read_qrels(str(data / "llm-judgments" / REAL_JUDGES[judge].format(key))).frame
    auto = auto[auto["qid"].astype(str).isin(set(nist["qid"]))]
    return auto.assign(label=auto["label"].to_numpy() * 2)


def per_topic(runs, qrels, qids) -> np.ndarray:
    """``(measures, topics, runs)`` scores with ``qrels`` (0 where a run has no ranking)."""
    import pyterrier_boot as ptb

    long = ptb.evaluate(runs, qrels, list(MEASURES))
    cube = long.assign(qid=long["qid"].astype(str)).pivot_table(index=["measure", "qid"], columns="name",
                                                                 values="value")
    cube = cube.reindex(index=pd.MultiIndex.from_product([list(MEASURES), list(qids)]), columns=list(runs))
    return cube.fillna(0.0).to_numpy().reshape(len(MEASURES), len(qids), len(runs))


def column_weights(truth: np.ndarray) -> tuple[list[np.ndarray], list[int]]:
    """Per measure, ``(runs, columns)`` weights: every run, then every run minus the median run
    (by its truth, itself left out); and the median run of each measure."""
    n_runs = truth.shape[2]
    weights, medians = [], []
    for m in range(len(MEASURES)):
        ref = int(np.argsort(truth[m].mean(0), kind="stable")[n_runs // 2])
        diff = np.eye(n_runs)[:, np.arange(n_runs) != ref]
        diff[ref] -= 1.0
        weights.append(np.hstack([np.eye(n_runs), diff]))
        medians.append(ref)
    return weights, medians


# ----------------------------------------------------------------------------- draws

class Cell:
    """One (collection, judge, budget): the plan's arrays and the full-pool draws."""

    def __init__(self, estimator, plan, human: np.ndarray, weights, truth_cols, auto_zero):
        pool = plan.pool
        self.estimator, self.human, self.weights = estimator, human, weights
        self.truth_cols, self.auto_zero = truth_cols, auto_zero  # (M, C); (M, T, S)
        self.pi = pool["inclusion_probability"].to_numpy(float)
        self.stratum = pool["stratum"].to_numpy(np.int64)
        self.design = plan.design
        self.take = np.bincount(self.stratum, weights=pool["sampled"].to_numpy(float)).astype(np.int64) \
            if plan.design == "stratified" else None
        self.n_labels = int(plan.budget)  # the Poisson design's expected sample size
        self.n_pool = len(pool)

    def estimate(self, estimand: str, rng: np.random.Generator):
        from pyterrier_boot.judging import designs

        s = designs.draw(self.pi, self.stratum, self.design, rng, self.take)
        stratum = self.stratum[s] if self.design == "stratified" else None
        return self.estimator.estimate(s, self.human[s], self.pi[s], stratum=stratum, estimand=estimand, rng=rng)

    def draws(self, estimand: str, k: int, rng: np.random.Generator, check: bool) -> dict:
        """``k`` independent full-pool draws reduced to what assembly needs, per kind (ppi, human-only):
        ``point (K, M, C, T)``, for "topics" ``spread (K, M, R*C, T)`` (replicate minus estimate);
        ``in_top (K, M, S, T)``; ``lam (K, M)``."""
        out = {"point": {}, "spread": {}, "in_top": [], "lam": []}
        for i in range(k):
            res = self.estimate(estimand, rng)
            for kind in ("ppi", "human-only"):
                values = res.estimates[kind]
                combined = [values[m] @ w for m, w in enumerate(self.weights)]  # (rows, T, C) each
                out["point"].setdefault(kind, []).append(np.stack([c[0].T for c in combined]))
                if estimand == "topics":
                    spread = [(c[1:] - c[:1]).transpose(0, 2, 1).reshape(-1, c.shape[1]) for c in combined]
                    out["spread"].setdefault(kind, []).append(np.stack(spread).astype(np.float32))
            out["in_top"].append(res.sampled_in_top.transpose(0, 2, 1).astype(np.float64))
            out["lam"].append(res.lam)
            if check and i == 0:
                self._check(res, estimand, {key: {kk: v[0] for kk, v in val.items()}
                                            for key, val in (("point", out["point"]), ("spread", out["spread"]))},
                            out["in_top"][0])
        return {"point": {kk: np.stack(v) for kk, v in out["point"].items()},
                "spread": {kk: np.stack(v) for kk, v in out["spread"].items()},
                "in_top": np.stack(out["in_top"]), "lam": np.array(out["lam"])}

    def _check(self, res, estimand: str, one: dict, in_top: np.ndarray) -> None:
        """The interval and flags this benchmark computes for an unassembled draw are the package's."""
        n_topics = len(res.qids)
        counts = [np.ones((n_topics, 1))]
        stored = {"point": {k: v[None] for k, v in one["point"].items()},
                  "spread": {k: v[None] for k, v in one["spread"].items()}, "in_top": in_top[None]}
        for m, w in enumerate(self.weights):
            package = res._intervals(m, w)
            for kind in ("ppi", "human-only"):
                low, high, _ = intervals(stored, estimand, kind, m, counts)
                ci = package[kind].confidence_interval
                if not (np.allclose(low[:, 0], ci.low, atol=1e-9) and np.allclose(high[:, 0], ci.high, atol=1e-9)):
                    raise AssertionError(f"interval of {MEASURES[m]} {kind} ({estimand}) differs from the package's")
            ratio_flag = res.nonlinear[m] and (res.n_labels < NONLINEAR_BUDGET * res.n_pool or estimand == "topics")
            mine = flags(stored, self.auto_zero[m], m, w, counts, n_topics, ratio_flag)[:, 0]
            theirs = np.array([bool(f) for f in res._flags(m, w)])
            if not np.array_equal(mine, theirs):
                raise AssertionError(f"flags of {MEASURES[m]} ({estimand}) differ from the package's")


def intervals(stored: dict, estimand: str, kind: str, m: int, counts: list[np.ndarray]):
    """``(C, B)`` low, high and estimate of ``B`` assembled replications; ``counts[j]`` ``(T, B)``:
    copies of each topic taken from draw ``j``."""
    point = stored["point"][kind][:, m]  # (K, C, T)
    n_topics = sum(c.sum(0) for c in counts)[0]
    total = sum(point[j] @ counts[j] for j in range(len(counts)))
    estimate = total / n_topics
    if estimand == "topics":
        spread = stored["spread"][kind][:, m].astype(np.float64)  # (K, R*C, T)
        moved = sum(spread[j] @ counts[j] for j in range(len(counts))) / n_topics  # (R*C, B)
        moved = moved.reshape(-1, point.shape[1], moved.shape[1])
        half = stats.norm.ppf(0.5 + LEVEL / 2) * np.sqrt((moved**2).mean(0))
    else:
        squares = sum((point[j] ** 2) @ counts[j] for j in range(len(counts)))
        var = np.maximum(squares - n_topics * estimate**2, 0.0) / (n_topics - 1)
        half = stats.t.ppf(0.5 + LEVEL / 2, n_topics - 1) * np.sqrt(var / n_topics)
    return estimate - half, estimate + half, estimate


def flags(stored: dict, auto_zero: np.ndarray, m: int, weights: np.ndarray, counts, n_topics: int,
          ratio_flag: bool) -> np.ndarray:
    """``(C, B)``: the column is flagged ("mostly 0" or "few labels in top ranks", as ``_flags``; every
    column when ``ratio_flag``: a measure other than P@k under a tenth of the pool or for the topics
    estimand)."""
    from pyterrier_boot.ppi.sampled import FEW_LABELS_IN_TOP
    from pyterrier_boot.ppi.tables import MOSTLY_ZERO

    copies = sum(counts)  # (T, B)
    zero_share = (auto_zero.T.astype(float) @ copies) / n_topics  # (S, B)
    in_top = sum(stored["in_top"][j, m] @ counts[j] for j in range(len(counts)))  # (S, B)
    run_flag = (zero_share > MOSTLY_ZERO) | (in_top < FEW_LABELS_IN_TOP * n_topics) | ratio_flag
    involved = (np.abs(weights) > 0).astype(float)  # (S, C)
    return (involved.T @ run_flag.astype(float)) > 0


# ----------------------------------------------------------------------------- assembly

def assemble_counts(estimand: str, n_topics: int, k: int, b: int, rng: np.random.Generator):
    """Per draw of a group, ``(T, B)`` copies of each topic it supplies, and the number of copies
    that had to reuse a draw already used for the same topic in the replication."""
    if estimand == "topics":
        choice = rng.integers(0, k, size=(n_topics, b))
        return [(choice == j).astype(float) for j in range(k)], 0
    topics = np.sort(rng.integers(0, n_topics, size=(b, n_topics)), axis=1)
    first = np.r_[True, np.diff(topics.reshape(-1)) != 0].reshape(b, n_topics)
    first[:, 0] = True
    index = np.arange(n_topics)[None, :].repeat(b, 0)
    start = np.maximum.accumulate(np.where(first, index, 0), axis=1)
    copy = index - start  # 0, 1, ... among the copies of a topic
    perms = np.argsort(rng.random((b, n_topics, k)), axis=2)
    draw = perms[np.arange(b)[:, None], topics, copy % k]
    reused = int((copy >= k).sum())
    counts = []
    for j in range(k):
        c = np.zeros((n_topics, b))
        hit = draw == j
        np.add.at(c, (topics[hit], np.nonzero(hit)[0]), 1.0)
        counts.append(c)
    return counts, reused


class Tally:
    """Coverage counts per independent unit (group): ratio estimates with a clustered SE."""

    def __init__(self):
        self.hits, self.units = [], []

    def add(self, hits: float, units: float) -> None:
        self.hits.append(hits)
        self.units.append(units)

    def rate(self) -> tuple[float, float]:
        hits, units = np.array(self.hits, float), np.array(self.units, float)
        if units.sum() == 0:
            return float("nan"), float("nan")
        rate = hits.sum() / units.sum()
        g = len(units)
        if g < 2:
            return float(rate), float("nan")
        se = np.sqrt(g / (g - 1) * ((hits - rate * units) ** 2).sum()) / units.sum()
        return float(rate), float(se)


def run_cell(cell: Cell, estimand: str, truth_topics: np.ndarray, auto_topics: np.ndarray, args,
             rng: np.random.Generator, timing: dict) -> list[dict]:
    """Rows (per measure and column kind) of one cell and estimand."""
    n_topics = truth_topics.shape[1]
    k_total, k = (args.draws_topics, args.group_topics) if estimand == "topics" else \
        (args.draws_population, args.group_population)
    groups = max(1, k_total // k)
    per_group = int(np.ceil(args.replications / groups))
    n_cols = cell.weights[0].shape[1]
    n_runs = cell.weights[0].shape[0]
    kinds = {"mean": slice(0, n_runs), "difference": slice(n_runs, n_cols)}
    keys = list(product(range(len(MEASURES)), kinds))
    tallies = {key: {name: Tally() for name in ("ppi", "ppi unflagged", "ppi flagged", "human-only")}
               for key in keys}
    widths = {key: {name: [] for name in ("ppi", "human-only", "full NIST")} for key in keys}
    flagged_share = {key: [] for key in keys}
    lams, reused = [], 0
    start = time.perf_counter()
    for g in range(groups):
        stored = cell.draws(estimand, k, rng, check=(g == 0))
        lams.append(stored["lam"])
        counts, r = assemble_counts(estimand, n_topics, k, per_group, rng)
        reused += r
        copies = sum(counts)
        for m, (name, cols) in product(range(len(MEASURES)), kinds.items()):
            goal = cell.truth_cols[m][cols, None]
            ratio_flag = not MEASURES[m].startswith("P(") and (
                cell.n_labels < NONLINEAR_BUDGET * cell.n_pool or estimand == "topics")
            flagged = flags(stored, cell.auto_zero[m], m, cell.weights[m], counts, n_topics, ratio_flag)[cols]
            for kind in ("ppi", "human-only"):
                low, high, _ = intervals(stored, estimand, kind, m, counts)
                low, high = low[cols], high[cols]
                covered = (low <= goal) & (goal <= high)
                tallies[(m, name)][kind].add(covered.sum(), covered.size)
                widths[(m, name)][kind].append((high - low).mean())
                if kind == "ppi":
                    tallies[(m, name)]["ppi unflagged"].add((covered & ~flagged).sum(), (~flagged).sum())
                    tallies[(m, name)]["ppi flagged"].add((covered & flagged).sum(), flagged.sum())
                    flagged_share[(m, name)].append(flagged.mean())
            if estimand == "population":  # (c): Student's t over the drawn topics with the full NIST qrels
                h = truth_topics[m] @ cell.weights[m][:, cols]  # (T, C)
                mean = (h.T @ copies) / n_topics
                var = np.maximum((h.T**2) @ copies - n_topics * mean**2, 0.0) / (n_topics - 1)
                half = stats.t.ppf(0.5 + LEVEL / 2, n_topics - 1) * np.sqrt(var / n_topics)
                widths[(m, name)]["full NIST"].append(2 * half.mean())
            else:
                widths[(m, name)]["full NIST"].append(0.0)
    timing[estimand] = timing.get(estimand, 0.0) + time.perf_counter() - start
    topic_level = topic_level_ppi(cell, estimand, truth_topics, auto_topics, kinds, groups * per_group, rng)
    lam = np.concatenate(lams).mean(0)
    rows = []
    for m, name in keys:
        t = tallies[(m, name)]
        row = {"estimand": estimand, "measure": MEASURES[m], "column": name,
               "replications": groups * per_group, "draws": groups * k, "groups": groups,
               "labels": cell.n_labels, "pool": cell.n_pool, "lam": float(lam[m])}
        for label, key in (("ppi", "ppi"), ("unflagged", "ppi unflagged"), ("flagged", "ppi flagged"),
                           ("human-only", "human-only")):
            row[f"cov {label}"], row[f"se {label}"] = t[key].rate()
        row["flagged share"] = float(np.mean(flagged_share[(m, name)]))
        row.update({f"width {w}": float(np.mean(v)) for w, v in widths[(m, name)].items()})
        row.update(topic_level[(m, name)])
        row["reused copies"] = reused
        rows.append(row)
    return rows


def topic_level_ppi(cell: Cell, estimand: str, truth_topics, auto_topics, kinds, b: int,
                    rng: np.random.Generator) -> dict:
    """(a): ``ppi_mean_ci`` with ``n`` whole topics judged by people (NIST scores) and the judge's
    scores on the others, ``n`` = labels / mean pool size per topic; independent replications."""
    from pyterrier_boot import FitWarning, ppi_mean_ci

    n_topics = truth_topics.shape[1]
    n = int(min(n_topics - 2, max(2, round(cell.n_labels / (cell.n_pool / n_topics)))))
    if estimand == "topics":
        drawn = np.argsort(rng.random((b, n_topics)), axis=1)
    else:
        drawn = rng.integers(0, n_topics, size=(b, n_topics))
    out = {}
    for m, (name, cols) in product(range(len(MEASURES)), kinds.items()):
        h = truth_topics[m] @ cell.weights[m][:, cols]
        a = auto_topics[m] @ cell.weights[m][:, cols]

        def stack(values, index):
            return values[index].transpose(1, 0, 2).reshape(index.shape[1], -1)

        with warnings.catch_warnings():  # below 10 human-judged topics it warns: measured here
            warnings.simplefilter("ignore", FitWarning)
            res = ppi_mean_ci(stack(h, drawn[:, :n]), stack(a, drawn[:, :n]), stack(a, drawn[:, n:]),
                              estimand=estimand)
        low, high = (np.asarray(v).reshape(b, -1) for v in res.confidence_interval)
        goal = cell.truth_cols[m][cols][None]
        covered = ((low <= goal) & (goal <= high)).mean(1)  # one unit per replication
        out[(m, name)] = {"topics (a)": n, "cov (a)": float(covered.mean()),
                          "se (a)": float(covered.std(ddof=1) / np.sqrt(b)), "width (a)": float((high - low).mean())}
    return out


# ----------------------------------------------------------------------------- driver

def prepare(data: Path, key: str, judge: str, seed: int):
    """Runs, the estimator, the per-topic truth and judge scores of one collection and judge."""
    import pyterrier_boot as ptb
    from pyterrier_boot.ppi.sampled import PlanEstimator

    runs, nist = load_collection(data, key)
    auto = judge_qrels(data, key, judge, nist, runs, seed)
    plan = ptb.judging_plan(runs, auto, BUDGETS[-1], rng=seed)
    estimator = PlanEstimator(runs, plan.pool, list(MEASURES), depth=plan.depth)
    qids = estimator.qids
    truth_topics = per_topic(runs, nist, qids)
    auto_topics = per_topic(runs, auto, qids)
    labels = plan.pool[["qid", "docno"]].merge(nist[["qid", "docno", "label"]], how="left", on=["qid", "docno"])
    human = labels["label"].fillna(0).to_numpy(np.int64)
    everything = np.ones(len(human), bool)
    whole = estimator.estimate(everything, human, np.ones(len(human)), stratum=plan.pool["stratum"].to_numpy(),
                               estimand="population").estimates
    gap = float(np.abs(whole["ppi"][:, 0] - truth_topics).max())
    if gap > 1e-9:
        raise AssertionError(f"{key} {judge}: the estimator on the whole pool differs from the NIST truth by {gap:.2e}")
    auto_zero = whole["auto-only"][:, 0] == 0  # the judge's scores do not depend on the sample
    return runs, auto, estimator, truth_topics, auto_topics, human, auto_zero, plan.pool_fingerprint


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--collections", nargs="+", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument("--judges", nargs="+", default=[*REAL_JUDGES, "simulated"],
                        choices=[*REAL_JUDGES, "simulated"])
    parser.add_argument("--simulated-on", default="dl20", choices=list(COLLECTIONS),
                        help="the one collection of the simulated judge")
    parser.add_argument("--budgets", nargs="+", type=float, default=list(BUDGETS))
    parser.add_argument("--estimands", nargs="+", default=list(ESTIMANDS), choices=list(ESTIMANDS))
    parser.add_argument("--replications", type=int, default=1000, help="assembled replications per cell")
    parser.add_argument("--draws-topics", type=int, default=8, help="full-pool draws per cell, estimand topics")
    parser.add_argument("--group-topics", type=int, default=2, help="draws per independent group, estimand topics")
    parser.add_argument("--draws-population", type=int, default=64, help="full-pool draws per cell, population")
    parser.add_argument("--group-population", type=int, default=8, help="draws per group, estimand population")
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write every figure as JSON here")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"data folder {args.data} not found (set PYTERRIER_BOOT_SHARED or --data)")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores", file=sys.stderr)
    start = time.perf_counter()
    root = np.random.default_rng(args.rng)
    rows, timings, fallbacks = [], [], []
    settings = [(c, j) for c, j in product(args.collections, args.judges) if j != "simulated" or c == args.simulated_on]
    for key, judge in settings:
        t0 = time.perf_counter()
        import pyterrier_boot as ptb

        runs, auto, estimator, truth_topics, auto_topics, human, auto_zero, pool_fingerprint = prepare(args.data, key, judge, args.rng)
        print(f"{key} {judge}: {len(runs)} runs, {truth_topics.shape[1]} topics, {len(human)} pool pairs; "
              f"prepared (and whole-pool estimate = NIST truth checked) in {time.perf_counter() - t0:.0f}s",
              file=sys.stderr)
        weights, _ = column_weights(truth_topics)
        truth_cols = np.stack([truth_topics[m].mean(0) @ w for m, w in enumerate(weights)])
        for budget in args.budgets:
            t1 = time.perf_counter()
            seed = root.spawn(1)[0]
            try:
                plan = ptb.judging_plan(runs, auto, budget, rng=seed)
            except ValueError as error:  # a budget below the stratified design's two pairs per stratum
                fallbacks.append({"collection": key, "judge": judge, "budget": budget, "reason": str(error)})
                print(f"  budget {budget:g}: {error}; the Poisson design instead", file=sys.stderr)
                plan = ptb.judging_plan(runs, auto, budget, design="poisson", rng=seed)
            if plan.pool_fingerprint != pool_fingerprint:
                raise AssertionError("the plan's pool is not the estimator's")
            cell = Cell(estimator, plan, human, weights, truth_cols, auto_zero)
            timing = {}
            for estimand in args.estimands:
                for row in run_cell(cell, estimand, truth_topics, auto_topics, args, root.spawn(1)[0], timing):
                    rows.append({"collection": key, "judge": judge, "budget": budget, "design": plan.design, **row})
            timings.append({"collection": key, "judge": judge, "budget": budget, **timing,
                            "total": time.perf_counter() - t1})
            print(f"  budget {budget:g}: {cell.n_labels} labels; " + ", ".join(f"{k} {v:.0f}s" for k, v in timing.items())
                  + f", total {timings[-1]['total']:.0f}s", file=sys.stderr)
    table = pd.DataFrame(rows)
    report(table)
    for skip in fallbacks:
        print(f"\n{skip['collection']} {skip['judge']} {skip['budget']:.0%}: design 'poisson' (the stratified design "
              f"refused: {skip['reason']})")
    elapsed = time.perf_counter() - start
    print(f"\ntotal {elapsed:.0f}s; load average at end: {os.getloadavg()[0]:.2f} (1 min)")
    if args.out:
        args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "seconds": elapsed,
                                        "load_average_end": os.getloadavg(), "timings": timings, "poisson_fallbacks": fallbacks,
                                        "rows": table.to_dict(orient="records")}, indent=1))


def report(table: pd.DataFrame) -> None:
    """Markdown tables: coverage (SE) and widths per cell; then the coverage ranges."""
    def pct(c, s):
        return "" if np.isnan(c) else f"{100 * c:.1f} ({100 * s:.1f})" if not np.isnan(s) else f"{100 * c:.1f}"

    shown = pd.DataFrame({
        "coll": table["collection"], "judge": table["judge"], "budget": table["budget"].map(lambda b: f"{b:.0%}"),
        "design": table["design"],
        "estimand": table["estimand"], "measure": table["measure"], "column": table["column"],
        "ppi cov % (SE)": [pct(c, s) for c, s in zip(table["cov ppi"], table["se ppi"])],
        "unflagged": [pct(c, s) for c, s in zip(table["cov unflagged"], table["se unflagged"])],
        "flagged": [pct(c, s) for c, s in zip(table["cov flagged"], table["se flagged"])],
        "flagged %": (100 * table["flagged share"]).round(0).astype(int),
        "human-only cov": [pct(c, s) for c, s in zip(table["cov human-only"], table["se human-only"])],
        "(a) cov": [pct(c, s) for c, s in zip(table["cov (a)"], table["se (a)"])],
        "w ppi": table["width ppi"].round(4), "w human-only": table["width human-only"].round(4),
        "w (a)": table["width (a)"].round(4), "(a) topics": table["topics (a)"],
        "w full NIST": table["width full NIST"].round(4), "lam": table["lam"].round(2)})
    for estimand, part in table.groupby("estimand"):
        first = part.iloc[0]
        print(f"estimand {estimand!r}: {first['replications']} replications per cell assembled from {first['draws']} "
              f"independent full-pool draws in {first['groups']} groups of {first['draws'] // first['groups']} (a "
              "replication takes each topic copy from a draw of one group); SEs (in brackets, percentage points) "
              f"clustered by group: {first['groups']} independent units. (a): {first['replications']} independent "
              "replications, SE over them.")
    print()
    print(shown.to_markdown(index=False))
    print()
    summary = table.groupby(["estimand", "budget"]).agg(
        cells=("cov ppi", "size"), lowest=("cov ppi", "min"), highest=("cov ppi", "max"),
        unflagged_lowest=("cov unflagged", "min"), unflagged_highest=("cov unflagged", "max"),
        max_se=("se ppi", "max"),
        narrower_than_a=("width ppi", lambda w: int((w < table.loc[w.index, "width (a)"]).sum())),
        narrower_than_human=("width ppi", lambda w: int((w < table.loc[w.index, "width human-only"]).sum())))
    print(summary.reset_index().to_markdown(index=False, floatfmt=".3f"))


if __name__ == "__main__":
    main()
