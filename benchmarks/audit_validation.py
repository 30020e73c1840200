"""``audit_tests`` against a direct large Monte Carlo of the same tests, from known generators (issue 35).

1. **Exact null, the simulation engine.** A model built by hand: 6 systems with beta margins and
   Gaussian pair copulas (correlations 0.5-0.9), so both systems of a pair through one margin are
   exchangeable and every test's null holds exactly. The audit's blocks (``pair_block``, 1,000
   resamples) against a direct Monte Carlo that draws each topic set with numpy and scipy (beta
   quantiles, not the model's tabulated ones) and runs scipy's tests (``ttest_rel``, ``wilcoxon``,
   ``binomtest``) and the package's single-pair ``paired_bootstrap_test`` and ``randomization_test``
   (each topic set with its own resamples).
2. **simulate_scores, the whole audit.** ``--matrices`` matrices of 30 systems x 50 topics drawn from
   ``simulate_scores`` (logit-normal with topic effects; means 0.2-0.3), each audited by
   ``audit_tests`` (fit and simulation); against the direct Monte Carlo of the generator's null
   (``simulate_null_scores``: two exchangeable systems, the null exact) run through the same
   single-pair functions. The audit's rate is a distribution over matrices: its mean, the SD over
   matrices and the standard error of the mean are reported. The direct Monte Carlo runs the same
   tests as part 1.

Agreement: ``z = (audit - direct) / sqrt(se_audit^2 + se_direct^2)``; ``|z| < 2`` agrees.

Usage: python benchmarks/audit_validation.py [--part 1 2] [--simulations 10000] [--matrices 5]
"""
import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from scipy import special, stats

import pyterrier_boot as pb
from pyterrier_boot.audit.audit import DEFAULT_TESTS
from pyterrier_boot.audit.battery import pair_block
from pyterrier_boot.audit.copulas import PairCopulas
from pyterrier_boot.audit.margins import Margin
from pyterrier_boot.audit.model import ScoreModel
from pyterrier_boot.audit.support import support_for

BETAS = [(0.8, 2.5), (1.2, 2.0), (0.6, 3.0), (2.0, 2.0), (1.0, 1.5), (0.7, 1.2)]
ALPHA = 0.05


def beta_model(n_topics_fitted: int = 50) -> tuple[ScoreModel, np.ndarray]:
    """6 beta margins (tabulated on 20,001 probabilities) and Gaussian pair copulas."""
    import pyvinecopulib as pv

    u = np.linspace(0, 1, 20_001)
    margins = tuple(Margin("beta", 0.0, 2.0, knots_u=u, knots_x=stats.beta.ppf(u, a, b)) for a, b in BETAS)
    S = len(BETAS)
    rho = np.array([[1.0 if i == j else 0.5 + 0.4 * abs(i - j) / (S - 1) for j in range(S)] for i in range(S)])
    copulas = {(i, j): pv.Bicop(pv.BicopFamily.gaussian, parameters=np.array([[rho[i, j]]]))
               for i in range(S) for j in range(i + 1, S)}
    pairs = PairCopulas(copulas, pd.DataFrame({"family": ["gaussian"] * len(copulas)}))
    model = ScoreModel(tuple(f"s{i}" for i in range(S)), support_for("AP", np.zeros((1, 2))), margins, pairs, None,
                       n_topics_fitted)
    return model, rho


