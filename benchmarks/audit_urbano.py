"""``audit_tests`` on the TREC score matrices of Urbano, Lima & Hanjalic (SIGIR 2019), against the
Type I error rates they published (two-sided, alpha = 0.05).

Protocol (theirs, from their repository julian-urbano/sigir2019-statistical, R/01-margins.R and
R/11-type_1.R): per collection and measure, runs with identical per-topic scores are removed, then the
bottom 10% of runs by mean; the Type I rate of a measure and topic count pools the simulations of
its collections in proportion to their runs (TREC-5..8 for AP, P@10 and RR; Web 2010-13 for
nDCG@20 and ERR@20). Here each collection gets ``--simulations`` x its share of the runs.

Two sets of rates are computed on the same simulated topic sets, drawn from the model ``audit_tests``
fits to each matrix (its functions: ``fit_model``, ``pair_draws``, ``pair_differences``):

* the package's tests, as ``audit_tests`` runs them (t, Wilcoxon as scipy, the sign test dropping
  exact ties, Sakai's studentised paired bootstrap, the randomisation test; 1,000 resamples);
* Urbano et al.'s own variants (R/ir_tests.R, R/test.cpp): R's ``wilcox.test`` (exact below 50
  topics without ties or zeros, else the normal approximation with continuity correction), the
  sign test counting ``|d| <= 0.01`` as ties, and the bootstrap of the mean difference (not
  studentised, shifted to the null, ``p = count / B``); their t and permutation tests are ours.

The published rates (their ``output/type_1/type_1_<measure>_<n>.csv``, row alpha = 0.05, columns
t2, w2, s2, b2, p2) are the reference; they came from 1,667,000 simulations per measure and topic
count with 10^6 resamples.

Usage: python benchmarks/audit_urbano.py [--data ../shared/data] [--simulations 10000]
       [--measures ap p10 rr ndcg20 err20] [--topics 25 50 100] [--out results.csv]
       python benchmarks/audit_urbano.py --summarise results.csv [more.csv]   (later files win)
"""
import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from pyterrier_boot.audit.battery import draw_plans, pvalues
from pyterrier_boot.audit.goodness import goodness_of_fit
from pyterrier_boot.audit.model import fit_model
from pyterrier_boot.audit.simulation import draw_pairs, pair_differences, pair_draws
from pyterrier_boot.audit.support import support_for

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
COLLECTIONS = {"ap": ("adhoc5", "adhoc6", "adhoc7", "adhoc8"), "p10": ("adhoc5", "adhoc6", "adhoc7", "adhoc8"),
               "rr": ("adhoc5", "adhoc6", "adhoc7", "adhoc8"),
               "ndcg20": ("web2010", "web2011", "web2012", "web2013"),
               "err20": ("web2010", "web2011", "web2012", "web2013")}
MEASURES = {"ap": "AP", "p10": "P@10", "rr": "RR", "ndcg20": "nDCG@20", "err20": "ERR@20"}
TESTS = ("t", "wilcoxon", "sign", "paired-bootstrap", "randomization")
#: Urbano et al. (2019), output/type_1/type_1_<measure>_<n>.csv at alpha = 0.05, two-tailed (t2 w2 s2 b2 p2)
PUBLISHED = {
    ("ap", 25): (0.0509, 0.0607, 0.0464, 0.0689, 0.0534), ("ap", 50): (0.0512, 0.0722, 0.0779, 0.0597, 0.0522),
    ("ap", 100): (0.0511, 0.0965, 0.1251, 0.0553, 0.0517),
    ("p10", 25): (0.0506, 0.0487, 0.0380, 0.0675, 0.0467), ("p10", 50): (0.0503, 0.0526, 0.0552, 0.0585, 0.0481),
    ("p10", 100): (0.0500, 0.0563, 0.0828, 0.0539, 0.0489),
    ("rr", 25): (0.0495, 0.0439, 0.0289, 0.0672, 0.0482), ("rr", 50): (0.0498, 0.0480, 0.0360, 0.0580, 0.0498),
    ("rr", 100): (0.0500, 0.0498, 0.0485, 0.0539, 0.0501),
    ("ndcg20", 25): (0.0498, 0.0556, 0.0387, 0.0679, 0.0523), ("ndcg20", 50): (0.0504, 0.0617, 0.0592, 0.0588, 0.0515),
    ("ndcg20", 100): (0.0502, 0.0748, 0.0885, 0.0542, 0.0507),
    ("err20", 25): (0.0482, 0.0546, 0.0366, 0.0668, 0.0517), ("err20", 50): (0.0494, 0.0602, 0.0559, 0.0579, 0.0509),
    ("err20", 100): (0.0498, 0.0732, 0.0822, 0.0538, 0.0505),
}


