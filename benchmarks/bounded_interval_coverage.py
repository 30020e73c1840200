"""Intervals of a mean near the ends of a measure's range: clip, transform, or fall back?

The measurement behind how pyterrier_boot keeps the ``normal`` and ``studentized`` intervals of a
mean score inside the measure's range ``[0, 1]`` (``bootstrap_ci(bounds=...)``, ``Experiment``'s
``ci_low``/``ci_high``, the CLI and leaderboards). Three ways of respecting the range are compared
on populations whose scores pile up at 0 or at 1:

* ``clip``: the interval as computed, intersected with ``[0, 1]``. The population mean lies in
  ``[0, 1]``, so clipping never changes whether an interval covers it: its coverage is the
  unclipped interval's, and it is only shorter.
* ``logit``: the interval computed on the logit scale and mapped back (a transformation-respecting
  interval). ``normal``: ``expit(logit(m) ± z sd(logit(m*)))`` (Cormack & Lynam's logit interval,
  on topic resamples); ``studentized``: the bootstrap-t of ``logit(m)`` with the delta-method
  standard error ``se / (m (1 - m))`` in each resample. Scores are clipped to ``[eps, 1 - eps]``
  (``eps = 1e-5``) before the logit.
* ``logit where outside``: the interval as computed where it lies inside ``[0, 1]``, else the
  ``logit`` one;
* ``fallback``: the interval as computed where it lies inside ``[0, 1]``, else the percentile
  interval of the same resamples (which never leaves the range);
* ``bounds=(0, 1)``: what pyterrier_boot reports, ``bootstrap_ci(..., bounds=(0, 1))`` (the
  choice this measurement made: studentised clipped, normal on the logit scale where it would
  leave the range), computed by the package itself as a check of the implementation.

The percentile interval itself is shown for reference. Populations (Park 2010's design: a
system's topics are the population, n topics drawn with replacement; the interval covers when it
holds the population mean):

* ``real near 0``: every TREC-5..8 ad hoc system (Urbano et al. 2019 score matrices: AP, P@10, RR)
  whose mean is below 0.05 or that scores 0 on at least 60% of its 50 topics;
* ``real near 1``: every such system whose RR is 1 on at least 60% of its topics;
* ``zero-inflated`` and ``one-inflated``: a score is 0 with probability 0.85, else Beta(1, 3)
  (population mean 0.0375), and the mirror image ``1 - x`` (mean 0.9625); samples from the
  distribution itself.

A sample whose n topics all score the same gets the single-point interval in every method (they
cannot tell it from a system that always scores so); the share of such samples is shown, since it
bounds every method's coverage. Coverage is a proportion of R independent replications, reported
with its Monte Carlo standard error ``sqrt(c (1 - c) / R)``; width is the mean width of the
interval as reported (clipped for ``clip``).

Usage: python benchmarks/bounded_interval_coverage.py [--replications 2000] [--resamples 1000]
           [--data ../shared/data] [--out bounded.md]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
SIZES = (5, 10, 25, 50)
BLOCK = 100
EPS = 1e-5
LEVEL = 0.95
ADHOC = [f"adhoc{k}_{m}" for k in (5, 6, 7, 8) for m in ("ap", "p10", "rr")]
ROWS = [("studentized", "clip"), ("studentized", "logit"), ("studentized", "logit where outside"),
        ("studentized", "fallback"), ("studentized", "bounds=(0, 1)"), ("normal", "clip"), ("normal", "logit"),
        ("normal", "logit where outside"), ("normal", "fallback"), ("normal", "bounds=(0, 1)"), ("percentile", "")]


def real_populations(data):
    """``{"real near 0": [vectors], "real near 1": [vectors]}`` from the ad hoc score matrices."""
    near0, near1 = [], []
    for name in ADHOC:
        matrix = pd.read_csv(data / "urbano-sigir2019-scores" / f"{name}.csv").to_numpy(dtype=float).T
        for row in matrix:
            if row.mean() < 0.05 or (row == 0).mean() >= 0.6:
                near0.append(row)
            if name.endswith("_rr") and (row == 1).mean() >= 0.6:
                near1.append(row)
    return {"real near 0": near0, "real near 1": near1}


def inflated(rng, size, at_one):
    """Scores 0 with probability 0.85, else Beta(1, 3); ``1 - x`` with ``at_one``."""
    x = np.where(rng.random(size) < 0.85, 0.0, rng.beta(1.0, 3.0, size))
    return 1 - x if at_one else x


def draw(population, n, rows, rng):
    """``(samples [rows, n], truths [rows])``."""
    if isinstance(population, list):
        which = rng.integers(0, len(population), rows)
        samples = np.stack([population[s][rng.integers(0, population[s].size, n)] for s in which])
        return samples, np.array([population[s].mean() for s in which])
    at_one = population == "one-inflated"
    return inflated(rng, (rows, n), at_one), np.full(rows, 1 - 0.0375 if at_one else 0.0375)


def _logit(x):
    return special.logit(np.clip(x, EPS, 1 - EPS))


def logit_intervals(sample, plan):
    """The normal and studentised intervals on the logit scale (module docstring): two (low, high)."""
    n = sample.shape[1]
    resampled = sample[:, plan.indices]  # [rows, B, n]
    m, se = sample.mean(axis=1), sample.std(axis=1, ddof=1) / np.sqrt(n)
    m_star, se_star = resampled.mean(axis=2), resampled.std(axis=2, ddof=1) / np.sqrt(n)
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    centre = _logit(m)
    sd = _logit(m_star).std(axis=1, ddof=1)
    normal = special.expit(centre - z * sd), special.expit(centre + z * sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        se_logit = se / (np.clip(m, EPS, 1 - EPS) * (1 - np.clip(m, EPS, 1 - EPS)))
        se_star_logit = se_star / (np.clip(m_star, EPS, 1 - EPS) * (1 - np.clip(m_star, EPS, 1 - EPS)))
        pivot = (_logit(m_star) - centre[:, None]) / se_star_logit
    pivot = np.where(np.isnan(pivot), 0.0, pivot)  # a resample equal to the sample: t = 0/0
    with np.errstate(invalid="ignore"):
        q_lo, q_hi = np.quantile(pivot, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=1)
        studentized = unbounded(special.expit(centre - q_hi * se_logit), special.expit(centre - q_lo * se_logit))
    return normal, studentized


def unbounded(low, high):
    """NaN ends (a quantile between two infinite pivots) as the infinite ends they are."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return np.where(np.isnan(low), -np.inf, low), np.where(np.isnan(high), np.inf, high)


