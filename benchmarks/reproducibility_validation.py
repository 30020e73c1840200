"""Statistical properties of the reproducibility tools, printed as markdown tables.

1. TOST size and power (``paired_tost``, ``unpaired_tost``): per-topic original scores with a
   skewed AP-like Beta(0.6, 1.8) marginal and reproduced scores = original + skewed noise
   (0.05 x (Exponential(1) - 1), or 0.05 x N(0, 1)) + a shift. At the boundary of the null
   (population mean difference exactly = margin) the rejection rate is the size, at most alpha when
   the t approximation holds; with no true difference it is the power. Unpaired: the reproduction is
   scored on other topics of the same population.
2. Coverage of the percentile topic-bootstrap intervals of ``reproduction.intervals``: a population
   of 200,000 simulated topics (baseline and advanced runs, original and reproduced) gives the
   population ER, DeltaRI and RMSE; n topics are drawn from it, the 95% intervals computed, and the
   share of intervals covering the population value reported with its standard error.

Usage: python benchmarks/reproducibility_validation.py [--replications 2000] [--resamples 2000]
"""
import argparse
import time

import numpy as np
from scipy import special, stats

from pyterrier_boot import paired_tost, resample_plan, unpaired_tost
from pyterrier_boot.reproduction.intervals import effect_intervals, rmse_interval
from pyterrier_boot.reproduction.measures import delta_relative_improvement, effect_ratio, rmse

ALPHA = 0.05
MARGIN = 0.01            # paired: the reproduction on the same topics
MARGIN_UNPAIRED = 0.05   # unpaired: between-topic variance makes small margins hopeless
NOISE = 0.05
ORIGINAL = stats.beta(0.6, 1.8)


def original_scores(rng, n):
    return ORIGINAL.ppf(special.ndtr(rng.standard_normal(n)))


def reproduction(rng, x, shift, skewed=True):
    noise = rng.exponential(1.0, x.shape) - 1.0 if skewed else rng.standard_normal(x.shape)
    return x + NOISE * noise + shift


def rate(hits):
    p = np.mean(hits)
    return f"{p:.3f} ± {np.sqrt(p * (1 - p) / len(hits)):.3f}"


def tost_table(replications, rng):
    print(f"\nTOST at alpha = {ALPHA}: rejection rate (equivalence declared) ± SE, {replications} replications; "
          f"paired margin {MARGIN}, unpaired margin {MARGIN_UNPAIRED} (Welch)")
    print("\n| topics | paired size, skewed noise | paired size, normal noise | paired power | unpaired size "
          "| unpaired power |")
    print("|---|---|---|---|---|---|")
    designs = [(True, MARGIN, True), (True, MARGIN, False), (True, 0.0, True),
               (False, MARGIN_UNPAIRED, True), (False, 0.0, True)]
    for n in (10, 25, 50, 100, 200):
        cells = []
        for paired, shift, skewed in designs:
            hits = []
            for _ in range(replications):
                x = original_scores(rng, n)
                if paired:
                    y = reproduction(rng, x, shift, skewed)
                    hits.append(paired_tost(y, x, margin=MARGIN, alpha=ALPHA).equivalent)
                else:  # the reproduction on other topics of the same population
                    y = reproduction(rng, original_scores(rng, n), shift, skewed)
                    hits.append(unpaired_tost(y, x, margin=MARGIN_UNPAIRED, alpha=ALPHA, equal_var=False).equivalent)
            cells.append(rate(hits))
        print(f"| {n} | " + " | ".join(cells) + " |")


def population(rng, size):
    """Per-topic scores of a baseline and an advanced run, original and reproduced (topic effects shared)."""
    topic = rng.standard_normal(size)
    ob = stats.beta(2, 5).ppf(special.ndtr(topic))
    oa = stats.beta(2.6, 4.6).ppf(special.ndtr(0.8 * topic + 0.6 * rng.standard_normal(size)))
    rb = ob + 0.03 * rng.standard_normal(size)
    ra = oa - 0.01 + 0.04 * rng.standard_normal(size)
    return ob, oa, rb, ra


def coverage_table(replications, resamples, rng):
    ob, oa, rb, ra = population(rng, 200_000)
    truth = {"ER": effect_ratio(oa, ob, ra, rb), "DeltaRI": delta_relative_improvement(oa, ob, ra, rb),
             "RMSE": rmse(oa, ra)}
    print(f"\nCoverage of 95% percentile intervals ± SE ({replications} replications, {resamples} resamples); "
          + ", ".join(f"population {k} = {v:.4f}" for k, v in truth.items()))
    print("\n| topics | ER | DeltaRI | RMSE (advanced run) |")
    print("|---|---|---|---|")
    for n in (10, 25, 50, 100):
        hits = {k: [] for k in truth}
        for _ in range(replications):
            idx = rng.integers(0, ob.size, n)
            plan = resample_plan(n, n_resamples=resamples, rng=rng)
            effects = effect_intervals(oa[idx], ob[idx], ra[idx], rb[idx], plan)
            effects["RMSE"] = rmse_interval(oa[idx], ra[idx], plan)
            for k, (_, low, high) in effects.items():
                hits[k].append(low <= truth[k] <= high)
        print(f"| {n} | " + " | ".join(rate(hits[k]) for k in truth) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--rng", type=int, default=2024)
    args = parser.parse_args()
    rng = np.random.default_rng(args.rng)
    start = time.perf_counter()
    tost_table(args.replications, rng)
    coverage_table(args.replications, args.resamples, rng)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