def prepared(path: Path) -> pd.DataFrame:
    """Urbano et al.'s preprocessing: duplicates (all topics within 1e-5) out, then the bottom 10% by mean."""
    data = pd.read_csv(path)
    keep = []
    for column in data.columns:
        if not any(np.all(np.abs(data[column] - data[k]) <= 1e-5) for k in keep):
            keep.append(column)
    data = data[keep]
    means = data.mean()
    data = data.loc[:, means >= np.quantile(means, 0.1)]
    frame = data.T
    frame.columns = pd.Index([str(q) for q in range(frame.shape[1])], name="qid")
    return frame


def urbano_pvalues(D: np.ndarray, plan) -> dict[str, np.ndarray]:
    """Urbano et al.'s Wilcoxon, sign and bootstrap tests (two-tailed) on each row of ``D``."""
    n = D.shape[1]
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sorted_abs = np.sort(np.abs(D), axis=1)
        exact = (n < 50) & (sorted_abs[:, 0] > 0) & ~(np.diff(sorted_abs, axis=1) == 0).any(axis=1)
        p = np.empty(D.shape[0])
        for flag, method in ((True, "exact"), (False, "asymptotic")):
            rows = exact == flag
            if rows.any():
                p[rows] = stats.wilcoxon(D[rows], axis=1, method=method, correction=True, zero_method="wilcox").pvalue
        out["wilcoxon"] = p
        positive, tied = (D > 0.01).sum(axis=1), (np.abs(D) <= 0.01).sum(axis=1)
        m = n - tied
        out["sign"] = np.where(m > 0, np.minimum(1, 2 * stats.binom.cdf(np.minimum(positive, m - positive), m, 0.5)),
                               np.nan)
    means = D.mean(axis=1)
    boot = D @ plan.weights().T / n
    boot -= boot.mean(axis=1, keepdims=True)
    out["bootstrap"] = (np.abs(boot) >= np.abs(means)[:, None]).mean(axis=1)
    return out


def collection_rates(frame: pd.DataFrame, measure: str, counts, n_sims: int, seed: int) -> tuple[dict, object]:
    """Null p-values of the package's tests and of Urbano's variants on the same simulated topic sets,
    per topic count, from the model ``audit_tests`` fits (the same functions: ``fit_model`` on the
    pairs the simulations draw, ``pair_draws``, ``pair_differences``, the battery's ``pvalues``)."""
    X = frame.to_numpy(dtype=float)
    systems = list(frame.index)
    support = support_for(measure, X)
    X = support.snap(X, systems)
    rng = np.random.default_rng(seed)
    draws = {n: np.random.default_rng([seed, n]) for n in counts}
    pairs = set()
    for n in counts:  # the pairs each topic count will draw (the first draws of its generator)
        reference, other = draw_pairs(np.random.default_rng([seed, n]), len(systems), n_sims)
        pairs |= set(zip(np.minimum(reference, other).tolist(), np.maximum(reference, other).tolist()))
    model = fit_model(X, systems, support, rng, joint=False, pairs=pairs)
    goodness = goodness_of_fit(model, X, warn=False)
    found: dict = {"package": {}, "urbano": {}}
    for n in counts:
        reference, _, U = pair_draws(model, n, n_sims, draws[n])
        D = pair_differences(model, reference, U, 0.0)
        plans = draw_plans(n, 1000, draws[n])
        found["package"][n] = np.array([pvalues(D, test, "two-sided", plans) for test in TESTS])
        found["urbano"][n] = urbano_pvalues(D, plans["resample"])
    return found, goodness