def candidate_intervals(sample, plan):
    """``{(method, variant): (low, high)}`` for the rows of ``sample`` (one shared plan)."""
    import pyterrier_boot as pb

    raw, shipped = {}, {}
    for method in ("studentized", "normal", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw[method] = pb.bootstrap_ci(sample, method=method, plan=plan).confidence_interval
            shipped[method] = pb.bootstrap_ci(sample, method=method, plan=plan, bounds=(0, 1)).confidence_interval
    logit = dict(zip(("normal", "studentized"), logit_intervals(sample, plan), strict=True))
    constant = np.ptp(sample, axis=1) == 0
    theta = sample.mean(axis=1)
    out = {("percentile", ""): raw["percentile"]}
    for method in ("studentized", "normal"):
        low, high = unbounded(*raw[method])
        out[method, "clip"] = np.clip(low, 0, 1), np.clip(high, 0, 1)
        lo_l, hi_l = unbounded(*logit[method])
        out[method, "logit"] = np.where(constant, theta, np.clip(lo_l, 0, 1)), np.where(constant, theta, np.clip(hi_l, 0, 1))
        outside = ~((low >= 0) & (high <= 1))
        out[method, "logit where outside"] = (np.where(outside, out[method, "logit"][0], low),
                                              np.where(outside, out[method, "logit"][1], high))
        p_low, p_high = raw["percentile"]
        out[method, "fallback"] = np.where(outside, p_low, low), np.where(outside, p_high, high)
        out[method, "bounds=(0, 1)"] = shipped[method]
    out["outside"] = unbounded(*raw["studentized"]), unbounded(*raw["normal"])
    return out, constant


def measure(populations, replications, resamples, seed):
    import pyterrier_boot as pb

    rng = np.random.default_rng(seed)
    tallies = {}
    for group, population in populations.items():
        for n in SIZES:
            tally = {key: [0, 0.0] for key in ROWS}
            tally.update({"degenerate": [0, 0.0], "studentized outside": [0, 0.0], "normal outside": [0, 0.0]})
            for start in range(0, replications, BLOCK):
                rows = min(BLOCK, replications - start)
                sample, truth = draw(population, n, rows, rng)
                plan = pb.resample_plan(n, n_resamples=resamples, rng=rng)
                intervals, constant = candidate_intervals(sample, plan)
                for key in ROWS:
                    low, high = (np.asarray(v, dtype=float) for v in intervals[key])
                    tally[key][0] += int(np.sum((low <= truth) & (truth <= high)))
                    tally[key][1] += float(np.sum(high - low))
                tally["degenerate"][0] += int(constant.sum())
                for name, (low, high) in zip(("studentized outside", "normal outside"), intervals["outside"],
                                             strict=True):
                    tally[name][0] += int(np.sum((low < 0) | (high > 1)))
            tallies[group, n] = tally
            print(f"  {group}, n = {n} done", file=sys.stderr, flush=True)
    return tallies


def table(tallies, groups, replications):
    lines = []
    for group in groups:
        lines += [f"**{group}**", "", "| interval | " + " | ".join(f"n = {n}" for n in SIZES) + " |",
                  "|---|" + "---|" * len(SIZES)]
        for key in ROWS:
            cells = []
            for n in SIZES:
                covered, width = tallies[group, n][key]
                c = covered / replications
                cells.append(f"{c:.3f} ± {np.sqrt(c * (1 - c) / replications):.3f} (w {width / replications:.3f})")
            lines.append(f"| {' '.join(k for k in key if k)} | " + " | ".join(cells) + " |")
        for name in ("studentized outside", "normal outside", "degenerate"):
            label = {"degenerate": "samples all one score", "studentized outside": "studentized leaves [0, 1]",
                     "normal outside": "normal leaves [0, 1]"}[name]
            lines.append(f"| *{label}* | " + " | ".join(
                f"{tallies[group, n][name][0] / replications:.3f}" for n in SIZES) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=20260331)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not (args.data / "urbano-sigir2019-scores").is_dir():
        sys.exit(f"no urbano-sigir2019-scores/ under {args.data}: pass --data")
    started = time.time()
    populations = {**real_populations(args.data), "zero-inflated": "zero-inflated", "one-inflated": "one-inflated"}
    sizes = {g: len(p) for g, p in populations.items() if isinstance(p, list)}
    tallies = measure(populations, args.replications, args.resamples, args.seed)
    text = (f"Coverage of 95% intervals of a mean near the ends of [0, 1] ({sizes['real near 0']} real systems near "
            f"0, {sizes['real near 1']} near 1); {args.replications:,} replications per cell, B = "
            f"{args.resamples:,}; ± one Monte Carlo standard error; (w) mean width.\n\n"
            + table(tallies, list(populations), args.replications))
    print(text)
    load = os.getloadavg()[0]
    print(f"({time.time() - started:.0f} s, load average {load:.1f})", file=sys.stderr)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
