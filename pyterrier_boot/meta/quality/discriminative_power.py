"""Discriminative power of evaluation measures: Sakai's bootstrap sensitivity method.

Sakai (2007), "On the reliability of information retrieval metrics based on significance tests"
(IPSJ Digital Courier 3), §6: run a significance test for *every* pair of systems, for every
measure, holding the Type I error rate α fixed; a measure that finds more pairs significant
(``ASL < α``) discriminates better. The sorted ASLs of one measure form its *ASL curve* (his
Fig. 10-13), and the bootstrap replicates give the *estimated difference required* for
``ASL < α`` with the topic-set size at hand (his Fig. 8 and 9, Table 2).

All measures and all pairs share one topic-resample plan (or one sign-flip plan), so measures
are compared on exactly the same resampled topic sets. The tests themselves are those of
:mod:`pyterrier_boot.stats.significance`; a pair's ASL here equals the p-value of the single-pair
function on the same plan (e.g. ``paired_bootstrap_test(x, y, plan=result.plan).pvalue``).

The difference required for one pair, with ``k`` such that ``ASL < alpha`` exactly when the
observed statistic exceeds the ``k``-th largest resampled one (``k = B alpha = 50`` for
``B = 1000``, ``alpha = 0.05``; see :func:`kth_largest_rank`):

* paired bootstrap (Fig. 8): the ``|mean(w*b)|`` of the resample whose ``|t(w*b)|`` is the
  ``k``-th largest (the sort key is the studentised statistic, the value the mean);
* unpaired bootstrap (Fig. 9): the ``k``-th largest ``|d*b|``;
* randomisation (by analogy with Fig. 9): the ``k``-th largest ``|mean|`` of the sign-flipped
  differences;
* t-test: ``t_{1-alpha/2, n-1} · sd(x - y) / √n``, the difference with ``p = alpha``;
* Wilcoxon and sign tests: NaN (their statistics are not on the score scale).

The estimated difference of a measure is the maximum over pairs, "to be conservative" (Sakai §6.1).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from ..._batches import check_executor
from ..._checks import check_alpha
from ..._deprecation import keyword_only
from ..._memory import DEFAULT_MAX_MEMORY, check_n_resamples, require_resamples_memory
from ..._random import as_generator
from ..._results import TupleLike
from ..._rowwise import map_rows
from ..._warnings import one_warning_per_kind
from ...stats.aggregates import get_aggregate
from ...stats.registry import TESTS as REGISTRY
from ...stats.registry import get_test
from ...stats.resampling import (
    as_resample_plan,
    as_sign_flip_plan,
    planned_resamples,
    weighted_sums,
)
from ...stats.significance import (
    count_extreme,
    paired_bootstrap_core,
    randomization_core,
    warn_degenerate,
)
from .._inputs import as_measure_scores, pair_indices, pair_labels

if TYPE_CHECKING:
    from collections.abc import Mapping
    from concurrent.futures import Executor

    import numpy.typing as npt
    import pandas as pd
    from matplotlib.axes import Axes

    from ..._typing import RngLike, ScoresLike
    from ...stats.resampling import ResamplePlan, SignFlipPlan


TESTS = tuple(REGISTRY)
_CELLS = 1 << 22  # pairs x resamples (x topics for non-mean unpaired statistics) per chunk

__all__ = ["discriminative_power", "DiscriminativePowerResult", "TESTS"]


@dataclass(frozen=True, slots=True)
class DiscriminativePowerResult(TupleLike):
    """Discriminative power of several measures; unpacks as ``sensitivity, estimated_difference``.

    Arrays are indexed ``[measure, pair]``, pairs ``(i, j)`` with ``i < j`` in row order of the
    scores (``system_a``, ``system_b``).

    Attributes:
        sensitivity: ``(M,)`` share of pairs with ``ASL < alpha`` (Sakai's Table 2 column ii).
        estimated_difference: ``(M,)`` the estimated difference required for ``ASL < alpha``:
            the maximum over pairs of ``required_difference`` (Sakai Fig. 8/9, column iii; Sakai
            rounds it to two significant figures, we do not).
        asl: ``(M, P)`` achieved significance level of every pair (two-sided p-value).
        difference: ``(M, P)`` observed difference ``M(system_a) - M(system_b)`` (mean, or the
            ``statistic`` of the unpaired test).
        statistic: ``(M, P)`` the test statistic (see :mod:`pyterrier_boot.stats.significance`).
        required_difference: ``(M, P)`` per pair, the difference on the score scale that would
            just reach ``ASL < alpha`` (see :func:`discriminative_power`); NaN for the rank tests.
        measures, systems: labels; ``system_a``, ``system_b``: labels of each pair.
        test, alpha, n_resamples, n_topics, statistic_name: the options used.
        plan: the resample plan shared by every measure and pair (``ResamplePlan``,
            ``SignFlipPlan``, the ``(B, 2n)`` pooled indices of the unpaired test, or None).
    """

    sensitivity: np.ndarray
    estimated_difference: np.ndarray
    asl: np.ndarray
    difference: np.ndarray
    statistic: np.ndarray
    required_difference: np.ndarray
    measures: tuple
    systems: tuple
    system_a: tuple
    system_b: tuple
    test: str
    alpha: float
    n_resamples: int | None
    n_topics: int
    statistic_name: str = "mean"
    plan: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("sensitivity", "estimated_difference")

    @property
    def n_pairs(self) -> int:
        return len(self.system_a)

    def to_frame(self) -> pd.DataFrame:
        """Long table, one row per (measure, pair): ``measure, system_a, system_b, difference,
        statistic, ASL, significant, required_difference``."""
        import pandas as pd

        M, P = self.asl.shape
        return pd.DataFrame({
            "measure": np.repeat(np.array(self.measures, dtype=object), P),
            "system_a": np.tile(np.array(self.system_a, dtype=object), M),
            "system_b": np.tile(np.array(self.system_b, dtype=object), M),
            "difference": self.difference.ravel(),
            "statistic": self.statistic.ravel(),
            "ASL": self.asl.ravel(),
            "significant": (self.asl < self.alpha).ravel(),
            "required_difference": self.required_difference.ravel(),
        })

    def summary(self) -> pd.DataFrame:
        """Sakai's Table 2: one row per measure, in input order.

        Columns ``measure, significant_pairs, pairs, sensitivity, estimated_difference``.
        Sort by ``sensitivity`` (descending) to rank the measures as Sakai does.
        """
        import pandas as pd

        return pd.DataFrame({
            "measure": list(self.measures),
            "significant_pairs": (self.asl < self.alpha).sum(axis=1),
            "pairs": self.n_pairs,
            "sensitivity": self.sensitivity,
            "estimated_difference": self.estimated_difference,
        })

    def asl_curves(self) -> pd.DataFrame:
        """The ASL curves as a table: row ``r`` holds each measure's ``r``-th smallest ASL.

        Index ``pair_rank`` (1 = most significant pair); one column per measure (Sakai Fig. 10-13).
        """
        import pandas as pd

        curves = np.sort(self.asl, axis=1).T
        index = pd.RangeIndex(1, curves.shape[0] + 1, name="pair_rank")
        return pd.DataFrame(curves, index=index, columns=list(self.measures))

    @keyword_only("ax")
    def plot(self, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """ASL curves, one line per measure (see :func:`pyterrier_boot.meta.plots.plot_asl_curves`)."""
        from ..plots import plot_asl_curves

        return plot_asl_curves(self, ax=ax, **kwargs)

    def _repr_html_(self):
        return self.summary()._repr_html_()

    def __repr__(self):
        parts = ", ".join(f"{m!r}: {s:.3f}" for m, s in zip(self.measures, self.sensitivity, strict=True))
        return (f"DiscriminativePowerResult(test={self.test!r}, alpha={self.alpha}, pairs={self.n_pairs}, "
                f"n_topics={self.n_topics}, sensitivity={{{parts}}})")


def kth_largest_rank(alpha: float, n_resamples: int, exact: bool = False) -> int:
    """``k`` such that ``ASL < alpha`` exactly when fewer than ``k`` resampled statistics reach the
    observed one, i.e. when the observed statistic exceeds the ``k``-th largest resampled one.

    With ``ASL = (count + 1) / (B + 1)``: ``k = ceil(alpha (B + 1) - 1)``; with an exact
    enumeration (``ASL = count / B``): ``k = ceil(alpha B)``. For Sakai's ``B = 1000``,
    ``alpha = 0.05`` both give his ``B alpha = 50``.
    """
    raw = alpha * n_resamples if exact else alpha * (n_resamples + 1) - 1
    k = int(np.ceil(raw - 1e-9))
    if k < 1:
        raise ValueError(
            f"'n_resamples'={n_resamples} is too small for alpha={alpha}: no pair can reach "
            f"ASL < alpha; use n_resamples >= {int(np.ceil(1 / alpha))}"
        )
    return k


def _kth_largest_index(values, k):
    """Column index of the ``k``-th largest value of each row."""
    B = values.shape[1]
    return np.argpartition(values, B - k, axis=1)[:, B - k]


class _PooledPlan:
    """Sakai's unpaired resamples (Fig. 6) as signed weights over the pooled ``x ∪ y`` positions.

    ``indices[b]`` draws ``n_x + n_y`` positions from the pooled vector; the first ``n_x`` form
    ``x*``, the rest ``y*``. ``weights`` gives ``count_in_x*/n_x - count_in_y*/n_y`` per position,
    so a weighted sum is ``mean(x*) - mean(y*)``.
    """

    def __init__(self, indices, n_x):
        self.indices = indices
        self.n_x = n_x

    @property
    def n_resamples(self):
        return self.indices.shape[0]

    def weights(self, start=0, stop=None):
        idx = self.indices[start:stop].astype(np.intp)
        rows, m = idx.shape
        n_y = m - self.n_x
        offset = m * np.arange(rows)[:, None]
        wx = np.bincount((idx[:, :self.n_x] + offset).ravel(), minlength=rows * m).reshape(rows, m)
        wy = np.bincount((idx[:, self.n_x:] + offset).ravel(), minlength=rows * m).reshape(rows, m)
        return wx / self.n_x - wy / n_y


def _chunks(n_series, cells_per_series):
    size = max(1, _CELLS // max(1, cells_per_series))
    for start in range(0, n_series, size):
        yield slice(start, min(start + size, n_series))


def _paired_bootstrap(D, plan, k):
    P = D.shape[0]
    n = D.shape[1]
    out = {key: np.empty(P) for key in ("pvalue", "statistic", "required")}
    degenerate = np.zeros(P, bool)
    zero = np.zeros(P, bool)
    for sl in _chunks(P, plan.n_resamples):
        core = paired_bootstrap_core(D[sl], plan, keep_null=True)
        out["pvalue"][sl] = core["pvalue"]
        out["statistic"][sl] = core["statistic"]
        degenerate[sl], zero[sl] = core["degenerate"], core["zero"]
        # Fig. 8: the |mean| of the resample whose |t| is the k-th largest
        W = D[sl] - core["mean"][:, None]
        means = weighted_sums(plan, W) / n
        pick = _kth_largest_index(np.abs(core["null"]), k)
        out["required"][sl] = np.abs(means[np.arange(len(pick)), pick])
    return out, degenerate, zero


def _randomization(D, plan, k):
    P = D.shape[0]
    out = {key: np.empty(P) for key in ("pvalue", "statistic", "required")}
    degenerate = np.zeros(P, bool)
    for sl in _chunks(P, plan.n_resamples):
        core = randomization_core(D[sl], plan, keep_null=True)
        out["pvalue"][sl] = core["pvalue"]
        out["statistic"][sl] = core["statistic"]
        degenerate[sl] = core["degenerate"]
        null = np.abs(core["null"])
        B = null.shape[1]
        out["required"][sl] = np.partition(null, B - k, axis=1)[:, B - k]
    return out, degenerate, degenerate


def _unpaired(Xa, Xb, pooled, k, agg):
    """Sakai Fig. 6, 7 and 9 for every pair: pooled resamples, ASL and the difference required."""
    P, n = Xa.shape
    V = np.concatenate([Xa, Xb], axis=1)
    observed = agg(Xa, axis=-1) - agg(Xb, axis=-1)
    B = pooled.n_resamples
    pvalue = np.empty(P)
    required = np.empty(P)
    cells = B if agg.name == "mean" else B * 2 * n
    for sl in _chunks(P, cells):
        if agg.name == "mean":
            null = weighted_sums(pooled, V[sl])
        else:
            draws = V[sl][:, pooled.indices]  # (pairs, B, 2n)
            null = agg(draws[..., :n], axis=-1) - agg(draws[..., n:], axis=-1)
        count = count_extreme(null, observed[sl], "two-sided")
        pvalue[sl] = (count + 1) / (B + 1)
        absnull = np.abs(null)
        required[sl] = np.partition(absnull, B - k, axis=1)[:, B - k]
    return {"pvalue": pvalue, "statistic": observed, "required": required}, observed


def _discriminative_power_iv(test, alpha, n_resamples, statistic, plan):
    if callable(test) or not isinstance(test, str):
        raise TypeError(f"'test' must be one of {', '.join(repr(t) for t in TESTS)}; got {type(test).__name__}")
    test = get_test(test, allowed=TESTS).name
    alpha = check_alpha(alpha)
    n_resamples = check_n_resamples(n_resamples)
    agg = get_aggregate(statistic)
    if agg.name != "mean" and test != "unpaired_bootstrap":
        raise ValueError(f"'statistic'={agg.name!r} needs test='unpaired_bootstrap' (the paired tests "
                         "compare means of per-topic differences)")
    if plan is not None and test not in ("paired_bootstrap", "randomization"):
        raise ValueError(f"'plan' is only used by test='paired_bootstrap' or 'randomization', not test={test!r}")
    return test, alpha, n_resamples, agg


def _test_measures(test, data, a, b, used, k, agg, alpha, pair_names, executor=None):
    """Every pair tested on every measure: ``asl, statistic, difference, required`` (measures x
    pairs), one warning per kind for degenerate pairs."""
    values = data.values
    executor = check_executor(executor)
    asl = np.empty((values.shape[0], len(a)))
    statistic_out = np.empty_like(asl)
    difference = np.empty_like(asl)
    required = np.full_like(asl, np.nan)
    for m, X in enumerate(values):
        res, difference[m], degenerate, zero = _test_pairs(test, X[a], X[b], used, k, agg, alpha, executor)
        asl[m] = res["pvalue"]
        statistic_out[m] = res["statistic"]
        if "required" in res:
            required[m] = res["required"]
        if degenerate.any():
            names = [f"{data.measures[m]}: {p}" for p in pair_names]
            warn_degenerate("zero", degenerate & zero, names)
            warn_degenerate("constant", degenerate & ~zero, names)
    return asl, statistic_out, difference, required


@one_warning_per_kind()
def discriminative_power(scores_by_measure: Mapping[str, ScoresLike] | ScoresLike, *,
                         test: str = "paired_bootstrap", alpha: float = 0.05,
                         n_resamples: int = 1000, statistic: str = "mean", rng: RngLike = None,
                         plan: ResamplePlan | SignFlipPlan | npt.NDArray[np.intp] | None = None, max_memory: int | str | None = DEFAULT_MAX_MEMORY,
                         executor: Executor | None = None) -> DiscriminativePowerResult:
    """Sakai's bootstrap sensitivity: ASL of every system pair for every measure.

    Args:
        scores_by_measure: a dict ``{measure: matrix}`` (systems x topics arrays, topics x systems
            DataFrames) or a long ``name, qid, measure, value`` frame: 3 systems or more, same topics.
        test: ``"paired_bootstrap"`` (Sakai Fig. 2-3, default), ``"unpaired_bootstrap"`` (Fig. 6-7),
            ``"randomization"``, ``"t"``, ``"wilcoxon"``, ``"sign"``; two-sided. alpha: level.
        n_resamples: ``B`` (Sakai uses 1000).
        statistic: aggregate of the unpaired test (``"gmean"``, ...); the paired tests compare means.
        rng, plan: seed or Generator (SPEC 7) of the one plan all measures and pairs share, or a
            :class:`~pyterrier_boot.ResamplePlan` / :class:`~pyterrier_boot.SignFlipPlan` to replay.
        max_memory: bytes the resampling may hold (default 1 GiB); more is a ValueError.
        executor: a ``concurrent.futures.Executor`` to test chunks of pairs on (``pt_docs/scale.md``).

    Returns:
        DiscriminativePowerResult: ``sensitivity``, ``estimated_difference`` (the largest
        difference required over pairs; module docstring), per-pair ``asl``, and ``summary()``,
        ``to_frame()``, ``asl_curves()``, ``plot()``.

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> topic, systems = rng.beta(2, 5, 40), np.linspace(0, 0.15, 8)[:, None]  # 8 systems, 40 topics
        >>> ap = np.clip(topic + systems + rng.normal(0, 0.08, (8, 40)), 0, 1)
        >>> p10 = np.round(np.clip(ap + rng.normal(0, 0.15, (8, 40)), 0, 1), 1)
        >>> res = discriminative_power({"AP": ap, "P@10": p10}, rng=1)
        >>> res.summary()[["measure", "significant_pairs", "pairs"]]
          measure  significant_pairs  pairs
        0      AP                 22     28
        1    P@10                 11     28

    References:
        Sakai, T. (2007). On the reliability of information retrieval metrics based on
        significance tests. IPSJ Digital Courier 3, §6 (pt_docs/methods.md, "Meta-evaluation of measures").
    """
    test, alpha, n_resamples, agg = _discriminative_power_iv(test, alpha, n_resamples, statistic, plan)
    data = as_measure_scores(scores_by_measure)
    values = data.values
    M, S, n = values.shape
    a, b = pair_indices(S)
    labels_a, labels_b = pair_labels(data.systems, a, b)
    pair_names = [f"{x} vs {y}" for x, y in zip(labels_a, labels_b, strict=True)]
    used, k = _draw_plan(test, plan, data, len(a), n_resamples, agg, alpha, rng, max_memory)
    asl, statistic_out, difference, required = _test_measures(test, data, a, b, used, k, agg, alpha, pair_names, executor)
    sensitivity = (asl < alpha).mean(axis=1)
    with np.errstate(all="ignore"):
        estimated = np.nanmax(required, axis=1) if not np.isnan(required).all() else np.full(M, np.nan)
    plan_out = used.indices if isinstance(used, _PooledPlan) else used
    B = None if used is None else int(used.n_resamples)
    return DiscriminativePowerResult(
        sensitivity=sensitivity, estimated_difference=estimated, asl=asl, difference=difference,
        statistic=statistic_out, required_difference=required, measures=data.measures,
        systems=data.systems, system_a=tuple(labels_a), system_b=tuple(labels_b), test=test,
        alpha=alpha, n_resamples=B, n_topics=n, statistic_name=agg.name, plan=plan_out,
    )


def _draw_plan(test, plan, data, n_pairs, n_resamples, agg, alpha, rng, max_memory):
    """The plan every measure and pair shares, and the rank ``k`` of the difference required."""
    M, _, n = data.values.shape
    if test not in ("paired_bootstrap", "randomization", "unpaired_bootstrap"):
        return None, None
    B = planned_resamples(plan, n_resamples)
    width = 2 * n if test == "unpaired_bootstrap" else n
    cells = B if agg.name == "mean" else B * width
    max_memory = require_resamples_memory(
        B, max_memory, what=f"the {test} test of {n_pairs:,} pairs x {n:,} topics",
        plan_topics=width if plan is None else 0,
        floats=5 * min(n_pairs, max(1, _CELLS // max(1, cells))) * cells / B, extra=8 * 4 * M * n_pairs)
    if test == "paired_bootstrap":
        used = as_resample_plan(plan, n, n_resamples, rng, max_memory)
        return used, kth_largest_rank(alpha, used.n_resamples)
    if test == "randomization":
        used = as_sign_flip_plan(plan, n, n_resamples, rng, max_memory)
        return used, kth_largest_rank(alpha, used.n_resamples, exact=used.exact)
    for m in range(M):
        agg.check_domain(data.values[m], f"scores_by_measure[{data.measures[m]!r}]")
    gen = as_generator(rng)
    return _PooledPlan(gen.integers(0, 2 * n, (n_resamples, 2 * n)), n), kth_largest_rank(alpha, n_resamples)


def _test_pairs(test, Xa, Xb, used, k, agg, alpha, executor=None):
    """One measure: ``(per-pair results, difference, degenerate, zero)`` for the pairs ``Xa`` vs ``Xb``;
    the resampling tests run in chunks of pairs, on ``executor`` when given."""
    D = Xa - Xb
    difference = D.mean(axis=1)
    if test in ("paired_bootstrap", "randomization"):
        function = _paired_bootstrap if test == "paired_bootstrap" else _randomization
        rows = max(1, _CELLS // used.n_resamples)
        res, degenerate, zero = map_rows(functools.partial(function, plan=used, k=k), D, rows=rows, executor=executor)
    elif test == "unpaired_bootstrap":
        rows = max(1, _CELLS // (used.n_resamples * (1 if agg.name == "mean" else 2 * D.shape[1])))
        res, difference = map_rows(functools.partial(_unpaired, pooled=used, k=k, agg=agg), Xa, Xb, rows=rows,
                                   executor=executor)
        degenerate = zero = np.zeros(len(D), bool)
    else:
        core = REGISTRY[test].core(D)
        res = {"pvalue": core["pvalue"], "statistic": core["statistic"]}
        if test == "t":  # the difference with p = alpha
            res["required"] = stats.t.ppf(1 - alpha / 2, D.shape[1] - 1) * core["sd"] / np.sqrt(D.shape[1])
        degenerate, zero = core["degenerate"], core["zero"]
    return res, difference, degenerate, zero
