"""Validation of the seed-variance intervals and tests (pt_docs/seeds_and_collections.md).

Population: real per-topic score matrices, each system's scores on a collection's topics being its
population of topics: TREC-5..8 ad hoc AP and TREC Web 2010-2013 nDCG@20 (Urbano et al. 2019
score matrices), and TREC DL 2019 / 2020 passage nDCG@10 computed from the official runs. A
replication picks a system (for a difference: two systems of one collection, the same topics for
both), draws n topics with replacement and gives each system k runs:

    x[r, q] = y[q] + u_r + e[r, q],   u_r ~ N(0, (rho_u sd_y)^2),  e[r, q] ~ N(0, (rho_e sd_y)^2)

with ``y`` the system's real per-topic scores and ``sd_y`` their standard deviation over the
population, so the topic, seed and topic x seed variances are known. The target of
``seeds="random"`` (a new seed) is the system's population mean (of a difference: the difference of
population means); the target of ``seeds="fixed"`` adds the mean of these k seed effects. For the
tests' Type I error, the second system's scores are shifted so that the population difference is 0.

Parts:

* ``methods``: the candidates for ``seeds="random"`` (t with Satterthwaite degrees of freedom from
  the ANOVA mean squares; the bootstrap-t over topics with a seed term on Satterthwaite's degrees of
  freedom or through its generalized pivotal quantity; the pigeonhole bootstrap of Owen 2007; a
  two-stage bootstrap, topics then runs within each topic; one score per seed; for differences the
  t with generalized seed terms) on a smaller grid, their tests' Type I error, and REML (statsmodels
  MixedLM) against the ANOVA estimates (agreement and time);
* ``coverage``: the shipped methods over k = 2, 3, 4, 5, 10 runs, n = 10, 25, 50, 100 topics and
  four seed-variance scenarios: coverage of means and differences, Type I error of the tests,
  ``seeds="fixed"`` coverage beside today's (one run per system);
* ``aso``: power at equal Type I error of our test against deep-significance's Almost Stochastic
  Order (Dror et al. 2019; Ulmer et al. 2022) on one score per seed (``pip install deepsig``; a
  reference only, not a dependency).

Coverage and error rates are proportions of R replications with Monte Carlo standard errors
``sqrt(p (1 - p) / R)``.

Usage: python benchmarks/seeds_validation.py {methods,coverage,aso} [--replications R]
           [--resamples B] [--data ../shared/data] [--out FILE]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
URBANO = ("adhoc5_ap", "adhoc6_ap", "adhoc7_ap", "adhoc8_ap", "web2010_ndcg20", "web2011_ndcg20",
          "web2012_ndcg20", "web2013_ndcg20")
DL = {"dl2019": ("trec-dl-2019-passage", "qrels.dl19-passage.txt"),
      "dl2020": ("trec-dl-2020-passage", "qrels.dl20-passage.txt")}
#: (name, rho_u, rho_e): seed and topic x seed standard deviations relative to the system's topic SD
SCENARIOS = (("no seed effect", 0.0, 0.3), ("small", 0.05, 0.3), ("medium", 0.15, 0.3), ("large", 0.4, 0.3))
BLOCK = 100
ALPHA = 0.05


# ---------------------------------------------------------------- populations


def populations(data, cache):
    """``{collection: systems x topics}`` real per-topic scores (DL nDCG@10 computed once, cached)."""
    out = {}
    for name in URBANO:
        out[name] = pd.read_csv(data / "urbano-sigir2019-scores" / f"{name}.csv").to_numpy(float).T
    for name, (folder, qrels) in DL.items():
        path = cache / f"{name}_ndcg10.npy"
        if not path.exists():
            import pyterrier_boot as ptb

            frame = ptb.evaluate(data / folder / "runs", data / folder / qrels, ["nDCG@10"])
            matrix = frame.pivot(index="name", columns="qid", values="value").to_numpy(float)
            cache.mkdir(parents=True, exist_ok=True)
            np.save(path, matrix)
        out[name] = np.load(path)
    return {k: v[v.std(axis=1) > 0] for k, v in out.items()}


class Simulator:
    """Replications of the model of the module docstring, in blocks sharing one draw of systems."""

    def __init__(self, pops, rng):
        self.pops, self.rng = pops, rng
        self.names = sorted(pops)

    def _runs(self, y, idx, k, rho_u, rho_e):
        """``[R, k, n]`` runs of systems with population scores ``y [R, N]`` on topics ``idx [R, n]``."""
        sd = np.nanstd(y, axis=1)[:, None, None]
        base = np.take_along_axis(y, idx, axis=1)[:, None, :]
        R, n = idx.shape
        u = self.rng.standard_normal((R, k, 1)) * rho_u * sd
        e = self.rng.standard_normal((R, k, n)) * rho_e * sd
        return base + u + e, u[:, :, 0].mean(axis=1)

    def means(self, rows, n, k, rho_u, rho_e):
        """``(runs [R, k, n], random target [R], fixed target [R])`` of single systems."""
        which = [self.names[i] for i in self.rng.integers(0, len(self.names), rows)]
        y = _pad([self.pops[c][self.rng.integers(0, len(self.pops[c]))] for c in which])
        idx = self.rng.integers(0, _lengths(y)[:, None], (rows, n))
        x, ubar = self._runs(y, idx, k, rho_u, rho_e)
        truth = np.nanmean(y, axis=1)
        return x, truth, truth + ubar

    def pairs(self, rows, n, k, rho_u, rho_e, null=False):
        """``(runs of a [R, k, n], runs of b, random target, fixed target)`` of pairs of one collection."""
        ya, yb = [], []
        for _ in range(rows):
            pop = self.pops[self.names[self.rng.integers(0, len(self.names))]]
            i, j = self.rng.choice(len(pop), 2, replace=False)
            ya.append(pop[i])
            yb.append(pop[j] - pop[j].mean() + pop[i].mean() if null else pop[j])
        ya, yb = _pad(ya), _pad(yb)
        idx = self.rng.integers(0, _lengths(ya)[:, None], (rows, n))
        xa, ua = self._runs(ya, idx, k, rho_u, rho_e)
        xb, ub = self._runs(yb, idx, k, rho_u, rho_e)
        truth = np.nanmean(ya, axis=1) - np.nanmean(yb, axis=1)
        return xa, xb, truth, truth + ua - ub


def _pad(rows):
    """Rows of different lengths (collections differ in topics) as one array padded with NaN."""
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), np.nan)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _lengths(y):
    return np.count_nonzero(~np.isnan(y), axis=1)


# ---------------------------------------------------------------- the methods


def run_scores(x):
    """A RunScores of ``R`` single-system blocks ``x [R, k, n]``: R systems with k runs, one measure."""
    from pyterrier_boot.seeds.scores import RunScores

    R, k, n = x.shape
    groups = [list(range(s * k, (s + 1) * k)) for s in range(R)]
    return RunScores.from_groups(x.reshape(R * k, n, 1), groups, tuple(range(R * k)), tuple(range(R)))


def satterthwaite_means(x, plan, rng):
    from pyterrier_boot.seeds.intervals import mean_inference

    res = mean_inference(run_scores(x), seeds="random", alpha=ALPHA)
    return res.low[:, 0], res.high[:, 0]


def pivot_means(x, plan, rng):
    """Shipped: the bootstrap-t over topics with a seed term, generalized below 5 runs, Satterthwaite from 5."""
    from pyterrier_boot.seeds.bootstrap import pivot_mean_intervals

    res = pivot_mean_intervals(run_scores(x), plan, rng, confidence_level=1 - ALPHA)
    return res[:, 0, 0], res[:, 0, 1]


def generalized_pivot_means(x, plan, rng):
    """The bootstrap-t over topics with the generalized (fiducial) seed term, whatever the runs."""
    from pyterrier_boot.seeds.fiducial import seed_draws
    from pyterrier_boot.stats.resampling import studentized_pivot

    squares = run_scores(x).mean_squares()
    seed = np.concatenate([seed_draws([ms], plan.n_resamples, rng) for ms in squares])
    z = x.mean(axis=1)
    s = z.std(axis=1, ddof=1) / np.sqrt(z.shape[1])
    unit = np.where(s > 0, s, 1.0)
    pivot = studentized_pivot(z - z.mean(axis=1, keepdims=True), plan)
    pivot += np.sqrt(seed) * rng.standard_normal(seed.shape) / unit[:, None]
    q_lo, q_hi = np.quantile(pivot, [ALPHA / 2, 1 - ALPHA / 2], axis=1)
    return z.mean(axis=1) - q_hi * unit, z.mean(axis=1) - q_lo * unit


def satterthwaite_pivot_means(x, plan, rng):
    """The bootstrap-t over topics with a seed term on Satterthwaite's degrees of freedom: the seed
    mean drawn as ``sqrt(V_u) Z`` and its variance estimate as ``V_u chi2(nu) / nu``."""
    from pyterrier_boot.seeds.variance import satterthwaite, seed_terms
    from pyterrier_boot.stats.resampling import weighted_sums

    squares = run_scores(x).mean_squares()
    seed = [satterthwaite(seed_terms(ms)) for ms in squares]
    v_u = np.array([s[0][0] for s in seed])[:, None]
    df = np.array([s[1][0] for s in seed])[:, None]
    z = x.mean(axis=1)
    n = z.shape[1]
    w = z - z.mean(axis=1, keepdims=True)
    mean = weighted_sums(plan, w) / n
    var = np.maximum(weighted_sums(plan, w * w) - n * mean * mean, 0) / ((n - 1) * n)
    mean = mean + np.sqrt(v_u) * rng.standard_normal(mean.shape)
    var = var + v_u * rng.chisquare(np.broadcast_to(df, mean.shape)) / df
    with np.errstate(divide="ignore", invalid="ignore"):
        pivot = np.nan_to_num(mean / np.sqrt(var))
    se = np.sqrt(z.var(axis=1, ddof=1) / n + v_u[:, 0])
    q_lo, q_hi = np.quantile(pivot, [ALPHA / 2, 1 - ALPHA / 2], axis=1)
    return z.mean(axis=1) - q_hi * se, z.mean(axis=1) - q_lo * se


def pigeonhole(x, plan, rng, y=None):
    """Owen's pigeonhole bootstrap: topics (the plan) and runs resampled independently, percentile."""
    R, k, n = x.shape
    wt = plan.weights() / n  # [B, n]
    B = wt.shape[0]
    ws = rng.multinomial(k, np.full(k, 1 / k), size=(B,)) / k  # [B, k]
    if y is None:
        dist = np.einsum("bq,rkq,bk->rb", wt, x, ws)
    else:  # a difference: each system's runs resampled independently
        ws_b = rng.multinomial(k, np.full(k, 1 / k), size=(B,)) / k
        dist = np.einsum("bq,rkq,bk->rb", wt, x, ws) - np.einsum("bq,rkq,bk->rb", wt, y, ws_b)
    return np.quantile(dist, [ALPHA / 2, 1 - ALPHA / 2], axis=1)