def _rate(p: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    p = p[~np.isnan(p)]
    rate = float((p < alpha).mean())
    return rate, float(np.sqrt(rate * (1 - rate) / p.size))


def measure_rows(data: Path, key: str, counts, total: int) -> list[dict]:
    """The pooled rates of one measure at every topic count, beside the published ones."""
    frames = {c: prepared(data / f"{c}_{key}.csv") for c in COLLECTIONS[key]}
    runs = sum(len(f) for f in frames.values())
    pooled: dict = {n: {"package": [], "urbano": []} for n in counts}
    for seed, (collection, frame) in enumerate(frames.items()):
        n_sims = max(10, round(total * len(frame) / runs))
        started = time.perf_counter()
        found, goodness = collection_rates(frame, MEASURES[key], counts, n_sims, 1000 + seed)
        fit = goodness.summary().set_index("check")["within_tolerance"].round(3).to_dict()
        print(f"  {collection}_{key}: {len(frame)} runs, {n_sims} simulations per topic count, "
              f"{time.perf_counter() - started:.0f} s; share within tolerance {fit}", flush=True)
        for n in counts:
            pooled[n]["package"].append(found["package"][n])
            pooled[n]["urbano"].append(found["urbano"][n])
    rows = []
    for n in counts:
        package = np.concatenate(pooled[n]["package"], axis=-1)
        for t, test in enumerate(TESTS):
            variant = {"wilcoxon": "wilcoxon", "sign": "sign", "paired-bootstrap": "bootstrap"}.get(test)
            ours, ours_se = _rate(package[t])
            if variant is None:
                theirs, theirs_se = ours, ours_se  # their t and permutation tests are ours
            else:
                theirs, theirs_se = _rate(np.concatenate([u[variant] for u in pooled[n]["urbano"]]))
            rows.append(dict(measure=MEASURES[key], n_topics=n, test=test, package=ours, package_se=ours_se,
                             urbano_variant=theirs, urbano_variant_se=theirs_se,
                             published=PUBLISHED[key, n][t]))
    return rows


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per measure and topic count: the t and randomisation rates' distance to the published ones,
    and Kendall's tau between the published ordering of the five tests and ours (the package's
    tests; Urbano et al.'s variants)."""
    rows = []
    for (measure, n), part in table.groupby(["measure", "n_topics"], sort=False):
        part = part.set_index("test")
        rows.append(dict(measure=measure, n_topics=n,
                         t_gap=part.loc["t", "package"] - part.loc["t", "published"],
                         randomization_gap=part.loc["randomization", "package"] - part.loc["randomization", "published"],
                         tau_package=stats.kendalltau(part["package"], part["published"])[0],
                         tau_variants=stats.kendalltau(part["urbano_variant"], part["published"])[0]))
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    """The docs' table: one row per measure and topic count, ours / their variant / published per test."""
    lines = ["| measure | topics | t | Wilcoxon | sign | bootstrap | randomization |", "|---|---|---|---|---|---|---|"]
    for (measure, n), part in table.groupby(["measure", "n_topics"], sort=False):
        part = part.set_index("test")
        cells = []
        for test in TESTS:
            row = part.loc[test]
            variant = "" if test in ("t", "randomization") else f" / {row['urbano_variant']:.3f}"
            cells.append(f"{row['package']:.3f}{variant} / **{row['published']:.3f}**")
        lines.append(f"| {measure} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summarise", type=Path, nargs="+", default=None,
                        help="print the summary and the docs' table of results CSVs (--out) instead of computing")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--measures", nargs="+", default=list(MEASURES), choices=list(MEASURES))
    parser.add_argument("--topics", type=int, nargs="+", default=[25, 50, 100])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.summarise:
        table = pd.concat([pd.read_csv(path) for path in args.summarise]).drop_duplicates(
            ["measure", "n_topics", "test"], keep="last")
        print(summary(table).round(4).to_string(index=False))
        print(markdown(table))
        return
    data = args.data / "urbano-sigir2019-scores"
    if not data.is_dir():
        raise SystemExit(f"score matrices not found at {data} (pass --data or set PYTERRIER_BOOT_SHARED)")
    print(f"load average {os.getloadavg()}; {args.simulations:,} simulations per measure and topic count", flush=True)
    rows = []
    for key in args.measures:
        print(f"{MEASURES[key]}:", flush=True)
        rows += measure_rows(data, key, args.topics, args.simulations)
        table = pd.DataFrame(rows)
        table["difference"] = table["package"] - table["published"]
        print(table[table["measure"] == MEASURES[key]].round(4).to_string(index=False), flush=True)
        if args.out is not None:
            table.to_csv(args.out, index=False)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
