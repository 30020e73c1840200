"""The tests and corrections run on simulated topic sets, thousands of rows at once.

Every test is the package's own, by its registry name (:mod:`pyterrier_boot.stats.registry`): its
vectorised core on a ``(simulations, topics)`` matrix of differences, p-values only. The resampling
tests draw one plan per block of simulations (``n_resamples`` topic resamples or sign flips from the
block's generator), shared by the block's rows, as ``compare`` shares one plan between pairs.

Corrections of a family's ``k (k - 1) / 2`` pairwise p-values: ``"none"``, ``"bonferroni"``,
``"holm"``, ``"fdr_bh"`` (Benjamini-Hochberg; :func:`~pyterrier_boot.stats.correction.correct_pvalue_rows`),
and ``"tukey-hsd"``: Tukey's HSD with topics as blocks (the two-way ANOVA's pooled residual
variance, the studentised range of ``k`` means), which replaces the pairwise test and so goes with
the t-test only. A rejection is counted false when the pair's means are equal, or when they differ
and the observed difference has the wrong sign (directional errors, so the FDR counts Type III
errors as false discoveries).

:func:`pair_block` and :func:`family_block` are one block of simulations each, module-level so an
executor can run them.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from ..stats.correction import correct_pvalue_rows
from ..stats.registry import PAIRED, get_test
from ..stats.resampling import resample_plan, sign_flip_plan
from ..stats.tukey import tukey_statistics
from .simulation import family_draws, family_scores, group_of, pair_differences, pair_draws

if TYPE_CHECKING:
    from .._typing import FloatArray

__all__ = ["CORRECTIONS", "pvalues", "pair_block", "family_block", "tukey_critical"]

CORRECTIONS = ("none", "bonferroni", "holm", "fdr_bh", "tukey-hsd")


def draw_plans(n_topics: int, n_resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    """One topic-resample plan and one sign-flip plan for a block of simulations."""
    return {"resample": resample_plan(n_topics, n_resamples=n_resamples, rng=rng),
            "sign_flip": sign_flip_plan(n_topics, n_resamples=n_resamples, rng=rng)}


def pvalues(D: FloatArray, test: str, alternative: str, plans: dict[str, Any]) -> FloatArray:
    """p-values of the registry's ``test`` for every row of ``D`` (rows with NaN get NaN)."""
    entry = get_test(test, allowed=PAIRED)
    valid = ~np.isnan(D).any(axis=1)
    out = np.full(D.shape[0], np.nan)
    if valid.any():
        options: dict[str, Any] = {"alternative": alternative, "intervals": False}
        if entry.plan is not None:
            options["plan"] = plans[entry.plan]
        out[valid] = entry.core(np.ascontiguousarray(D[valid]), **options)["pvalue"]  # type: ignore[misc]
    return out


def pair_block(task: tuple) -> dict[str, np.ndarray]:
    """One block of pair simulations: ``(model, n_topics, n_draws, seed, effects, tests, alternatives,
    n_resamples)`` -> ``null`` p-values ``(alternatives, tests, n_draws)``, ``effect`` p-values
    ``(alternatives, tests, effects, n_draws)``, ``means`` of ``e - b`` ``(effects, n_draws)`` and the
    drawn pairs (``reference``, ``other``). Under ``"less"`` an effect is tested as ``b - e``."""
    model, n_topics, n_draws, seed, effects, tests, alternatives, n_resamples = task
    rng = np.random.default_rng(seed)
    reference, other, U = pair_draws(model, n_topics, n_draws, rng)
    plans = draw_plans(n_topics, n_resamples, rng)
    null = pair_differences(model, reference, U, 0.0)
    out_null = np.array([[pvalues(null, t, a, plans) for t in tests] for a in alternatives])
    out_effect = np.full((len(alternatives), len(tests), len(effects), n_draws), np.nan)
    means = np.full((len(effects), n_draws), np.nan)
    for e, delta in enumerate(effects):
        D = pair_differences(model, reference, U, delta)
        means[e] = D.mean(axis=1)
        for a, alternative in enumerate(alternatives):
            signed = -D if alternative == "less" else D
            for t, test in enumerate(tests):
                out_effect[a, t, e] = pvalues(signed, test, alternative, plans)
    return {"null": out_null, "effect": out_effect, "means": means, "reference": reference, "other": other,
            "null_means": null.mean(axis=1)}