def two_stage(x, plan, rng):
    """Topics resampled (the plan), then the runs resampled within each drawn topic; percentile."""
    R, k, n = x.shape
    B = plan.n_resamples
    out = np.empty((R, B))
    for b in range(B):
        topics = plan.indices[b].astype(np.intp)
        runs = rng.integers(0, k, (n, k))
        out[:, b] = x[:, runs, topics[:, None]].mean(axis=(1, 2))
    return np.quantile(out, [ALPHA / 2, 1 - ALPHA / 2], axis=1)


def per_seed_means(x, plan, rng):
    """One score per seed: the t interval over the k runs' means (topics ignored)."""
    from scipy import stats

    m = x.mean(axis=2)
    k = m.shape[1]
    half = stats.t.isf(ALPHA / 2, k - 1) * m.std(axis=1, ddof=1) / np.sqrt(k)
    return m.mean(axis=1) - half, m.mean(axis=1) + half


def satterthwaite_differences(xa, xb, plan, rng):
    from pyterrier_boot.seeds.intervals import difference_inference

    R, k, n = xa.shape
    scores = run_scores(np.concatenate([xa, xb]))
    res = difference_inference(scores, np.arange(R), np.arange(R, 2 * R), seeds="random", alpha=ALPHA)
    return res.low[:, 0], res.high[:, 0], res.pvalue[:, 0]


