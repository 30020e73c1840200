"""Coverage and width of intervals from judging plans at the budgets people have (issue 36, item 4).

TREC DL 2019 and 2020 passage runs; NIST's qrels are the people (a pool pair's human grade is its
NIST label, 0 where NIST did not judge it) and the truth is each run's mean with the full NIST
qrels. Judges: GPT-4o and Llama 3.2 (``llm-judgments/``: binary labels, mapped 1 -> 2 with
``label_map``) and a simulated graded judge (``simulate_judge``). Budgets: 10, 20, 50 and 100
labels per topic. Measures: nDCG@10, P(rel=2)@10, RR(rel=2), AP(rel=2); columns: every run's mean
and every run minus the median run (by truth).

Per (collection, judge, budget) two plans are made with ``judging_plan`` (the default strategy and
design): one **measure-aware** (``measures=`` the four measures) and one as before (**statAP**, no
``measures``). Each *plan* of a cell is an independent redraw of the sample with the plan's
inclusion probabilities (``designs.draw`` with the plan's strata and ``n_h``): 500 per cell for
the measure-aware plans, ``--plans-statap`` (100) for the others. Every redraw is estimated with
the package's own estimator (``PlanEstimator``; the PPI kind, ``lam`` tuned per measure as
``ppi_evaluate`` does, 200 design replicates):

* estimand ``"topics"``: the collection's topics are the target, one interval per redraw (design
  replicates, normal quantile, as ``SampledPPIEvaluation``); 500 independent replications;
* estimand ``"population"``: the topics are the population; a replication draws as many topics
  with replacement and takes each drawn copy's per-topic estimates from a redraw of the bank (a
  different one for each copy of a topic), then Student's t over the copies; 1,000 replications
  assembled from the redraws in ``--groups`` groups (a replication reads one group), standard
  errors clustered by group.

The first redraw of every cell is checked against ``ppi_evaluate`` on the same sample (intervals
and the run flags). Coverage is split by the run flags of the table (``"mostly 0"``, ``"few
labels in top ranks"``); the measured-coverage flags are what this benchmark writes
(``--write-table``: ``pyterrier_boot/ppi/measured_coverage.py``). ``--forecast`` adds, per cell,
``JudgingPlan.forecast()``'s widths beside the realised ones.

Usage: python benchmarks/ppi_budget_coverage.py [--data ../shared/data] [--plans 500]
       [--collections dl19 dl20] [--judges gpt4o llama3.2 simulated] [--budgets 10 20 50 100]
       [--out results.json] [--resume] [--write-table] [--forecast] [--measures M ...]
"""
from __future__ import annotations

import argparse
import copy
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

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
COLLECTIONS = {"dl19": ("trec-dl-2019-passage", "qrels.dl19-passage.txt", "DL 2019"),
               "dl20": ("trec-dl-2020-passage", "qrels.dl20-passage.txt", "DL 2020")}
JUDGES = {"gpt4o": ("binary_gpt4o_{}.txt.gz", "GPT-4o"), "llama3.2": ("binary_llama3.2_{}.txt.gz", "Llama 3.2"),
          "simulated": (None, "simulated")}
MEASURES = ("nDCG@10", "P(rel=2)@10", "RR(rel=2)", "AP(rel=2)")
#: the measures of the table the flags read (``--measures`` may name fewer, for a study of narrower plans)
TABLE_MEASURES = MEASURES
FAMILIES = {"nDCG@10": "nDCG@10", "P(rel=2)@10": "P@10", "RR(rel=2)": "RR", "AP(rel=2)": "AP"}
BUDGETS = (10, 20, 50, 100)
LEVEL = 0.95
REPLICATES = 200


# ----------------------------------------------------------------------------- data


def load(data: Path, key: str, judge: str, seed: int):
    """Runs, NIST qrels, the automatic qrels and their label map."""
    import pyterrier_boot as ptb

    folder, qrels_file, _ = COLLECTIONS[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptb.InputWarning)
        runs = ptb.read_runs(str(data / folder / "runs"))
    nist = ptb.read_qrels(str(data / folder / qrels_file)).frame
    if judge == "simulated":
        return runs, nist, ptb.simulate_judge(nist, runs, rng=seed), None
    auto = ptb.read_qrels(str(data / "llm-judgments" / JUDGES[judge][0].format(key))).frame
    return runs, nist, auto[auto["qid"].isin(set(nist["qid"]))], {1: 2}