def single_pair_pvalues(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> list[float]:
    """One topic set's p-values (x - y), in DEFAULT_TESTS order: scipy for the t, Wilcoxon and sign
    tests (``ttest_rel``, ``wilcoxon``, ``binomtest``: the references), the package's single-pair
    functions for the resampling tests (each with its own resamples)."""
    d = x - y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy on degenerate pairs; our DegenerateWarning (p = 1)
        t = stats.ttest_rel(x, y).pvalue if np.ptp(d) > 0 else 1.0
        w = stats.wilcoxon(d).pvalue if d.any() else 1.0
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        s = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
        return [t, w, s, pb.paired_bootstrap_test(x, y, n_resamples=1000, rng=rng).pvalue,
                pb.randomization_test(x, y, n_resamples=1000, rng=rng).pvalue]


def direct_beta(rho: np.ndarray, n_topics: int, n_sims: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    S = len(BETAS)
    out = np.empty((n_sims, len(DEFAULT_TESTS)))
    for k in range(n_sims):
        i, j = rng.choice(S, 2, replace=False)
        z = rng.multivariate_normal([0, 0], [[1, rho[i, j]], [rho[i, j], 1]], size=n_topics)
        b, e = stats.beta.ppf(special.ndtr(z), *BETAS[i]).T
        out[k] = single_pair_pvalues(e, b, rng)
    return out


def direct_logit_normal(n_topics: int, n_sims: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty((n_sims, len(DEFAULT_TESTS)))
    for k in range(n_sims):
        x, _ = pb.simulate_null_scores(2, n_topics, rng=rng)
        out[k] = single_pair_pvalues(x[0], x[1], rng)
    return out


def rate(p: np.ndarray) -> tuple[float, float]:
    r = float((p < ALPHA).mean())
    return r, float(np.sqrt(r * (1 - r) / p.size))


def part_one(n_sims: int, n_topics: int) -> pd.DataFrame:
    model, rho = beta_model()
    seeds = np.random.SeedSequence(7).spawn(-(-n_sims // 500))
    tasks = [(model, n_topics, min(500, n_sims - 500 * k), seed, (), DEFAULT_TESTS, ("two-sided",), 1000)
             for k, seed in enumerate(seeds)]
    audit = np.concatenate([pair_block(task)["null"][0] for task in tasks], axis=-1)
    direct = direct_beta(rho, n_topics, n_sims, seed=8)
    return _rows("exact null (beta margins, Gaussian copulas)", n_topics,
                 [rate(audit[t]) for t in range(len(DEFAULT_TESTS))], [rate(direct[:, t]) for t in range(len(DEFAULT_TESTS))])


def part_two(n_sims: int, n_topics: int, n_matrices: int) -> pd.DataFrame:
    estimates = []
    for m in range(n_matrices):
        matrix, _ = pb.simulate_scores(30, n_topics, rng=100 + m)
        scores = pd.DataFrame(matrix, columns=pd.Index([str(q) for q in range(n_topics)], name="qid"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pb.FitWarning)
            audit = pb.audit_tests(scores, measure="AP", n_simulations=n_sims, corrections=None, effects=(),
                                   rng=200 + m, verbose=False)
        table = audit.table()
        estimates.append(table["type_i"].to_numpy())
        print(f"  matrix {m}: {audit.settings['seconds']:.0f} s, {len(caught)} fit warning(s), Type I "
              f"{dict(zip(table['test'], table['type_i'].round(4)))}", flush=True)
    estimates = np.array(estimates)
    direct = direct_logit_normal(n_topics, n_sims, seed=9)
    mean = estimates.mean(axis=0)
    se = estimates.std(axis=0, ddof=1) / np.sqrt(n_matrices) if n_matrices > 1 else np.full(mean.shape, np.nan)
    frame = _rows(f"simulate_scores ({n_matrices} matrices of 30 x {n_topics})", n_topics,
                  list(zip(mean, se)), [rate(direct[:, t]) for t in range(len(DEFAULT_TESTS))])
    frame["audit_sd_over_matrices"] = estimates.std(axis=0, ddof=1) if n_matrices > 1 else np.nan
    return frame


def _rows(generator, n_topics, audit, direct) -> pd.DataFrame:
    frame = pd.DataFrame({"generator": generator, "n_topics": n_topics, "test": DEFAULT_TESTS,
                          "audit": [a[0] for a in audit], "audit_se": [a[1] for a in audit],
                          "direct": [d[0] for d in direct], "direct_se": [d[1] for d in direct]})
    frame["z"] = (frame["audit"] - frame["direct"]) / np.hypot(frame["audit_se"], frame["direct_se"])
    return frame


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", type=int, nargs="+", default=[1, 2], choices=(1, 2))
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--topics", type=int, nargs="+", default=[25, 50])
    parser.add_argument("--matrices", type=int, default=5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    pd.set_option("display.width", 200)
    print(f"load average {os.getloadavg()}", flush=True)
    frames = []
    for n in args.topics:
        for part in args.part:
            started = time.perf_counter()
            frame = part_one(args.simulations, n) if part == 1 else part_two(args.simulations, n, args.matrices)
            frames.append(frame)
            print(frame.round(4).to_string(index=False), f"\n({time.perf_counter() - started:.0f} s)", flush=True)
            if args.out:
                pd.concat(frames).to_csv(args.out, index=False)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