def generalized_differences(xa, xb, plan, rng):
    """The t over topics with the generalized seed terms of both systems: ``theta* = d - s T_{n-1}
    - sqrt(R_a + R_b) Z``; equal-tailed interval and the generalized p-value of ``theta = 0``."""
    from pyterrier_boot.seeds.fiducial import seed_draws

    R, k, n = xa.shape
    B = plan.n_resamples
    squares = run_scores(np.concatenate([xa, xb])).mean_squares()
    seed = np.concatenate([seed_draws([squares[i], squares[R + i]], B, rng) for i in range(R)])
    d = xa.mean(axis=1) - xb.mean(axis=1)
    s = d.std(axis=1, ddof=1) / np.sqrt(n)
    theta = (d.mean(axis=1)[:, None] - s[:, None] * rng.standard_t(n - 1, size=(R, B))
             - np.sqrt(seed) * rng.standard_normal((R, B)))
    low, high = np.quantile(theta, [ALPHA / 2, 1 - ALPHA / 2], axis=1)
    p = np.minimum(1, 2 * (np.minimum((theta <= 0).sum(axis=1), (theta >= 0).sum(axis=1)) + 1) / (B + 1))
    return low, high, p


def per_seed_differences(xa, xb, plan, rng):
    """One score per seed: Welch's t interval of the difference of run means (topics ignored)."""
    from scipy import stats

    ma, mb = xa.mean(axis=2), xb.mean(axis=2)
    k = ma.shape[1]
    va, vb = ma.var(axis=1, ddof=1) / k, mb.var(axis=1, ddof=1) / k
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (va + vb) ** 2 / (va ** 2 / (k - 1) + vb ** 2 / (k - 1))
    half = stats.t.isf(ALPHA / 2, np.nan_to_num(df, nan=k - 1)) * np.sqrt(va + vb)
    d = ma.mean(axis=1) - mb.mean(axis=1)
    return d - half, d + half