def per_topic(runs, qrels, qids) -> np.ndarray:
    """``(measures, topics, runs)`` scores with ``qrels`` (0 where a run has no ranking)."""
    import pyterrier_boot as ptb

    long = ptb.evaluate(runs, qrels, list(MEASURES))
    cube = long.assign(qid=long["qid"].astype(str)).pivot_table(index=["measure", "qid"], columns="name",
                                                                 values="value")
    cube = cube.reindex(index=pd.MultiIndex.from_product([list(MEASURES), list(qids)]), columns=list(runs))
    return cube.fillna(0.0).to_numpy().reshape(len(MEASURES), len(qids), len(runs))


def column_weights(truth: np.ndarray) -> list[np.ndarray]:
    """Per measure, ``(runs, columns)``: every run, then every run minus the median run (by truth)."""
    n_runs = truth.shape[2]
    out = []
    for m in range(len(MEASURES)):
        ref = int(np.argsort(truth[m].mean(0), kind="stable")[n_runs // 2])
        diff = np.eye(n_runs)[:, np.arange(n_runs) != ref]
        diff[ref] -= 1.0
        out.append(np.hstack([np.eye(n_runs), diff]))
    return out


# ----------------------------------------------------------------------------- one plan's redraws


class Bank:
    """The redraws of one plan: per-topic PPI estimates (population) and topics-estimand intervals."""

    def __init__(self, setting, plan, k: int, rng: np.random.Generator, check: bool):
        from pyterrier_boot.judging import designs

        pool = plan.pool
        self.pi = pool["inclusion_probability"].to_numpy(float)
        self.stratum = pool["stratum"].to_numpy(np.int64)
        self.take = (np.bincount(self.stratum, weights=pool["sampled"].to_numpy(float)).astype(np.int64)
                     if plan.design == "stratified" else None)
        self.design, self.setting = plan.design, setting
        n_topics, n_runs = setting.truth.shape[1:]
        n_cols = setting.weights[0].shape[1]
        self.topic_values = np.empty((k, len(MEASURES), n_topics, n_runs))  # per-topic estimates
        self.topics_low = np.empty((k, len(MEASURES), n_cols))
        self.topics_high = np.empty((k, len(MEASURES), n_cols))
        self.in_top = np.empty((k, len(MEASURES), n_topics, n_runs), np.int16)  # sampled pairs in top ranks
        self.lam = np.empty((k, len(MEASURES)))
        self.labels = np.empty(k)
        for i in range(k):
            sampled = designs.draw(self.pi, self.stratum, self.design, rng, self.take)
            before = copy.deepcopy(rng) if check and i == 0 else None  # the replicates' draws, for _check
            self._estimate(i, sampled, rng)
            if before is not None:
                self._check(sampled, before)

    def _estimate(self, i: int, sampled: np.ndarray, rng: np.random.Generator) -> None:
        from pyterrier_boot.judging.estimation import replicate_draws
        from pyterrier_boot.ppi.sampled import _Sample, replicate_standard_error

        est, human = self.setting.estimator, self.setting.human
        stratum = self.stratum[sampled] if self.take is not None else None
        draws = replicate_draws(rng, REPLICATES, int(sampled.sum()))
        sample = _Sample(est, sampled, human[sampled], self.pi[sampled], stratum, draws)
        z = stats.norm.ppf(0.5 + LEVEL / 2)
        for m, km in enumerate(est.lowered):
            values, lam = sample.measure(km, "ppi", None)  # (1 + R, topics, runs)
            self.topic_values[i, m] = values[0]
            combined = values @ self.setting.weights[m]  # (1 + R, topics, cols)
            estimate = combined[0].mean(0)
            se = replicate_standard_error(combined[1:].mean(1) - estimate)
            self.topics_low[i, m], self.topics_high[i, m] = estimate - z * se, estimate + z * se
            self.lam[i, m] = lam
        self.in_top[i] = est._sampled_in_top(sampled)
        self.labels[i] = sampled.sum()

    def _check(self, sampled: np.ndarray, rng: np.random.Generator) -> None:
        """The first redraw's estimates are ``PlanEstimator.estimate``'s (the package's own), from the
        same replicates (nDCG's estimate reads them: its bias)."""
        est, human = self.setting.estimator, self.setting.human
        stratum = self.stratum[sampled] if self.take is not None else None
        res = est.estimate(sampled, human[sampled], self.pi[sampled], stratum=stratum, estimand="population",
                           n_replicates=REPLICATES, rng=rng)
        for m in range(len(MEASURES)):
            np.testing.assert_allclose(res.estimates["ppi"][m, 0], self.topic_values[0, m], atol=1e-12)
            np.testing.assert_allclose(res.lam[m], self.lam[0, m], atol=1e-12)


class Setting:
    """One collection and judge: runs, estimator, human grades of the pool, truth, column weights."""

    def __init__(self, data: Path, key: str, judge: str, seed: int):
        import pyterrier_boot as ptb
        from pyterrier_boot.ppi.sampled import PlanEstimator

        self.key, self.judge = key, judge
        self.runs, nist, self.auto, self.label_map = load(data, key, judge, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ptb.InputWarning)
            plan = ptb.judging_plan(self.runs, self.auto, 0.1, measures=list(MEASURES), label_map=self.label_map)
        self.pool_fingerprint = plan.pool_fingerprint
        pairs = pd.MultiIndex.from_frame(plan.pool[["qid", "docno"]])
        labelled = pairs.isin(pd.MultiIndex.from_frame(self.auto[["qid", "docno"]].astype(str)))  # as ppi_evaluate
        self.estimator = PlanEstimator(self.runs, plan.pool, list(MEASURES), depth=plan.depth, labelled=labelled)
        labels = plan.pool[["qid", "docno"]].merge(nist[["qid", "docno", "label"]], how="left", on=["qid", "docno"])
        self.human = labels["label"].fillna(0).to_numpy(np.int64)
        self.truth = per_topic(self.runs, nist, self.estimator.qids)
        self.weights = column_weights(self.truth)
        self.goal = np.stack([self.truth[m].mean(0) @ w for m, w in enumerate(self.weights)])  # (M, C)
        everything = np.ones(len(self.human), bool)
        whole = self.estimator.estimate(everything, self.human, np.ones(len(self.human)),
                                        stratum=plan.pool["stratum"].to_numpy(), estimand="population").estimates
        gap = float(np.abs(whole["ppi"][:, 0] - self.truth).max())
        if gap > 1e-9:
            raise AssertionError(f"{key} {judge}: the estimator on the whole pool differs from NIST by {gap:.2e}")
        self.auto_zero = (whole["auto-only"][:, 0] == 0).mean(1)  # (M, runs): share of topics at 0
        self.n_topics, self.n_runs = self.truth.shape[1:]


# ----------------------------------------------------------------------------- coverage


def run_flags(setting: Setting, in_top: np.ndarray, m: int, copies: np.ndarray | None = None) -> np.ndarray:
    """``(columns,)`` or ``(columns, B)``: a column involves a run flagged "mostly 0" or "few labels
    in top ranks" (in_top: per-run sampled top pairs summed over the topics, ``(runs,)`` or ``(runs, B)``)."""
    from pyterrier_boot.ppi.sampled import FEW_LABELS_IN_TOP
    from pyterrier_boot.ppi.tables import MOSTLY_ZERO

    zero = setting.auto_zero[m] > MOSTLY_ZERO
    few = in_top < FEW_LABELS_IN_TOP * setting.n_topics
    flagged = (zero[:, None] | few) if few.ndim == 2 else (zero | few)
    involved = (np.abs(setting.weights[m]) > 0).astype(float)  # (runs, cols)
    return (involved.T @ flagged.astype(float)) > 0


def topics_rows(setting: Setting, bank: Bank) -> list[dict]:
    """Per measure and column kind: coverage of the topics intervals over the redraws."""
    rows = []
    n_runs = setting.n_runs
    for m, kind in product(range(len(MEASURES)), ("mean", "difference")):
        cols = slice(0, n_runs) if kind == "mean" else slice(n_runs, None)
        goal = setting.goal[m, cols]
        low, high = bank.topics_low[:, m, cols], bank.topics_high[:, m, cols]
        covered = (low <= goal) & (goal <= high)  # (K, C)
        flagged = run_flags(setting, bank.in_top[:, m].sum(1).T.astype(float), m)[cols].T  # (K, C)
        rows.append(_row("topics", MEASURES[m], kind, covered, flagged, np.arange(len(low)), high - low))
    return rows


def _row(estimand, measure, kind, covered, flagged, units, width) -> dict:
    """Coverage (%) and its standard error over the independent ``units`` (one per row of
    ``covered``), overall and split by the run flags, and the mean width."""
    def share(mask):
        hits = np.bincount(units, weights=(covered & mask).sum(1))
        return _ratio_se(hits, np.bincount(units, weights=mask.sum(1)))

    cov, se = share(np.ones_like(covered, bool))
    unflagged, unflagged_se = share(~flagged)
    flagged_cov, flagged_se = share(flagged)
    return {"estimand": estimand, "measure": measure, "column": kind, "coverage": cov, "se": se,
            "unflagged": unflagged, "unflagged se": unflagged_se, "flagged": flagged_cov, "flagged se": flagged_se,
            "run-flagged share": float(flagged.mean()), "width": float(width.mean())}


def _ratio_se(hits: np.ndarray, units: np.ndarray) -> tuple[float, float]:
    """A ratio of sums and its standard error over independent units (linearised)."""
    keep = units > 0
    hits, units = hits[keep].astype(float), units[keep].astype(float)
    if units.sum() == 0:
        return float("nan"), float("nan")
    rate = hits.sum() / units.sum()
    g = len(units)
    se = np.sqrt(g / max(g - 1, 1) * ((hits - rate * units) ** 2).sum()) / units.sum()
    return 100 * float(rate), 100 * float(se)


def population_rows(setting: Setting, bank: Bank, groups: int, replications: int, rng) -> list[dict]:
    """Per measure and column kind: coverage of the population intervals over replications that
    resample the topics, each copy's estimates from its own redraw of the bank."""
    k = len(bank.labels)
    size = k // groups
    per_group = int(np.ceil(replications / groups))
    n_topics, n_runs = setting.n_topics, setting.n_runs
    t = stats.t.ppf(0.5 + LEVEL / 2, n_topics - 1)
    out = {(m, kind): ([], [], [], []) for m, kind in product(range(len(MEASURES)), ("mean", "difference"))}
    for g in range(groups):
        draws = np.arange(g * size, (g + 1) * size)
        topic, draw = _resample(n_topics, size, per_group, rng)  # (B, T) each
        for m in range(len(MEASURES)):
            values = bank.topic_values[draws[draw], m, topic]  # (B, T, runs)
            cols = values @ setting.weights[m]  # (B, T, C)
            mean, sd = cols.mean(1), cols.std(1, ddof=1)
            low, high = (mean - t * sd / np.sqrt(n_topics)).T, (mean + t * sd / np.sqrt(n_topics)).T  # (C, B)
            in_top = bank.in_top[draws[draw], m, topic].sum(1, dtype=float).T  # (runs, B): the copies' redraws
            flagged = run_flags(setting, in_top, m)  # (C, B)
            for kind in ("mean", "difference"):
                cols_ = slice(0, n_runs) if kind == "mean" else slice(n_runs, None)
                goal = setting.goal[m, cols_][:, None]
                covered = (low[cols_] <= goal) & (goal <= high[cols_])
                store = out[(m, kind)]
                store[0].append(covered.T)
                store[1].append(flagged[cols_].T)
                store[2].append(np.full(per_group, g))
                store[3].append((high[cols_] - low[cols_]).T)
    rows = []
    for (m, kind), (covered, flagged, cluster, width) in out.items():
        covered, flagged, cluster = np.vstack(covered), np.vstack(flagged), np.concatenate(cluster)
        rows.append(_row("population", MEASURES[m], kind, covered, flagged, cluster, np.vstack(width)))
    return rows


def _resample(n_topics: int, k: int, b: int, rng: np.random.Generator):
    """``(B, T)`` drawn topics and, for each slot, the redraw (0..k-1) it reads: copies of one topic
    in a replication read different redraws (while the group has enough)."""
    topic = np.sort(rng.integers(0, n_topics, size=(b, n_topics)), axis=1)
    first = np.r_[True, np.diff(topic.reshape(-1)) != 0].reshape(b, n_topics)
    first[:, 0] = True
    index = np.arange(n_topics)[None, :].repeat(b, 0)
    copy = index - np.maximum.accumulate(np.where(first, index, 0), axis=1)
    order = np.argsort(rng.random((b, n_topics, k)), axis=2)
    return topic, order[np.arange(b)[:, None], topic, copy % k]


# ----------------------------------------------------------------------------- driver


def make_plan(setting: Setting, budget: int, aware: bool, seed):
    """The cell's plan (the default strategy and design), its merge or fallback warnings recorded."""
    import pyterrier_boot as ptb

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ptb.InputWarning)
        plan = ptb.judging_plan(setting.runs, setting.auto, budget * setting.n_topics,
                                measures=list(MEASURES) if aware else None, label_map=setting.label_map,
                                rng=np.random.default_rng(seed))
    if plan.pool_fingerprint != setting.pool_fingerprint:
        raise AssertionError("the plan's pool is not the estimator's")
    notes = [str(w.message) for w in caught if "0/1" not in str(w.message)]
    return plan, notes


def run_cell(setting: Setting, budget: int, aware: bool, k: int, args, seed) -> dict:
    """One plan of one cell: its redraws, both estimands' coverage, widths and the mean lam."""
    start = time.perf_counter()
    plan, notes = make_plan(setting, budget, aware, seed)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    bank = Bank(setting, plan, k, rng, check=True)
    rows = topics_rows(setting, bank) + population_rows(setting, bank, args.groups, args.replications, rng)
    strata = len(plan.strata()) if plan.design == "stratified" else 0
    info = {"collection": setting.key, "judge": setting.judge, "labels per topic": budget,
            "plan": "measures" if aware else "statAP", "plans": k, "design": plan.design, "strata": strata,
            "labels": float(bank.labels.mean()), "pool": len(plan.pool), "notes": notes,
            "lam": dict(zip(MEASURES, bank.lam.mean(0).round(3).tolist())),
            "seconds": time.perf_counter() - start}
    return {**info, "rows": rows}


def cell_seed(args, key: str, judge: str, budget: int, aware: bool) -> list[int]:
    """A seed of its own per cell (the same whatever else runs: a cell can be rerun or resumed)."""
    return [args.rng, list(COLLECTIONS).index(key), list(JUDGES).index(judge), budget, int(aware)]


def main(argv=None):
    global MEASURES
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--collections", nargs="+", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument("--judges", nargs="+", default=list(JUDGES), choices=list(JUDGES))
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS), help="labels per topic")
    parser.add_argument("--plans", type=int, default=500, help="redraws per measure-aware cell")
    parser.add_argument("--plans-statap", type=int, default=100, help="redraws per cell of plans without measures")
    parser.add_argument("--groups", type=int, default=20, help="independent groups of redraws (population)")
    parser.add_argument("--replications", type=int, default=1000, help="population replications per cell")
    parser.add_argument("--measures", nargs="+", default=list(MEASURES), choices=list(MEASURES),
                        help="plans made for these measures only (their pool and probabilities follow them); with "
                             "fewer than the four, no plans without measures (their pool differs) and no --write-table")
    parser.add_argument("--narrower", type=Path, action="append", default=[],
                        help="the --out of a run with fewer --measures: its cells join the reports and the table's "
                             "lowest coverage (the flags then hold for plans made for those measures alone too)")
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("ppi_budget_coverage.json"))
    parser.add_argument("--resume", action="store_true", help="keep the cells already in --out")
    parser.add_argument("--write-table", action="store_true", help="write pyterrier_boot/ppi/measured_coverage.py")
    parser.add_argument("--report-only", action="store_true", help="only print the tables of --out")
    parser.add_argument("--forecast", action="store_true",
                        help="add JudgingPlan.forecast()'s widths of every measure-aware cell of --out (the same plans)")
    args = parser.parse_args(argv)
    MEASURES = tuple(m for m in TABLE_MEASURES if m in args.measures)
    if MEASURES != TABLE_MEASURES and args.write_table:
        parser.error("--write-table needs the four measures of the table the flags read")
    results = json.loads(args.out.read_text()) if (args.resume or args.report_only) and args.out.exists() else \
        {"cells": [], "load": []}
    if not args.report_only:
        run_all(args, results)
    if args.forecast:
        forecast_all(args, results)
    for path in args.narrower:  # reported and tabled with these, not saved into --out
        results = {**results, "cells": results["cells"] + json.loads(path.read_text())["cells"]}
    report(results)
    report_forecasts(results)
    if args.write_table:
        write_table(results)
        report_lowest(results)
        report_flags(results)