@functools.lru_cache(maxsize=256)
def tukey_critical(size: int, df: int, alpha: float) -> float:
    """The studentised range's ``1 - alpha`` quantile for ``size`` means and ``df`` degrees of freedom."""
    return float(stats.studentized_range.ppf(1 - alpha, size, df))


def _outcomes(reject: np.ndarray, sign: np.ndarray, truth: np.ndarray) -> dict[str, FloatArray]:
    """Per family: any false rejection, the false discovery proportion, and the shares of the truly
    different pairs rejected with the right sign (power) and the wrong sign (Type III)."""
    different = truth != 0
    wrong = reject & different[None, :] & (sign != truth[None, :])
    false = (reject & ~different[None, :]) | wrong
    right = reject & different[None, :] & (sign == truth[None, :])
    n_different = max(int(different.sum()), 1) if different.any() else np.nan
    return {"any_false": false.any(axis=1).astype(float),
            "fdp": false.sum(axis=1) / np.maximum(reject.sum(axis=1), 1),
            "power": right.sum(axis=1) / n_different,
            "type_iii": wrong.sum(axis=1) / n_different}


def _tukey_reject(X: FloatArray, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """Tukey HSD's rejections ``(families, pairs)`` of scores ``X`` ``(families, size, topics)``."""
    means, mse, df = tukey_statistics(X)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(means[:, b] - means[:, a]) / np.sqrt(mse / X.shape[2])[:, None]
    return (mse[:, None] > 0) & (q > tukey_critical(X.shape[1], df, alpha))


def _family_scenario(X, tests, corrections, alpha, plans, truth):
    """Outcomes ``{(test, correction): per-family dict}`` of one scenario's scores ``X``."""
    m, size, n = X.shape
    a, b = np.triu_indices(size, k=1)
    valid = ~np.isnan(X).any(axis=(1, 2))
    D = (X[:, b] - X[:, a]).reshape(-1, n)
    sign = np.sign(D.mean(axis=1)).reshape(m, -1)
    out = {}
    for test in tests:
        p = pvalues(D, test, "two-sided", plans).reshape(m, -1)
        for correction in corrections:
            if correction == "tukey-hsd":
                if get_test(test).name != "t":
                    continue
                reject = _tukey_reject(X, a, b, alpha)
            else:
                adjusted = p if correction == "none" else correct_pvalue_rows(p, correction)
                reject = adjusted < alpha
            found = _outcomes(reject, sign, truth)
            out[test, correction] = {k: np.where(valid, v, np.nan) for k, v in found.items()}
    return out


def family_block(task: tuple) -> list[dict]:
    """One block of family simulations: ``(model, n_topics, n_draws, size, seed, effects, tests,
    corrections, alpha, n_resamples)`` -> per scenario (the null, then each effect) the outcomes of
    every (test, correction) for each family (two-sided tests)."""
    model, n_topics, n_draws, size, seed, effects, tests, corrections, alpha, n_resamples = task
    rng = np.random.default_rng(seed)
    members, U = family_draws(model, n_topics, n_draws, size, rng)
    plans = draw_plans(n_topics, n_resamples, rng)
    a, b = np.triu_indices(size, k=1)
    group = group_of(size)
    results = []
    for delta in (0.0, *effects):
        truth = (group[b] - group[a]) if delta else np.zeros(len(a), dtype=int)
        X = family_scores(model, members, U, delta)
        results.append(_family_scenario(X, tests, corrections, alpha, plans, truth))
    return results