MEAN_METHODS = {
    "t, Satterthwaite df (ANOVA)": satterthwaite_means,
    "bootstrap-t + seed term, Satterthwaite df": satterthwaite_pivot_means,
    "bootstrap-t + generalized seed term": generalized_pivot_means,
    "shipped: generalized below 5 runs, Satterthwaite from 5": pivot_means,
    "pigeonhole (Owen 2007), percentile": pigeonhole,
    "two-stage (topics, runs within topic), percentile": two_stage,
    "one score per seed, t": per_seed_means,
}
DIFFERENCE_METHODS = {
    "t, Satterthwaite df (ANOVA)": lambda a, b, p, r: satterthwaite_differences(a, b, p, r)[:2],
    "t + generalized seed terms": lambda a, b, p, r: generalized_differences(a, b, p, r)[:2],
    "pigeonhole (Owen 2007), percentile": lambda a, b, p, r: pigeonhole(a, p, r, y=b),
    "one score per seed, Welch t": per_seed_differences,
}


def fixed_means(x, plan, rng):
    """``seeds="fixed"``: today's default (studentised topic bootstrap) on run-averaged scores."""
    import pyterrier_boot as ptb

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = ptb.bootstrap_ci(x.mean(axis=1), method="studentized", plan=plan).confidence_interval
    return np.asarray(ci.low), np.asarray(ci.high)


# ---------------------------------------------------------------- experiments


def _plan(n, resamples, rng):
    import pyterrier_boot as ptb

    return ptb.resample_plan(n, n_resamples=resamples, rng=rng)


def _rate(hits, total):
    p = hits / total
    return p, np.sqrt(p * (1 - p) / total)


def _cell(hits, total):
    p, se = _rate(hits, total)
    return f"{100 * p:.1f} ± {100 * se:.1f}"


def coverage_of(sim, methods, kind, n, k, scenario, reps, resamples, rng):
    """``{method: covered count}`` of ``reps`` replications (``kind``: "mean", "difference", "fixed")."""
    _, rho_u, rho_e = scenario
    hits = dict.fromkeys(methods, 0)
    for start in range(0, reps, BLOCK):
        rows = min(BLOCK, reps - start)
        plan = _plan(n, resamples, rng)
        if kind == "difference":
            xa, xb, truth, _ = sim.pairs(rows, n, k, rho_u, rho_e)
            data = (xa, xb)
        else:
            x, truth, fixed = sim.means(rows, n, k, rho_u, rho_e)
            truth = fixed if kind == "fixed" else truth
            data = (x,)
        for name, method in methods.items():
            low, high = method(*data, plan, rng)
            hits[name] += int(np.sum((low <= truth) & (truth <= high)))
    return hits


