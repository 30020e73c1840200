"""Validation of across_collections (issue 34, item 3): coverage of the pooled interval, of the
prediction interval for a new collection and of the average over these collections, for C = 3, 5,
10, 18 collections and heterogeneity from none to large; and the pooled figures against R's metafor
and statsmodels' combine_effects.

Each replication draws C collections. Collection c takes the per-topic scores of a random pair of
runs of one of Urbano, Lima & Hanjalic's (SIGIR 2019) real TREC score matrices (TREC-5..8 ad hoc
AP, Web 2010-2013 nDCG@20, in turn): its topic population is that matrix's topics (the per-topic
differences keep their real skew and ties), shifted so that the collection's true mean difference
is ``θ_c = μ + u_c``, ``u_c ~ N(0, τ²)``; ``n_c`` topics (uniform in ``--topics``, 50..300 as
the issue's collections, or 25..150 for small ones) are drawn with replacement. ``τ² = h s̄²`` with ``s̄²`` the mean of the collections' within-collection variances
``σ_c² / n_c``, so that ``I²`` is about ``h / (1 + h)``: h = 0 (none), 1/3 (small, I² ~ 25%),
1 (moderate, ~50%), 4 (large, ~80%). Every replication goes through the public door:
one :class:`~pyterrier_boot.ExperimentResult` per collection (the two runs' per-topic scores, no
bootstrap: topic standard errors), then ``ptb.across_collections(..., baseline="B")``:

* pooled: does the random-effects interval (REML, HKSJ) cover ``μ``? (DerSimonian-Laird with the
  normal interval, the textbook default, for comparison);
* prediction: does the prediction interval cover a new collection's ``θ_new = μ + u_new``?
  (from ``τ²``'s Q-profile confidence distribution, the default; the plug-in intervals for
  comparison: Higgins et al.'s ``t_{k-2}`` with the Wald standard error, and metafor's default
  ``t_{k-1}`` with the HKSJ standard error);
* average: does the average's interval cover ``(1/C) Σ θ_c``, the mean over these collections?

Coverages are over ``--reps`` replications with their Monte Carlo standard errors. Then
``--agreement`` further replications of each setting (drawn from ``--seed`` + 1) are fitted again by
metafor (``rma(yi, vi, method=..., test=...)``, ``predict()`` after ``test="knha"``,
``predict(pi.type="riley")`` after ``test="z"``; skipped without R) and statsmodels
(``combine_effects``, DerSimonian-Laird and Paule-Mandel): the largest absolute differences are
printed (``--reps 0`` for these alone).

Usage: python benchmarks/across_validation.py [--reps 2000] [--topics 50 300] [--agreement 100] [--seed 34] [--markdown]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pyterrier_boot as ptb
from pyterrier_boot.experiment.result import ExperimentResult

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MATRICES = ["adhoc5_ap", "adhoc6_ap", "adhoc7_ap", "adhoc8_ap", "web2010_ndcg20", "web2011_ndcg20",
            "web2012_ndcg20", "web2013_ndcg20"]
R_SCRIPT = HERE.parent / "tests" / "reference" / "metafor_random_effects.R"
COLLECTIONS = (3, 5, 10, 18)
HETEROGENEITY = {"none": 0.0, "small": 1 / 3, "moderate": 1.0, "large": 4.0}
MU = 0.02
KEYS = ("pooled", "pooled DL normal", "prediction", "prediction Higgins", "prediction HKSJ t(k-1)", "average")


def populations():
    """Per matrix: runs x topics scores of its better half of runs (by mean)."""
    out = []
    for name in MATRICES:
        scores = pd.read_csv(DATA / "urbano-sigir2019-scores" / f"{name}.csv").to_numpy(float).T
        keep = np.argsort(-scores.mean(axis=1))[: scores.shape[0] // 2]
        out.append(scores[keep])
    return out


def _pair(scores, rng):
    while True:
        a, b = rng.choice(scores.shape[0], 2, replace=False)
        d = scores[a] - scores[b]
        if d.std() > 1e-3:
            return scores[a], scores[b]


def replication(pops, C, h, rng, topics=(50, 300)):
    """C collections' results, and the truths: μ, θ_new and the mean of the θ_c."""
    pairs = [_pair(pops[c % len(pops)], rng) for c in range(C)]
    n = rng.integers(topics[0], topics[1] + 1, C)
    within = np.array([(x - y).var() / k for (x, y), k in zip(pairs, n, strict=True)])
    tau = np.sqrt(h * within.mean())
    theta = MU + rng.normal(0, tau, C)
    results = {}
    for c, ((x, y), k) in enumerate(zip(pairs, n, strict=True)):
        topics = rng.integers(0, x.size, k)
        shift = theta[c] - (x - y).mean()
        values = np.stack([x[topics] + shift, y[topics]])[:, :, None]
        results[f"c{c}"] = ExperimentResult(
            names=("A", "B"), qids=tuple(str(q) for q in range(k)), measures=("score",), summed=(False,),
            values=values, bootstrap=None, interval=None, confidence_level=0.95, intervals=None, distribution_=None,
            corpus=None, comparisons=None, mrt=None)
    return results, MU, MU + rng.normal(0, tau), theta.mean()


