"""Statistical properties of the statistics core, printed as the markdown tables in pt_docs/statistics.md.

1. Coverage of every interval method on simulated scores with known population values.
   Per-topic scores have Beta marginals (a skewed AP-like Beta(0.5, 1.5) and a symmetric
   Beta(2, 2)); n = 10, 25, 50 topics; R replications (default 2,000); a two-sided binomial test of
   the coverage count against the nominal 95% flags methods whose coverage is off (p < 0.01).
2. Park's experiment (Park 2010, Tables 2, 4-6) on the real TREC ad hoc AP matrices of Urbano et al.
   (SIGIR 2019): all 50 topics of a collection are the population; n = 5, 10, 20 topics are drawn
   (with replacement, so the population is the 50-topic empirical distribution) 1,000 times per
   system; the actual Type I error (1 - coverage of the population mean) at α = 0.05 per method,
   as mean / sd / max over systems. Standardised AP uses 5 reference systems drawn at random
   (from the other systems) for each sample, as Park §5.2.
3. Type I error and power of every test: each replicate takes a random pair of real systems and n
   random topics of one collection and swaps the two systems' scores on each topic with
   probability 1/2 (so the null holds); power adds δ to one system's scores.

The replications of one block share one resample plan (independent of the data), so the coverage
indicators are independent given the plan; plans change between blocks.

Usage: python benchmarks/stats_validation.py [--replications 2000] [--quick] [--out table.md]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import integrate, special, stats

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
INTERVALS = ["percentile", "basic", "bca", "studentized", "normal", "t", "z"]
TESTS = ["paired_bootstrap", "randomization", "t", "wilcoxon", "sign", "unpaired_bootstrap"]
ALPHA = 0.05
BLOCK = 100  # replications sharing one resample plan


def beta_population(a, b):
    """Population mean, sd, median and Sakai gmean of Beta(a, b)."""
    dist = stats.beta(a, b)
    log_mean, _ = integrate.quad(lambda x: np.log(x + 1e-5) * dist.pdf(x), 0, 1, limit=200)
    return {"mean": dist.mean(), "sd": dist.std(), "median": dist.median(),
            "gmean": np.exp(log_mean) - 1e-5, "dist": dist}


def simulate(rng, shape, dist, rho=0.0, shared=None):
    """Beta-marginal scores through a Gaussian copula (``shared``: latent topic effects)."""
    latent = rng.standard_normal(shape)
    if shared is not None:
        latent = rho * shared + np.sqrt(1 - rho ** 2) * latent
    return dist.ppf(special.ndtr(latent))


def binomial_flag(count, total, target=0.95):
    p = stats.binomtest(int(count), int(total), target).pvalue
    if p >= 0.01:
        return "ok"
    return "under" if count / total < target else "over"


def coverage(args, out):
    import pyterrier_boot as pb

    out.append("### Coverage of 95% intervals on simulated scores (known population values)\n")
    out.append(f"{args.replications:,} replications per cell; bootstrap B = {args.n_resamples:,}; "
               "`ok` = binomial test of the coverage count against 0.95 not rejected at 0.01, "
               "`under`/`over` = rejected. Monte Carlo SE of a coverage near 0.95 is "
               f"{np.sqrt(0.95 * 0.05 / args.replications):.4f}.\n")
    rng = np.random.default_rng(20240601)
    populations = {"Beta(0.5, 1.5) (AP-like, skewed)": (0.5, 1.5), "Beta(2, 2) (symmetric)": (2.0, 2.0)}
    cells = [("mean", m) for m in INTERVALS] + [("gmean", m) for m in ("percentile", "basic", "bca", "studentized", "t")] \
        + [("median", m) for m in ("percentile", "basic", "bca")]
    for label, (a, b) in populations.items():
        pop = beta_population(a, b)
        out.append(f"\n**{label}**: mean {pop['mean']:.4f}, gmean {pop['gmean']:.4f}, median {pop['median']:.4f}\n")
        out.append("| statistic | method | n = 10 | n = 25 | n = 50 |")
        out.append("|---|---|---|---|---|")
        results = {}
        for n in (10, 25, 50):
            counts = dict.fromkeys(cells, 0)
            for start in range(0, args.replications, BLOCK):
                rows = min(BLOCK, args.replications - start)
                scores = simulate(rng, (rows, n), pop["dist"])
                plan = pb.resample_plan(n, n_resamples=args.n_resamples, rng=rng)
                for statistic, method in cells:
                    kwargs = {"sigma": pop["sd"]} if method == "z" else {}
                    kwargs.update({} if method in ("t", "z") else {"plan": plan})
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = pb.bootstrap_ci(scores, statistic=statistic, method=method, **kwargs)
                    truth = pop[statistic]
                    low, high = res.confidence_interval
                    counts[statistic, method] += int(np.sum((low <= truth) & (truth <= high)))
            for cell in cells:
                results[cell, n] = counts[cell]
        for cell in cells:
            row = [f"{results[cell, n] / args.replications:.3f} {binomial_flag(results[cell, n], args.replications)}"
                   for n in (10, 25, 50)]
            out.append(f"| {cell[0]} | {cell[1]} | " + " | ".join(row) + " |")
        print(f"  coverage {label} done", file=sys.stderr, flush=True)


def load_urbano(data, name):
    frame = pd.read_csv(data / "urbano-sigir2019-scores" / f"{name}.csv")
    return frame.to_numpy(dtype=float).T  # systems x topics


def park(args, out):
    import pyterrier_boot as pb

    collections = ["adhoc5_ap", "adhoc6_ap", "adhoc7_ap", "adhoc8_ap"]
    if args.quick:
        collections = collections[:1]
    methods = ["t", "t (standardised)", "t (standardised, Φ)", "z (known σ)", "percentile", "basic", "bca", "studentized", "normal"]
    out.append("\n### Park's experiment on real TREC ad hoc AP (Urbano et al. 2019 score matrices)\n")
    out.append(f"Actual Type I error of 95% intervals for the population mean (all 50 topics), "
               f"{args.park_samples:,} samples of n topics per system; mean / sd / max over systems. "
               "Park (2010) on TREC 2004 Robust, α = 0.05: t on AP 0.082/0.027/0.255 at n = 5 (Table 2); "
               "t on standardised AP with 5 reference systems 0.062/0.017/0.157 at n = 5 (Table 5); "
               "Table 6 (AP / sAP): n = 5 0.083 / 0.062, n = 10 0.066 / 0.068, n = 20 0.053 / 0.068.\n")
    rng = np.random.default_rng(2010)
    for name in collections:
        X = load_urbano(args.data, name)
        S, N = X.shape
        out.append(f"\n**{name}** ({S} systems x {N} topics)\n")
        out.append("| method | n = 5 | n = 10 | n = 20 |")
        out.append("|---|---|---|---|")
        table = {m: {} for m in methods}
        for n in (5, 10, 20):
            errors = {m: np.empty(S) for m in methods}
            plan = pb.resample_plan(n, n_resamples=args.n_resamples, rng=rng)
            for s in range(S):
                idx = rng.integers(0, N, (args.park_samples, n))
                sample = X[s][idx]
                mu = X[s].mean()
                sigma = X[s].std()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for method in ("t", "percentile", "basic", "bca", "studentized", "normal"):
                        low, high = pb.bootstrap_ci(sample, method=method, plan=None if method == "t" else plan).confidence_interval
                        errors[method][s] = np.mean((mu < low) | (mu > high))
                    low, high = pb.bootstrap_ci(sample, method="z", sigma=sigma).confidence_interval
                    errors["z (known σ)"][s] = np.mean((mu < low) | (mu > high))
                    # standardised AP, 5 random reference systems per sample (mirrors pb.standardize)
                    others = np.delete(np.arange(S), s)
                    refs = np.array([rng.choice(others, 5, replace=False) for _ in range(args.park_samples)])
                    ref_scores = X[refs]  # (samples, 5, N)
                    centre = ref_scores.mean(axis=1)
                    spread = ref_scores.std(axis=1, ddof=1)
                    z_pop = np.where(spread > 0, (X[s] - centre) / np.where(spread > 0, spread, 1), 0.0)
                    mu_z = z_pop.mean(axis=1)
                    z_sample = np.take_along_axis(z_pop, idx, axis=1)
                    low, high = pb.bootstrap_ci(z_sample, method="t").confidence_interval
                    errors["t (standardised)"][s] = np.mean((mu_z < low) | (mu_z > high))
                    # Webber et al.'s final step, standardize(cdf=True): Φ(z) in (0, 1)
                    phi_pop = special.ndtr(z_pop)
                    low, high = pb.bootstrap_ci(np.take_along_axis(phi_pop, idx, axis=1), method="t").confidence_interval
                    mu_phi = phi_pop.mean(axis=1)
                    errors["t (standardised, Φ)"][s] = np.mean((mu_phi < low) | (mu_phi > high))
            for m in methods:
                table[m][n] = errors[m]
        for m in methods:
            cells = [f"{table[m][n].mean():.3f} / {table[m][n].std():.3f} / {table[m][n].max():.3f}" for n in (5, 10, 20)]
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        print(f"  park {name} done", file=sys.stderr, flush=True)


def run_tests(D, X, Y, plan, flips, rng, n_resamples):
    """Reject flags (at ALPHA) of every test for the rows of D = X - Y."""
    from pyterrier_boot.stats import significance as sig

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = {
            "paired_bootstrap": sig.paired_bootstrap_core(D, plan)["pvalue"],
            "randomization": sig.randomization_core(D, flips)["pvalue"],
            "t": sig.t_core(D)["pvalue"],
            "wilcoxon": sig.wilcoxon_core(D)["pvalue"],
            "sign": sig.sign_core(D)["pvalue"],
            "unpaired_bootstrap": np.array([
                sig.unpaired_bootstrap_test(x, y, n_resamples=n_resamples, rng=rng).pvalue for x, y in zip(X, Y, strict=True)]),
        }
    return {k: v < ALPHA for k, v in p.items()}


def type_one_and_power(args, out):
    import pyterrier_boot as pb

    collections = ["adhoc5_ap", "adhoc6_ap", "adhoc7_ap", "adhoc8_ap"]
    mats = [load_urbano(args.data, c) for c in collections]
    deltas = [0.0, 0.01, 0.02, 0.05]
    out.append("\n### Type I error and power of the paired tests on real AP scores\n")
    out.append(f"{args.replications:,} replicates per cell: a random pair of systems from a random TREC-5..8 "
               "collection, n random topics, each topic's two scores swapped with probability 1/2 "
               "(null true); δ is then added to one system's scores. Rejection rate at α = 0.05 "
               f"(B = {args.n_resamples:,}; Monte Carlo SE at 0.05: "
               f"{np.sqrt(0.05 * 0.95 / args.replications):.4f}).\n")
    out.append("| test | n | δ = 0 (Type I) | δ = 0.01 | δ = 0.02 | δ = 0.05 |")
    out.append("|---|---|---|---|---|---|")
    rng = np.random.default_rng(2019)
    rates = {}
    for n in (10, 25, 50):
        counts = {(t, d): 0 for t in TESTS for d in deltas}
        for start in range(0, args.replications, BLOCK):
            rows = min(BLOCK, args.replications - start)
            X = np.empty((rows, n))
            Y = np.empty((rows, n))
            for r in range(rows):
                M = mats[rng.integers(len(mats))]
                a, b = rng.choice(M.shape[0], 2, replace=False)
                topics = rng.choice(M.shape[1], n, replace=False)
                x, y = M[a, topics], M[b, topics]
                swap = rng.random(n) < 0.5
                X[r] = np.where(swap, y, x)
                Y[r] = np.where(swap, x, y)
            plan = pb.resample_plan(n, n_resamples=args.n_resamples, rng=rng)
            flips = pb.sign_flip_plan(n, n_resamples=args.n_resamples, rng=rng)
            for d in deltas:
                reject = run_tests(X + d - Y, X + d, Y, plan, flips, rng, args.n_resamples)
                for t in TESTS:
                    counts[t, d] += int(reject[t].sum())
        for t in TESTS:
            for d in deltas:
                rates[t, n, d] = counts[t, d] / args.replications
        print(f"  tests n={n} done", file=sys.stderr, flush=True)
    for t in TESTS:
        for n in (10, 25, 50):
            cells = [f"{rates[t, n, d]:.3f}" + (f" {binomial_flag(round(rates[t, n, d] * args.replications), args.replications, ALPHA)}" if d == 0 else "")
                     for d in deltas]
            out.append(f"| {t} | {n} | " + " | ".join(cells) + " |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--park-samples", type=int, default=1000)
    parser.add_argument("--n-resamples", type=int, default=999)
    parser.add_argument("--quick", action="store_true", help="fewer replications and one collection")
    parser.add_argument("--only", choices=["coverage", "park", "tests"], action="append")
    parser.add_argument("--out", type=Path, help="also write the markdown here")
    args = parser.parse_args(argv)
    if args.quick:
        args.replications, args.park_samples = 400, 200
    if not (args.data / "urbano-sigir2019-scores").exists():
        print(f"urbano-sigir2019-scores not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1
    out = []
    start = time.perf_counter()
    parts = {"coverage": coverage, "park": park, "tests": type_one_and_power}
    for name in args.only or parts:
        parts[name](args, out)
    out.append(f"\n(generated by `python benchmarks/stats_validation.py` in {time.perf_counter() - start:.0f} s)")
    text = "\n".join(out)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
