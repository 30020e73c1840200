"""Many systems, many measures: :func:`compare` returns one long table of pairwise tests.

All pairs, or every system against one or several baselines (PyTerrier's open request #597),
for every measure, with one shared topic-resample (or sign-flip) plan, so every pair and every
measure is resampled on the same topics, and with multiple-testing correction per measure (or
across measures).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .._batches import check_executor
from .._checks import (
    ALTERNATIVES,
    NAN_POLICIES,
    SMALLEST_SPREAD,
    check_alpha,
    check_choice,
    check_confidence_level,
    check_spread,
    describe,
)
from .._memory import (
    DEFAULT_MAX_MEMORY,
    check_n_resamples,
    chunk_rows,
    require_resamples_memory,
    warn_interval_resolution,
    warn_pvalue_resolution,
)
from .._rowwise import map_rows
from .._scores import as_measure_scores
from .._warnings import BootWarning, one_warning_per_kind, warn
from .correction import METHODS as CORRECTIONS
from .correction import correct_pvalues
from .inversion import alpha_of
from .registry import PAIRED, canonical
from .registry import TESTS as REGISTRY
from .resampling import as_resample_plan, as_sign_flip_plan, planned_resamples
from .significance import _describe_diffs, warn_degenerate, warn_unbounded

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor
    from typing import Any

    import pandas as pd

    from .._typing import RngLike, ScoresLike
    from .resampling import ResamplePlan, SignFlipPlan


TESTS = PAIRED
SCOPES = ("measure", "all")

COLUMNS = [
    "measure", "system_a", "system_b", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
    "statistic", "p-value", "p-value corrected", "reject", "effect_size", "wins", "ties", "losses",
    "n_topics", "estimate", "ci_level",
]
# corrections with a simultaneous interval to match: the level of each interval is adjusted
ADJUSTED = ("bonferroni", "sidak")

__all__ = ["compare", "TESTS", "COLUMNS"]


def _pairs(systems, baseline):
    S = len(systems)
    if S < 2:
        raise ValueError(f"'scores' needs at least 2 systems to compare, got {S}")
    if baseline is None:
        a, b = np.triu_indices(S, k=1)
        return a, b
    chosen = baseline if isinstance(baseline, (list, tuple)) else [baseline]
    if not chosen:
        raise ValueError("'baseline' is an empty list")
    pairs_a, pairs_b = [], []
    for base in chosen:
        if base in systems:
            pos = systems.index(base)
        elif isinstance(base, (int, np.integer)) and not isinstance(base, bool) and -S <= base < S:
            pos = int(base) % S
        else:
            raise ValueError(f"'baseline' {base!r} is neither a system name nor a row position; "
                             f"systems are {describe(systems)}")
        others = [s for s in range(S) if s != pos]
        pairs_a.extend(others)
        pairs_b.extend([pos] * len(others))
    return np.asarray(pairs_a), np.asarray(pairs_b)


def _compare_iv(test, correction, correction_scope, alpha, alternative, confidence_level, n_resamples, nan_policy):
    if not callable(test):
        check_choice(test, "test", TESTS)
    if correction is not None:
        check_choice(correction, "correction", ("none",) + CORRECTIONS)
    check_choice(correction_scope, "correction_scope", SCOPES)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    return (check_alpha(alpha), check_confidence_level(confidence_level),
            check_n_resamples(n_resamples))


def _callable_core(test, Xa, Xb, confidence_level):
    """A user's test: its own interval when its result has one (an attribute, or scipy's method), else NaN."""
    D = Xa - Xb
    info = _describe_diffs(D)
    P = D.shape[0]
    statistic, pvalue, low, high = (np.full(P, np.nan) for _ in range(4))
    for i in range(P):
        res = test(Xa[i], Xb[i])
        statistic[i], pvalue[i] = float(res[0]), float(res[1])
        ci = getattr(res, "confidence_interval", None)
        if callable(ci):
            try:
                ci = ci(confidence_level)
            except TypeError:
                ci = None
        if ci is not None:
            low[i], high[i] = ci[0], ci[1]
    return dict(info, statistic=statistic, pvalue=pvalue, low=low, high=high, estimate=info["mean"],
                null=None, degenerate=np.zeros(P, dtype=bool))


def interval_alpha(alpha: float, correction: str | None, family_size: int) -> tuple[float, bool]:
    """``(alpha, inclusive)`` of the intervals that match the verdicts: Bonferroni ``alpha / m`` and
    Sidak ``1 - (1 - alpha)^(1/m)`` (statsmodels' thresholds, which reject at ``p <=``); for the
    step-wise corrections (Holm, BH, ...) the unadjusted ``alpha`` with ``p <=`` (a rejected row's
    raw p-value is at most ``alpha``, so its interval still excludes 0)."""
    if correction is None or correction == "none":
        return alpha, False
    m = max(int(family_size), 1)
    if correction == "bonferroni":
        return alpha / float(m), True
    if correction == "sidak":
        return 1.0 - np.power(1.0 - alpha, 1.0 / m), True
    return alpha, True


def _check_resampling(test, plan, n, n_resamples, n_pairs, n_measures, alpha, confidence_level, alternative,
                      max_memory):
    """Memory (plan, one chunk of pairs) and resolution of compare's resampling tests."""
    given = plan is not None
    B = planned_resamples(plan, n_resamples)
    exact = test == "randomization" and (getattr(plan, "exact", False) if given else n < 63 and 2 ** n <= B)
    size = None
    if exact and not given:
        B = 2 ** n
        size = f"n_resamples={n_resamples:,} (at least 2^{n}: all {B:,} sign flips enumerated)"
    rows = chunk_rows(n_pairs, B)
    max_memory = require_resamples_memory(
        B, max_memory, what=f"the {test} test of {n_pairs:,} pair(s) x {n:,} topics",
        plan_topics=0 if given else n, floats=5 * rows, extra=8 * 16 * n_pairs * n_measures, size=size)
    if test == "paired_bootstrap" and warn_interval_resolution(B, confidence_level, alternative, "bootstrap-t"):
        return max_memory
    if not exact:
        warn_pvalue_resolution(B, alpha)
    return max_memory


@one_warning_per_kind()
def compare(scores: ScoresLike, *, baseline: int | str | Sequence[int | str] | None = None,
            test: str = "paired_bootstrap", correction: str | None = "holm",
            correction_scope: str = "measure", alpha: float = 0.05, alternative: str = "two-sided",
            confidence_level: float | None = None, n_resamples: int = 10_000, rng: RngLike = None,
            plan: ResamplePlan | SignFlipPlan | None = None, nan_policy: str = "raise",
            max_memory: int | str | None = DEFAULT_MAX_MEMORY, executor: Executor | None = None) -> pd.DataFrame:
    """Test every pair of systems (or every system against baselines) on every measure.

    Args:
        scores: a long ``name, qid, measure, value`` frame (``pt.Experiment(..., perquery=True)``), a dict
            ``{measure: matrix}`` or one matrix: a systems x topics array or a topics x systems DataFrame.
        baseline: None (all pairs ``i < j``), a system (name or row) or a list: each against every
            other system (``difference = system_a - baseline``).
        test: ``"paired_bootstrap"`` (Sakai), ``"randomization"``, ``"t"``, ``"wilcoxon"``, ``"sign"``,
            or a callable ``test(x, y)`` with the p-value at ``[1]`` (e.g. ``scipy.stats.ttest_rel``).
        correction, correction_scope: a :data:`~pyterrier_boot.stats.correction.METHODS` name, or
            None; one family per ``"measure"`` (default) or ``"all"``. alpha: level for ``reject``.
        alternative: ``"two-sided"``, ``"greater"`` (``system_a`` better) or ``"less"``.
        confidence_level: of each interval; None (default): matching the verdict (``1 - alpha``,
            adjusted for Bonferroni and Sidak).
        n_resamples, rng, plan: of the resampling tests; a :class:`ResamplePlan` or
            :class:`SignFlipPlan` to replay serves every pair and measure.
        nan_policy: ``"raise"``, or ``"omit"`` (drop topics missing anywhere, warning).
        max_memory: bytes the resampling tests may hold (default 1 GiB); more is a ValueError.
        executor: a ``concurrent.futures.Executor`` to test chunks of pairs on; same table (``pt_docs/scale.md``).

    Returns:
        pandas.DataFrame, one row per (measure, pair), columns :data:`COLUMNS`; ``ci_low, ci_high``
        is the interval the test inverts (around ``estimate``, at ``ci_level``): it excludes 0 exactly
        when ``reject``, except with step-wise corrections (Holm, BH, ...; ``pt_docs/statistics.md``).

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> topic = rng.random(25)
        >>> scores = {"AP": np.vstack([topic, topic + 0.05, topic + 0.06]) + rng.normal(0, 0.05, (3, 25))}
        >>> table = compare(scores, baseline=0, rng=1)
        >>> table[["system_a", "system_b", "reject"]].values.tolist()
        [[1, 0, True], [2, 0, True]]
    """
    test = canonical(test)
    given_level = confidence_level
    alpha, confidence_level, n_resamples = _compare_iv(
        test, correction, correction_scope, alpha, alternative,
        0.5 if confidence_level is None else confidence_level, n_resamples, nan_policy)
    data = as_measure_scores(scores, "scores", min_systems=1, nan_policy=nan_policy, single=True, strict=True)
    measures, systems, values = data.measures, data.systems, data.values
    a, b = _pairs(systems, baseline)
    n = _topic_count(values)
    ci_alpha, inclusive = _interval_level(alpha, correction, correction_scope, given_level, len(a), len(measures))
    used = _draw_plan(test, plan, n, n_resamples, rng, len(a), len(measures), alpha, 1 - ci_alpha, alternative,
                      max_memory)
    _warn_unreachable(test, used, n, correction, _family(len(a), len(measures), correction_scope), alpha)
    level: dict[str, Any] = dict(alpha=ci_alpha, inclusive=inclusive, alternative=alternative)
    table = _test_measures(test, used, level, measures, systems, values, a, b, check_executor(executor))
    table["p-value corrected"], table["reject"] = _corrected(table, measures, correction, correction_scope, alpha)
    table.attrs.update(test=test if isinstance(test, str) else getattr(test, "__name__", "callable"),
                       correction=correction, correction_scope=correction_scope, alpha=alpha,
                       alternative=alternative, confidence_level=1 - ci_alpha if given_level is None else given_level)
    return table[COLUMNS]


def _topic_count(values):
    """Topics of the score matrices ``(measures, systems, topics)``; a test needs at least 2."""
    n = values.shape[2]
    if n < 2:
        raise ValueError(f"'scores' needs at least 2 topics, got {n}")
    return n


def _family(n_pairs, n_measures, correction_scope):
    """How many tests a correction counts: the pairs of one measure, or of every measure (``"all"``)."""
    return n_pairs * (n_measures if correction_scope == "all" else 1)


def _interval_level(alpha, correction, correction_scope, given_level, n_pairs, n_measures):
    """The intervals' alpha and inclusiveness: the level matching the verdict (``given_level`` None,
    adjusted for Bonferroni/Sidak over the family), else ``given_level``."""
    if given_level is None:
        corrected = correction not in (None, "none")
        return interval_alpha(alpha, correction if corrected else None, _family(n_pairs, n_measures, correction_scope))
    return alpha_of(given_level), False


def _test_measures(test, used, level, measures, systems, values, a, b, executor=None):
    """Every pair ``a[k], b[k]`` tested on every measure, one frame; one warning for the intervals
    the resamples cannot bound."""
    import pandas as pd

    labels_a, labels_b = [systems[i] for i in a], [systems[j] for j in b]
    pair_names = [f"{sa} vs {sb}" for sa, sb in zip(labels_a, labels_b, strict=True)]
    frames, unbounded = [], []
    for measure, X in zip(measures, values, strict=True):
        frame, unbounded_rows = _compare_measure(test, used, level, measure, X, a, b, pair_names, executor)
        frames.append(frame.assign(system_a=labels_a, system_b=labels_b))
        unbounded.append(unbounded_rows)
    table = pd.concat(frames, ignore_index=True)
    unbounded = np.concatenate(unbounded)
    if level["alternative"] == "two-sided" and unbounded.any():
        labels = [f"{m}: {p}" for m in measures for p in pair_names]
        warn_unbounded(test if isinstance(test, str) else "the given test", unbounded, labels, level["alpha"],
                       values.shape[2])
    return table


# corrections whose first rejection needs p < alpha / m
FAMILYWISE = ("bonferroni", "sidak", "holm", "holm-sidak")


def _warn_unreachable(test, plan, n, correction, family, alpha):
    """One warning when a resampling test cannot reject anything after a familywise correction: its
    p-values are at least ``1/(B+1)`` (``2/2^n`` when every sign flip is enumerated), and Bonferroni,
    Sidak and Holm need ``p < alpha/m`` for a first rejection (1,711 pairs of 59 runs at alpha 0.05:
    2.9e-5, below 1/10,001)."""
    from .correction import canonical as canonical_correction

    if plan is None or family < 2 or correction is None or canonical_correction(correction) not in FAMILYWISE:
        return
    B = plan.n_resamples
    floor, how = 1 / (B + 1), f"{B:,} resamples"
    if getattr(plan, "exact", False):
        floor, how = 2 / B, f"all {B:,} sign flips of {n} topics"
    if floor > alpha / family:
        warn(BootWarning(
            f"the {test} test with {how} gives p-values of at least {floor:.2g}, but {correction} over "
            f"{family:,} comparisons needs p < {alpha / family:.2g} for any rejection: no difference can be "
            "significant. Use the t or Wilcoxon test, fewer comparisons (a baseline), or the fdr_bh correction"))


def _draw_plan(test, plan, n, n_resamples, rng, n_pairs, n_measures, alpha, confidence_level, alternative,
               max_memory):
    """The one plan every pair and measure shares (None for the tests that do not resample)."""
    kind = None if callable(test) else REGISTRY[test].plan
    if kind is None:
        if plan is not None:
            raise ValueError(f"'plan' is only used by the resampling tests, not test={test!r}")
        return None
    max_memory = _check_resampling(test, plan, n, n_resamples, n_pairs, n_measures, alpha, confidence_level,
                                   alternative, max_memory)
    draw = as_resample_plan if kind == "resample" else as_sign_flip_plan
    return draw(plan, n, n_resamples, rng, max_memory)


def _compare_measure(test, plan, level, measure, X, a, b, pair_names, executor=None):
    """One measure's rows of the table (without the system labels), and which intervals are unbounded."""
    import pandas as pd

    D = X[a] - X[b]
    for row in np.flatnonzero(np.abs(D).max(axis=1, initial=0.0) < SMALLEST_SPREAD):
        check_spread(D[row], f"'scores' ({measure}: {pair_names[row]})", "differences")
    if callable(test):
        core = _callable_core(test, X[a], X[b], 1 - level["alpha"])
    else:
        core = _pair_cores(test, D, plan, level, executor)
    names = [f"{measure}: {p}" for p in pair_names]
    if core["degenerate"].any():
        warn_degenerate("zero", core["degenerate"] & core["zero"], names)
        warn_degenerate("constant", core["degenerate"] & ~core["zero"], names)
    unbounded = ~core["degenerate"] & (np.isinf(core["low"]) | np.isinf(core["high"]))
    frame = pd.DataFrame({
        "measure": measure,
        "mean_a": X.mean(axis=1)[a],  # per system, not per pair: no (pairs x topics) copies
        "mean_b": X.mean(axis=1)[b],
        "difference": core["mean"],
        "ci_low": core["low"],
        "ci_high": core["high"],
        "statistic": core["statistic"],
        "p-value": core["pvalue"],
        "effect_size": core["effect_size"],
        "wins": core["wins"],
        "ties": core["ties"],
        "losses": core["losses"],
        "n_topics": X.shape[1],
        "estimate": core["estimate"],
        "ci_level": 1 - level["alpha"],
    })
    return frame, unbounded


def _pair_cores(test, D, plan, level, executor):
    """The test's core on every row of ``D``, in chunks of pairs sized from the memory budget
    (on ``executor`` when given; the same numbers either way)."""
    core = REGISTRY[test].core
    if plan is None:
        return map_rows(functools.partial(core, **level), D, rows=chunk_rows(len(D), D.shape[1]), executor=executor)
    return map_rows(functools.partial(core, plan=plan, **level), D, rows=chunk_rows(len(D), plan.n_resamples),
                    executor=executor)


def _corrected(table, measures, correction, correction_scope, alpha):
    """``(p-value corrected, reject)``: per measure, across measures, or uncorrected."""
    pvalues = table["p-value"].to_numpy()
    if correction is None or correction == "none":
        return pvalues, pvalues < alpha
    if correction_scope == "all":
        res = correct_pvalues(pvalues, method=correction, alpha=alpha)
        return res.pvalues, res.reject
    corrected = np.empty(len(table))
    reject = np.zeros(len(table), dtype=bool)
    for measure in measures:
        rows = np.flatnonzero((table["measure"] == measure).to_numpy())
        res = correct_pvalues(pvalues[rows], method=correction, alpha=alpha)
        corrected[rows], reject[rows] = res.pvalues, res.reject
    return corrected, reject