def run_setting(pops, C, h, reps, rng, topics):
    hits = {key: 0 for key in KEYS}
    i2, width = [], []
    for _ in range(reps):
        results, mu, new, mean_theta = replication(pops, C, h, rng, topics)
        res = ptb.across_collections(results, "score", baseline="B")
        pooled, average = res.pooled().iloc[0], res.average().iloc[0]
        per = res.per_collection()
        y, v = per["estimate"].to_numpy(), per["se"].to_numpy() ** 2
        dl = ptb.random_effects(y, v, tau2_method="DL", hksj=False)
        knha = ptb.random_effects(y, v, prediction="hksj")
        higgins = ptb.random_effects(y, v, prediction="higgins")
        hits["pooled"] += pooled["ci_low"] <= mu <= pooled["ci_high"]
        hits["pooled DL normal"] += dl.ci_low <= mu <= dl.ci_high
        hits["prediction"] += pooled["pi_low"] <= new <= pooled["pi_high"]
        hits["prediction HKSJ t(k-1)"] += knha.pi_low <= new <= knha.pi_high
        hits["prediction Higgins"] += higgins.pi_low <= new <= higgins.pi_high  # NaN (C = 2) never covers
        hits["average"] += average["ci_low"] <= mean_theta <= average["ci_high"]
        i2.append(pooled["i2"])
        width.append(pooled["ci_high"] - pooled["ci_low"])
    return {key: value / reps for key, value in hits.items()}, float(np.mean(i2)), float(np.median(width))


def agreement_cases(pops, reps, topics, seed):
    """``(effects, variances)`` of ``reps`` replications of every setting, as across_collections gives them."""
    rng = np.random.default_rng(seed)
    cases = []
    for C in COLLECTIONS:
        for h in HETEROGENEITY.values():
            for _ in range(reps):
                per = ptb.across_collections(replication(pops, C, h, rng, topics)[0], "score",
                                             baseline="B").per_collection()
                cases.append((per["estimate"].to_numpy(), per["se"].to_numpy() ** 2))
    return cases


def agreement(cases):
    """Largest absolute differences from metafor (every model) and statsmodels (DL, PM) over ``cases``."""
    from statsmodels.stats.meta_analysis import combine_effects

    out = {}
    for method, theirs in (("DL", "chi2"), ("PM", "iterated")):
        worst = 0.0
        for y, v in cases:
            options = {"atol": 1e-13, "maxiter": 10_000} if theirs == "iterated" else {}
            with np.errstate(invalid="ignore"):
                ref = combine_effects(y, v, method_re=theirs, use_t=True, **options)
            ours = ptb.random_effects(y, v, tau2_method=method, hksj=True)
            if ref.tau2 < 0 or (theirs == "iterated" and ref.tau2 == 0 and ours.tau2 > 0):
                continue  # statsmodels' untruncated DL tau2; its PM stopping at an overshoot
            knha = ref.conf_int(use_t=True)[3]
            worst = max(worst, abs(ours.tau2 - ref.tau2), abs(ours.estimate - ref.mean_effect_re),
                        abs(ours.ci_low - knha[0]), abs(ours.ci_high - knha[1]))
        out[f"statsmodels {method} (tau2, estimate, HKSJ interval)"] = worst
    out.update(_metafor(cases))
    return out