def run_all(args, results: dict) -> None:
    if not args.data.exists():
        sys.exit(f"data folder {args.data} not found (set PYTERRIER_BOOT_SHARED or --data)")
    done = {(c["collection"], c["judge"], c["labels per topic"], c["plan"]) for c in results["cells"]}
    results["load"].append({"start": os.getloadavg()[0], "cores": os.cpu_count()})
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores", file=sys.stderr)
    for key, judge in product(args.collections, args.judges):
        setting = None
        kinds = (True, False) if MEASURES == TABLE_MEASURES else (True,)  # narrower plans: another pool
        for budget, aware in product(args.budgets, kinds):
            if (key, judge, budget, "measures" if aware else "statAP") in done:
                continue
            if setting is None:
                t0 = time.perf_counter()
                setting = Setting(args.data, key, judge, args.rng)
                print(f"{key} {judge}: {setting.n_runs} runs, {setting.n_topics} topics, {len(setting.human)} pool "
                      f"pairs; prepared in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
            cell = run_cell(setting, budget, aware, args.plans if aware else args.plans_statap, args,
                            cell_seed(args, key, judge, budget, aware))
            results["cells"].append(cell)
            args.out.write_text(json.dumps(results, indent=1))
            print(f"  {budget}/topic {cell['plan']}: {cell['design']} ({cell['strata']} strata), "
                  f"{cell['seconds']:.0f}s, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    results["load"][-1]["end"] = os.getloadavg()[0]
    args.out.write_text(json.dumps(results, indent=1))


def forecast_all(args, results: dict) -> None:
    """The forecast of every measure-aware cell's plan, beside its realised widths."""
    done = {(f["collection"], f["judge"], f["labels per topic"]) for f in results.get("forecasts", [])}
    cells = [c for c in results["cells"] if c["plan"] == "measures"
             and (c["collection"], c["judge"], c["labels per topic"]) not in done]
    settings: dict = {}
    for cell in cells:
        key, judge, budget = cell["collection"], cell["judge"], cell["labels per topic"]
        if (key, judge) not in settings:
            settings = {(key, judge): Setting(args.data, key, judge, args.rng)}
        setting = settings[(key, judge)]
        plan, _ = make_plan(setting, budget, True, cell_seed(args, key, judge, budget, True))
        start = time.perf_counter()
        table = plan.forecast(rng=args.rng).to_frame()
        seconds = time.perf_counter() - start
        realised = {(r["measure"], r["column"], r["estimand"]): r["width"] for r in cell["rows"]}
        results.setdefault("forecasts", []).append({
            "collection": key, "judge": judge, "labels per topic": budget, "seconds": seconds,
            "rows": [{"measure": m, "column": c, "estimand": e, "forecast": w, "realised": realised[(m, c, e)]}
                     for m, c, e, w in table[["measure", "column", "estimand", "width"]].itertuples(index=False)]})
        args.out.write_text(json.dumps(results, indent=1))
        print(f"forecast {key} {judge} {budget}/topic: {seconds:.0f}s", file=sys.stderr)


def report_forecasts(results: dict) -> None:
    """Forecast against realised widths: the ratio per cell, and how many are within 20%."""
    rows = [{**{k: f[k] for k in ("collection", "judge", "labels per topic")}, **r}
            for f in results.get("forecasts", []) for r in f["rows"]]
    if not rows:
        return
    table = pd.DataFrame(rows).assign(ratio=lambda t: t["forecast"] / t["realised"])
    wide = table.pivot_table(index=["collection", "judge", "measure", "column", "estimand"], columns="labels per topic",
                             values="ratio")
    print("\n### forecast width / realised width\n")
    print(wide.round(2).to_markdown())
    within = (table["ratio"] - 1).abs() <= 0.2
    print(f"\nwithin 20%: {int(within.sum())} of {len(table)} ({within.mean():.0%}); ratio range "
          f"{table['ratio'].min():.2f}-{table['ratio'].max():.2f}; by estimand: "
          + ", ".join(f"{e} {g['ratio'].sub(1).abs().le(0.2).mean():.0%}" for e, g in table.groupby("estimand")))


def frame(results: dict) -> pd.DataFrame:
    """One row per cell, estimand, measure and column."""
    rows = []
    for cell in results["cells"]:
        made_for = dict.fromkeys(row["measure"] for row in cell["rows"]) if cell["plan"] == "measures" else {}
        info = {k: v for k, v in cell.items() if k not in ("rows", "notes", "lam", "plan measures")}
        info["plan measures"] = ", ".join(made_for)  # the measures a plan was made for, read off its rows
        rows += [{**info, **row} for row in cell["rows"]]
    return pd.DataFrame(rows)


def report(results: dict) -> None:
    """Markdown: coverage per cell (SE), flagged shares, widths against plans without measures."""
    table = frame(results)
    if table.empty:
        return
    def pct(c, s):
        return "" if np.isnan(c) else f"{c:.1f} ({s:.1f})"

    for (estimand, plan), part in table.groupby(["estimand", "plan"], sort=False):
        print(f"\n### estimand {estimand}, plans {'made for the measures' if plan == 'measures' else 'without measures'}"
              f" ({int(part['plans'].iloc[0])} plans per cell)\n")
        part = part.assign(cell=[pct(c, s) for c, s in zip(part["coverage"], part["se"])])
        wide = part.pivot_table(index=["plan measures", "collection", "judge", "measure", "column"],
                                columns="labels per topic", values="cell", aggfunc="first")
        print(wide.to_markdown())
    four = table[table["plan measures"].isin(["", ", ".join(TABLE_MEASURES)])]
    widths = four.pivot_table(index=["collection", "judge", "labels per topic", "estimand", "measure", "column"],
                              columns="plan", values="width")
    if {"measures", "statAP"} <= set(widths.columns):
        ratio = (widths["measures"] / widths["statAP"]).rename("width ratio (measures / statAP)")
        print("\n" + ratio.groupby(level=["labels per topic", "estimand", "measure"]).describe()[
            ["min", "50%", "max"]].round(3).to_markdown())
    print("\nload average:", results["load"])


def report_lowest(results: dict) -> None:
    """What the flags read (plans made for the measures): the lowest coverage over the settings
    measured at each budget, its standard error, and how many settings it is the lowest of."""
    table = frame(results)
    table = table[table["plan"] == "measures"]
    cells = []
    for (measure, column, estimand, budget), part in table.groupby(["measure", "column", "estimand",
                                                                     "labels per topic"]):
        worst = part.loc[part["coverage"].idxmin()]
        cells.append({"measure": measure, "column": column, "estimand": estimand, "labels per topic": budget,
                      "cell": f"{worst['coverage']:.1f} ({worst['se']:.1f}) of {len(part)}"})
    wide = pd.DataFrame(cells).pivot_table(index=["measure", "column"], columns=["estimand", "labels per topic"],
                                           values="cell", aggfunc="first")
    print("\n### lowest coverage (SE) of the settings measured, plans made for the measures\n")
    print(wide.to_markdown())


def report_flags(results: dict) -> None:
    """Flags that discriminate: the share of cells the measured-coverage flag marks (read from the
    table just written, as the package does), and the coverage of flagged and unflagged cells."""
    import importlib

    from pyterrier_boot.measures.lowering import lower
    from pyterrier_boot.measures.parsing import parse_measures
    from pyterrier_boot.ppi import coverage, measured_coverage

    importlib.reload(measured_coverage)
    importlib.reload(coverage)
    table = frame(results)
    lowered = {m: lower(parse_measures([m])[0].measure) for m in MEASURES}
    table["measured flag"] = [coverage.coverage_flag(lowered[m], m, plan == "measures", b, e, c) != ""
                        for m, plan, b, e, c in table[["measure", "plan", "labels per topic", "estimand",
                                                       "column"]].itertuples(index=False)]
    print("\n### measured-coverage flags: cells flagged, coverage of flagged and unflagged cells\n")
    for (plan, estimand), part in table.groupby(["plan", "estimand"]):
        text = [f"plans {plan}, estimand {estimand}: {int(part['measured flag'].sum())} of {len(part)} cells flagged"]
        for flagged, group in part.groupby("measured flag"):
            text.append(f"{'flagged' if flagged else 'unflagged'} {group['coverage'].min():.1f}-"
                        f"{group['coverage'].max():.1f} (mean {group['coverage'].mean():.1f})")
        print("; ".join(text))
    report_flags_held_out(table)
    run = table.dropna(subset=["flagged se"])
    print(f"run flags ('mostly 0', 'few labels in top ranks'): {run['run-flagged share'].mean():.1%} of the columns; "
          f"coverage of flagged columns {run['flagged'].mean():.1f}, of the others {run['unflagged'].mean():.1f} "
          "(means over cells)")


def report_flags_held_out(table: pd.DataFrame) -> None:
    """The flags validated out of sample: each setting's (collection and judge) cells are flagged
    by the table written *without* that setting (the lowest coverage over the other settings at the
    largest measured budget not above the cell's, under ``coverage.HOLDS``), then the unflagged
    cells' coverage is read: how many fall below 95 - 2 points by more than two standard errors."""
    from pyterrier_boot.ppi.coverage import HOLDS

    table = table.rename(columns={"labels per topic": "budget"}).assign(
        setting=table["collection"] + " " + table["judge"])  # both kinds of plan on it left out together
    flags = []
    for row in table.itertuples(index=False):
        others = table[(table["setting"] != row.setting) & (table["budget"] <= row.budget)
                       & (table["measure"] == row.measure) & (table["plan"] == row.plan)
                       & (table["estimand"] == row.estimand) & (table["column"] == row.column)]
        if others.empty:
            flags.append(True)  # not measured elsewhere at this budget or below: flagged as not measured
            continue
        flags.append(bool(others.loc[others["budget"] == others["budget"].max(), "coverage"].min() < HOLDS))
    table = table.assign(held_out_flag=flags)
    print("\n### flags out of sample (each setting flagged by the table without it)\n")
    for (plan, estimand), part in table.groupby(["plan", "estimand"]):
        unflagged = part[~part["held_out_flag"]]
        low = unflagged[unflagged["coverage"] + 2 * unflagged["se"] < HOLDS]
        text = f"plans {plan}, estimand {estimand}: {int(part['held_out_flag'].sum())} of {len(part)} cells flagged"
        if len(unflagged):
            text += (f"; unflagged {unflagged['coverage'].min():.1f}-{unflagged['coverage'].max():.1f} "
                     f"(mean {unflagged['coverage'].mean():.1f}), {len(low)} of {len(unflagged)} below {HOLDS:g} by "
                     "more than 2 SE")
            text += "".join(f"\n    {r.setting} {r.measure} {r.column} {r.budget}/topic: {r.coverage:.1f} ({r.se:.1f})"
                            for r in low.itertuples(index=False))
        print(text)


def write_table(results: dict) -> None:
    """The lowest coverage per family, plan kind, estimand, column and budget, where it was measured."""
    table = frame(results)
    lines = []
    keys = ["measure", "plan", "estimand", "column", "labels per topic"]
    for key, part in table.groupby(keys, sort=True):
        worst = part.loc[part["coverage"].idxmin()]
        where = f"{COLLECTIONS[worst['collection']][2]} {JUDGES[worst['judge']][1]}"
        if worst["plan measures"] not in ("", ", ".join(TABLE_MEASURES)):
            where += f" with a plan for {' and '.join(worst['plan measures'].split(', '))} alone"
        lines.append(f"    ({FAMILIES[key[0]]!r}, {key[1] == 'measures'}, {key[2]!r}, {key[3]!r}, {int(key[4])}, "
                     f"{worst['coverage']:.1f}, {worst['se']:.1f}, {int(worst['plans'])}, {where!r}),")
    path = HERE.parent / "pyterrier_boot" / "ppi" / "measured_coverage.py"
    head = path.read_text().split("TABLE:")[0]
    path.write_text(head + "TABLE: tuple[tuple[str, bool, str, str, int, float, float, int, str], ...] = (\n"
                    + "\n".join(lines) + "\n)\n")
    print(f"wrote {len(lines)} rows to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