TESTS = {"t, Satterthwaite df (ANOVA)": satterthwaite_differences, "t + generalized seed terms": generalized_differences}


def type_one(sim, n, k, scenario, reps, resamples, rng, tests=None):
    """``{test: rejections}`` under the null (default: the shipped t test with seed variance)."""
    _, rho_u, rho_e = scenario
    tests = tests or {"m": satterthwaite_differences}
    rejected = dict.fromkeys(tests, 0)
    for start in range(0, reps, BLOCK):
        rows = min(BLOCK, reps - start)
        xa, xb, _, _ = sim.pairs(rows, n, k, rho_u, rho_e, null=True)
        plan = _plan(n, resamples, rng)
        for name, test in tests.items():
            rejected[name] += int(np.sum(test(xa, xb, plan, rng)[2] < ALPHA))
    return rejected


def reml_agreement(sim, rng, cases=12):
    """REML (statsmodels MixedLM, topics and runs crossed) against the ANOVA estimates, and time:
    ``(largest relative difference of a component, fits that did not converge, ms ANOVA, ms REML)``."""
    import statsmodels.formula.api as smf

    from pyterrier_boot.seeds.anova import mean_squares

    worst, failed, anova_time, reml_time = 0.0, 0, 0.0, 0.0
    for n, k in [(25, 3), (50, 5), (100, 10)] * (cases // 3):
        x = sim.means(1, n, k, 0.15, 0.3)[0][0]
        started = time.perf_counter()
        ms = mean_squares(x)
        est = np.array([float(ms.seed_variance), float(ms.topic_variance), float(ms.interaction_variance)])
        anova_time += time.perf_counter() - started
        frame = pd.DataFrame({"y": x.ravel(), "run": np.repeat(np.arange(k), n), "topic": np.tile(np.arange(n), k),
                              "g": 1})
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = smf.mixedlm("y ~ 1", frame, groups="g", re_formula="0",
                              vc_formula={"run": "0 + C(run)", "topic": "0 + C(topic)"}).fit(reml=True)
        reml_time += time.perf_counter() - started
        if not fit.converged:
            failed += 1
            continue
        vc = dict(zip(fit.model.exog_vc.names, fit.vcomp, strict=True))
        reml = np.array([vc["run"], vc["topic"], fit.scale])
        worst = max(worst, float(np.max(np.abs(reml - est) / np.maximum(est, 1e-3 * est.sum()))))
    return worst, failed, 1e3 * anova_time / cases, 1e3 * reml_time / cases


def part_methods(sim, args, rng):
    lines = ["### Candidates for seeds=\"random\" (coverage of 95% intervals, %)", ""]
    grid = [(10, 3), (10, 5), (50, 3), (50, 5), (100, 2), (100, 3)]
    scen = [s for s in SCENARIOS if s[0] in ("no seed effect", "medium", "large")]
    for kind, methods in (("mean", MEAN_METHODS), ("difference", DIFFERENCE_METHODS)):
        header = "| method | " + " | ".join(f"{s[0]}, n={n}, k={k}" for s in scen for n, k in grid) + " |"
        lines += [f"**{kind}s**, {args.replications:,} replications per cell, B = {args.resamples:,}", "", header,
                  "|---|" + "---|" * (len(scen) * len(grid))]
        cells = {m: [] for m in methods}
        for s in scen:
            for n, k in grid:
                hits = coverage_of(sim, methods, kind, n, k, s, args.replications, args.resamples, rng)
                for m in methods:
                    cells[m].append(_cell(hits[m], args.replications))
                print(f"  {kind} {s[0]} n={n} k={k} done", file=sys.stderr, flush=True)
        lines += [f"| {m} | " + " | ".join(c) + " |" for m, c in cells.items()] + [""]
    lines += ["**Type I error of the difference tests** (%, alpha = 0.05)", "",
              "| test | " + " | ".join(f"{s[0]}, n={n}, k={k}" for s in scen for n, k in grid) + " |",
              "|---|" + "---|" * (len(scen) * len(grid))]
    cells = {m: [] for m in TESTS}
    for s in scen:
        for n, k in grid:
            hits = type_one(sim, n, k, s, args.replications, args.resamples, rng, TESTS)
            for m in TESTS:
                cells[m].append(_cell(hits[m], args.replications))
    lines += [f"| {m} | " + " | ".join(c) + " |" for m, c in cells.items()] + [""]
    worst, failed, t_anova, t_reml = reml_agreement(sim, rng)
    lines.append(f"REML (statsmodels MixedLM, runs and topics crossed) vs the ANOVA estimates on 12 draws "
                 f"(n = 25-100, k = 3-10, medium seed variance): largest relative difference of a component "
                 f"{worst:.1e} ({failed} fit(s) did not converge); {t_anova:.2f} ms per system by ANOVA, "
                 f"{t_reml:.0f} ms by REML.")
    return "\n".join(lines)


def part_coverage(sim, args, rng):
    from pyterrier_boot.seeds.bootstrap import seed_pivot  # noqa: F401 -- fail early without the package

    sizes, ks = (10, 25, 50, 100), (2, 3, 4, 5, 10)
    lines = []
    tables = {"mean (bootstrap-t + seed term: generalized below 5 runs, Satterthwaite from 5)":
              ("mean", {"m": pivot_means}),
              "difference (t, Satterthwaite df)": ("difference", {"m": lambda a, b, p, r: satterthwaite_differences(a, b, p, r)[:2]})}
    for title, (kind, methods) in tables.items():
        lines += [f"**Coverage, seeds=\"random\", {title}** (%, {args.replications:,} replications per cell)", "",
                  "| scenario | k | " + " | ".join(f"n = {n}" for n in sizes) + " |", "|---|---|" + "---|" * len(sizes)]
        for s in SCENARIOS:
            for k in ks:
                cells = [_cell(coverage_of(sim, methods, kind, n, k, s, args.replications, args.resamples, rng)["m"],
                               args.replications) for n in sizes]
                flag = " (flagged: k = 2)" if k == 2 else ""
                lines.append(f"| {s[0]} | {k}{flag} | " + " | ".join(cells) + " |")
            print(f"  {title} {s[0]} done", file=sys.stderr, flush=True)
        lines.append("")
    lines += [f"**Type I error, t test with seed variance (Satterthwaite df), alpha = {ALPHA}** (%, "
              f"{args.replications:,} replications per cell; k = 1 is today's paired t-test on one run each)", "",
              "| scenario | k | " + " | ".join(f"n = {n}" for n in sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for s in SCENARIOS:
        for k in (1, *ks):
            cells = [_cell(type_one(sim, n, k, s, args.replications, args.resamples, rng)["m"], args.replications)
                     for n in sizes]
            lines.append(f"| {s[0]} | {k} | " + " | ".join(cells) + " |")
    lines += ["", f"**seeds=\"fixed\" coverage of these runs' average, beside today's (one run)** (%, "
              f"{args.replications:,} replications per cell; medium seed variance)", "",
              "| runs | " + " | ".join(f"n = {n}" for n in sizes) + " |", "|---|" + "---|" * len(sizes)]
    medium = SCENARIOS[2]
    for k in (1, 3, 5, 10):
        cells = [_cell(coverage_of(sim, {"m": fixed_means}, "fixed", n, k, medium, args.replications,
                                   args.resamples, rng)["m"], args.replications) for n in sizes]
        lines.append(f"| {k}{' (today)' if k == 1 else ''} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def part_aso(sim, args, rng):
    """Power at equal Type I error: our t test with seed variance vs ASO on one score per seed."""
    from deepsig import aso

    n, k, scenario = 50, 5, SCENARIOS[2]
    _, rho_u, rho_e = scenario

    def statistics(shift):
        ours, theirs = [], []
        for start in range(0, args.replications, BLOCK):
            rows = min(BLOCK, args.replications - start)
            xa, xb, _, _ = sim.pairs(rows, n, k, rho_u, rho_e, null=True)
            xa = xa + shift
            low, high, p = satterthwaite_differences(xa, xb, None, rng)
            d = xa.mean(axis=(1, 2)) - xb.mean(axis=(1, 2))
            ours.append(np.where(d > 0, p / 2, 1 - p / 2))  # one-sided: a better than b
            theirs.append([aso(a.mean(axis=1), b.mean(axis=1), show_progress=False, seed=int(rng.integers(2**31)),
                               num_bootstrap_iterations=args.aso_iterations) for a, b in zip(xa, xb, strict=True)])
        return np.concatenate(ours), np.concatenate(theirs)

    p0, e0 = statistics(0.0)
    tau, gamma = _calibrated(e0)  # ASO's threshold with a Type I error of alpha (ties at tau randomised)
    lines = [f"**Our t test with seed variance vs ASO on one score per seed** (n = {n} topics, k = {k} runs, "
             f"{scenario[0]} seed variance; one-sided, {args.replications:,} replications per cell)", "",
             f"Under the null: ours rejects {_cell(np.sum(p0 < ALPHA), len(p0))}% at alpha {ALPHA}; ASO rejects "
             f"{_cell(np.sum(e0 < 0.5), len(e0))}% at its threshold 0.5 and {_cell(np.sum(e0 < 0.2), len(e0))}% at 0.2. "
             f"ASO's threshold for a {100 * ALPHA:g}% Type I error: eps_min < {tau:.4f}, and eps_min = {tau:.4f} "
             f"with probability {gamma:.2f} ({100 * np.mean(e0 == tau):.1f}% of the nulls have eps_min = {tau:.4f}).",
             "",
             "| shift | power, ours (alpha 0.05) | power, ASO (eps_min < calibrated threshold) |", "|---|---|---|"]
    for shift in args.shifts:
        p1, e1 = statistics(shift)
        power = float(np.mean(e1 < tau) + gamma * np.mean(e1 == tau))
        lines.append(f"| {shift:g} | {_cell(np.sum(p1 < ALPHA), len(p1))} | "
                     f"{100 * power:.1f} ± {100 * np.sqrt(power * (1 - power) / len(e1)):.1f} |")
    return "\n".join(lines)


def part_type_one(sim, args, rng):
    """The Type I error table alone (``coverage`` prints it too)."""
    sizes, ks = (10, 25, 50, 100), (1, 2, 3, 5, 10)
    lines = [f"**Type I error, t test with seed variance (Satterthwaite df), alpha = {ALPHA}** (%, "
             f"{args.replications:,} replications per cell; k = 1 is today's paired t-test on one run each)", "",
             "| scenario | k | " + " | ".join(f"n = {n}" for n in sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for s in SCENARIOS:
        for k in ks:
            cells = [_cell(type_one(sim, n, k, s, args.replications, args.resamples, rng)["m"], args.replications)
                     for n in sizes]
            lines.append(f"| {s[0]} | {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _calibrated(null):
    """``(tau, gamma)``: rejecting ``eps_min < tau``, and ``eps_min = tau`` with probability ``gamma``,
    rejects a share ``ALPHA`` of ``null`` exactly (ASO's ``eps_min`` is often exactly 0)."""
    values = np.sort(np.asarray(null))
    allowed = ALPHA * len(values)
    tau = float(values[int(np.floor(allowed))])
    below, at = np.sum(values < tau), np.sum(values == tau)
    return tau, float((allowed - below) / at)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("methods", "coverage", "typeone", "aso"))
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--aso-iterations", type=int, default=1000)
    parser.add_argument("--shifts", type=float, nargs="+", default=[0.01, 0.02, 0.03])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "ptb_seeds_cache")
    parser.add_argument("--seed", type=int, default=20260512)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not (args.data / "urbano-sigir2019-scores").is_dir():
        sys.exit(f"no urbano-sigir2019-scores/ under {args.data}: pass --data")
    started = time.time()
    rng = np.random.default_rng(args.seed)
    pops = populations(args.data, args.cache)
    sim = Simulator(pops, rng)
    text = {"methods": part_methods, "coverage": part_coverage, "typeone": part_type_one,
            "aso": part_aso}[args.part](sim, args, rng)
    load = os.getloadavg()
    text += (f"\n\n(`python benchmarks/seeds_validation.py {args.part} --replications {args.replications}`; "
             f"{sum(len(p) for p in pops.values())} systems of {len(pops)} collections; "
             f"{time.time() - started:.0f} s, load average {load[0]:.1f})")
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