def _metafor(cases):
    if shutil.which("Rscript") is None:
        return {"metafor": "skipped: no Rscript"}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        pd.DataFrame([(c, y, v) for c, (ys, vs) in enumerate(cases) for y, v in zip(ys, vs, strict=True)],
                     columns=["case", "yi", "vi"]).to_csv(folder / "cases.csv", index=False)
        pd.DataFrame({"row": [0], "mean": [0.1], "sd": [0.2], "n": [10]}).to_csv(folder / "smcc.csv", index=False)
        done = subprocess.run(["Rscript", str(R_SCRIPT), str(folder / "cases.csv"), str(folder / "smcc.csv"),
                               str(folder)], capture_output=True, text=True)
        if done.returncode:
            return {"metafor": f"skipped: {done.stderr.strip()[-200:]}"}
        reference = pd.read_csv(folder / "pooled.csv")
    fields = ["tau2", "estimate", "ci_low", "ci_high", "pvalue", "i2", "q"]
    out = {}
    for (method, test), group in reference.groupby(["method", "test"]):
        worst = 0.0
        for _, row in group.iterrows():
            y, v = cases[int(row["case"])]
            # predict() after knha is our "hksj" interval; predict(pi.type="riley") after z Higgins'
            kind, ends = ("hksj", ("pi_low", "pi_high")) if test == "knha" else \
                ("higgins", ("pi_low_higgins", "pi_high_higgins"))
            ours = ptb.random_effects(y, v, tau2_method=method, hksj=test == "knha", prediction=kind)
            pairs = [(getattr(ours, f), row[f]) for f in fields] + [(ours.pi_low, row[ends[0]]),
                                                                    (ours.pi_high, row[ends[1]])]
            worst = max(worst, max(abs(a - b) for a, b in pairs if not (len(y) < 3 and kind == "higgins")))
        what = "predict()" if test == "knha" else 'predict(pi.type="riley")'
        out[f"metafor {method}, test={test} (every figure, {what})"] = worst
    return out


def print_table(table, args):
    se = lambda p: np.sqrt(p * (1 - p) / args.reps)  # noqa: E731
    shown = table[["C", "heterogeneity"]].copy()
    shown["mean I²"] = [f"{100 * v:.0f}%" for v in table["mean I²"]]
    for key in KEYS:
        shown[key] = [f"{100 * p:.1f} ± {100 * se(p):.1f}" for p in table[key]]
    print(shown.to_markdown(index=False) if args.markdown else shown.to_string(index=False))
    print(f"\n{args.reps} replications per setting, {args.topics[0]}-{args.topics[1]} topics per collection, seed "
          f"{args.seed}, load average {os.getloadavg()[0]:.1f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--topics", type=int, nargs=2, default=(50, 300), metavar=("LOW", "HIGH"))
    parser.add_argument("--agreement", type=int, default=100, help="replications per setting fitted by metafor")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    pops = populations()
    rng = np.random.default_rng(args.seed)
    rows = []
    start = time.perf_counter()
    for C in COLLECTIONS if args.reps else ():
        for label, h in HETEROGENEITY.items():
            cover, i2, width = run_setting(pops, C, h, args.reps, rng, args.topics)
            rows.append({"C": C, "heterogeneity": label, "mean I²": i2, "median pooled width": width, **cover})
            print(f"C={C} {label}: {cover} ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    if rows:
        print_table(pd.DataFrame(rows), args)
    cases = agreement_cases(pops, args.agreement, args.topics, args.seed + 1)
    for what, value in (agreement(cases) if cases else {}).items():
        print(f"{what}: max abs difference {value if isinstance(value, str) else f'{value:.1e}'} "
              f"over {len(cases)} meta-analyses")


if __name__ == "__main__":
    main()
