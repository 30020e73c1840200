"""Meta-analysis over topics: each topic is a separate experiment (Cormack & Lynam 2006, §9).

Per topic ``q`` an effect ``d_q`` (by default ``logit(AP_x) - logit(AP_y)``, "the logarithm of the
ratio of the effectiveness of the two systems") with a standard error ``σ_q`` (from the corpus
bootstrap, later; any source works). Pooled (Cormack & Lynam 2006, §9; pt_docs/methods.md, "Meta-analysis over topics"):

* fixed effect: ``d̄ = Σ d_q σ_q⁻² / Σ σ_q⁻²``, standard error ``(Σ σ_q⁻²)^(-1/2)``;
* random effects: between-topic variance ``τ²`` by DerSimonian & Laird (1986, the default:
  ``τ² = max(0, (Q - (k - 1)) / (Σ w - Σ w² / Σ w))`` with ``w = σ_q⁻²`` and Cochran's
  ``Q = Σ w (d_q - d̄)²``), REML or Paule-Mandel; weights ``1 / (σ_q² + τ²)``; ``I²``; the
  prediction interval of a new topic's effect;
* Stouffer's combined test of the per-topic z-scores: ``Z = Σ (d_q / σ_q) / √k``; Cormack & Lynam's
  one-sided ``p = 1 - Φ(Z)`` is ``alternative="greater"``.

Intervals and p-values use the normal distribution (as statsmodels' ``combine_effects`` with
``use_t=False``), or with ``hksj=True`` the Hartung-Knapp-Sidik-Jonkman t interval for the random
effects. The pooling is :mod:`pyterrier_boot.meta.random_effects`, shared with
:func:`pyterrier_boot.across_collections`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import special, stats

from .._checks import (
    ALTERNATIVES,
    check_choice,
    check_confidence_level,
    check_eps,
    describe,
    is_pandas,
)
from .._deprecation import keyword_only
from .._results import ConfidenceInterval, TupleLike
from ..stats.aggregates import EPS
from .random_effects import TAU2_METHODS, finite_values, pooled_mean, random_effects

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt
    import pandas as pd
    from matplotlib.axes import Axes

    from .._typing import FloatArray


METHODS = ("random", "fixed")

__all__ = ["meta_analysis", "MetaAnalysisResult", "PooledEffect", "logit_difference"]


@dataclass(frozen=True, slots=True)
class PooledEffect(TupleLike):
    """One pooled estimate; unpacks as ``estimate, pvalue``.

    Attributes:
        estimate: pooled effect.
        standard_error: its standard error.
        confidence_interval: normal interval at the result's ``confidence_level``.
        statistic: ``estimate / standard_error``.
        pvalue: p-value of ``effect = 0`` for the result's ``alternative``.
        weights: relative weights of the topics (sum to 1).
    """

    estimate: float
    standard_error: float
    confidence_interval: ConfidenceInterval
    statistic: float
    pvalue: float
    weights: Any
    _tuple_fields: ClassVar[tuple[str, ...]] = ("estimate", "pvalue")


@dataclass(frozen=True, slots=True)
class MetaAnalysisResult(TupleLike):
    """Fixed- and random-effects meta-analysis; unpacks as ``statistic, pvalue`` of ``method``.

    Attributes:
        statistic, pvalue, confidence_interval, standard_error: of the pooled effect of ``method``
            (random effects by default).
        fixed, random: :class:`PooledEffect` of both models.
        tau2: between-topic variance ``τ²`` (by ``tau2_method``, DerSimonian-Laird by default).
        i2: ``I²``, share of the variation of effects due to heterogeneity (with DerSimonian-Laird
            ``max(0, (Q - (k - 1)) / Q)``).
        prediction_interval: of a new topic's effect under the random-effects model.
        q, q_pvalue: Cochran's Q and its chi-squared (``k - 1`` df) p-value (heterogeneity test).
        stouffer_statistic, stouffer_pvalue: Stouffer's ``Z`` and its p-value for ``alternative``.
        effects, standard_errors: per-topic inputs; labels: topic labels (or positions).
        method, alternative, confidence_level, tau2_method, hksj, n_topics: as used.
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    fixed: PooledEffect
    random: PooledEffect
    tau2: float
    i2: float
    q: float
    q_pvalue: float
    stouffer_statistic: float
    stouffer_pvalue: float
    effects: Any
    standard_errors: Any
    labels: tuple
    method: str
    alternative: str
    confidence_level: float
    prediction_interval: ConfidenceInterval | None = None
    tau2_method: str = "DL"
    hksj: bool = False
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    @property
    def n_topics(self) -> int:
        return len(self.effects)

    def to_frame(self) -> pd.DataFrame:
        """Forest-plot table: one row per topic, then ``fixed effect`` and ``random effects``.

        Columns ``label, effect, standard_error, ci_low, ci_high, weight_fixed, weight_random``.
        """
        import pandas as pd

        z = stats.norm.ppf(0.5 + self.confidence_level / 2)
        rows = pd.DataFrame({
            "label": list(self.labels),
            "effect": self.effects,
            "standard_error": self.standard_errors,
            "ci_low": self.effects - z * self.standard_errors,
            "ci_high": self.effects + z * self.standard_errors,
            "weight_fixed": self.fixed.weights,
            "weight_random": self.random.weights,
        })
        pooled = pd.DataFrame([
            {"label": name, "effect": p.estimate, "standard_error": p.standard_error,
             "ci_low": p.confidence_interval.low, "ci_high": p.confidence_interval.high,
             "weight_fixed": 1.0 if name == "fixed effect" else np.nan,
             "weight_random": 1.0 if name == "random effects" else np.nan}
            for name, p in (("fixed effect", self.fixed), ("random effects", self.random))
        ])
        return pd.concat([rows, pooled], ignore_index=True)

    def summary(self) -> pd.DataFrame:
        """One row per model: ``model, estimate, standard_error, ci_low, ci_high, statistic, p-value``,
        and the heterogeneity and Stouffer statistics in ``attrs``."""
        import pandas as pd

        table = pd.DataFrame([
            {"model": name, "estimate": p.estimate, "standard_error": p.standard_error,
             "ci_low": p.confidence_interval.low, "ci_high": p.confidence_interval.high,
             "statistic": p.statistic, "p-value": p.pvalue}
            for name, p in (("fixed", self.fixed), ("random", self.random))
        ])
        table.attrs.update(tau2=self.tau2, i2=self.i2, q=self.q, q_pvalue=self.q_pvalue,
                           stouffer_statistic=self.stouffer_statistic, stouffer_pvalue=self.stouffer_pvalue)
        return table

    @keyword_only("ax")
    def plot(self, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Forest plot (:func:`~pyterrier_boot.meta.plots.plot_forest`)."""
        from .plots import plot_forest

        return plot_forest(self, ax=ax, **kwargs)

    def _repr_html_(self):
        return self.summary()._repr_html_()


def logit_difference(x: npt.ArrayLike, y: npt.ArrayLike, *, eps: float = EPS) -> FloatArray | pd.Series:
    """Per-topic effect ``logit(x) - logit(y)`` with scores clipped to ``[eps, 1 - eps]``.

    Cormack & Lynam's (2006, §9) effect for AP: the log of the odds ratio of the two systems' AP.
    0 and 1 have no logit; they are replaced by ``eps`` and ``1 - eps`` (default Sakai's 1e-5, as
    :func:`pyterrier_boot.logit_mean`).

    Example:
        >>> [round(float(v), 4) for v in logit_difference([0.5, 0.8], [0.25, 0.8])]
        [1.0986, 0.0]
    """
    eps = check_eps(eps)
    out = []
    for value, name in ((x, "x"), (y, "y")):
        arr = np.asarray(value, dtype=float)
        if np.any(np.isnan(arr)):
            raise ValueError(f"{name!r} has NaN scores")
        if np.any(arr < 0) or np.any(arr > 1):
            raise ValueError(f"{name!r} must hold scores in [0, 1] for a logit, got values in "
                             f"[{np.min(arr):g}, {np.max(arr):g}]")
        out.append(special.logit(np.clip(arr, eps, 1 - eps)))
    result = out[0] - out[1]
    if is_pandas(x, "Series"):
        import pandas as pd

        return pd.Series(result, index=x.index, name="logit_difference")  # type: ignore[union-attr, arg-type]
    return result


def _pvalue(z, alternative):
    if alternative == "two-sided":
        return float(2 * stats.norm.sf(abs(z)))
    if alternative == "greater":
        return float(stats.norm.sf(z))
    return float(stats.norm.cdf(z))


def _pooled(effects, variances, tau2, confidence_level, alternative, hksj=False):
    pooled = pooled_mean(effects, variances, tau2, hksj=hksj, confidence_level=confidence_level,
                         alternative=alternative)
    return PooledEffect(float(pooled["estimate"]), float(pooled["standard_error"]),
                        ConfidenceInterval(float(pooled["ci_low"]), float(pooled["ci_high"])),
                        float(pooled["statistic"]), float(pooled["pvalue"]), pooled["weights"])


def _meta_iv(effects, standard_errors, method, alternative, confidence_level, labels):
    check_choice(method, "method", METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    confidence_level = check_confidence_level(confidence_level)
    if labels is None and is_pandas(effects, "Series"):
        labels = list(effects.index)
    if is_pandas(effects, "Series") and is_pandas(standard_errors, "Series"):
        if set(effects.index) != set(standard_errors.index):
            raise ValueError("'effects' and 'standard_errors' cover different topics")
        standard_errors = standard_errors.reindex(effects.index)
    d, se = finite_values(effects, "effects"), finite_values(standard_errors, "standard_errors")
    for arr, name in ((d, "effects"), (se, "standard_errors")):
        if arr.ndim != 1:
            raise ValueError(f"{name!r} must be one value per topic (1-D), got shape {arr.shape}")
    if d.shape != se.shape:
        raise ValueError(f"'effects' and 'standard_errors' must have the same length, got {d.size} and {se.size}")
    if d.size < 2:
        raise ValueError(f"a meta-analysis needs at least 2 topics, got {d.size}")
    labels = list(range(d.size)) if labels is None else list(labels)
    if len(labels) != d.size:
        raise ValueError(f"'labels' must have one label per topic ({d.size}), got {len(labels)}")
    bad = se <= 0
    if bad.any():
        raise ValueError(
            f"'standard_errors' must be positive, but {int(bad.sum())} topic(s) have "
            f"{'0' if not np.any(se < 0) else 'non-positive values'}: {describe([labels[i] for i in np.flatnonzero(bad)])}; "
            "a zero bootstrap SD (e.g. AP = 0 on every image) carries no information about "
            "precision: drop those topics or bound their SD (Cormack & Lynam §7)"
        )
    return d, se, method, alternative, confidence_level, tuple(labels)


def meta_analysis(effects: npt.ArrayLike | pd.Series, standard_errors: npt.ArrayLike, *,
                  method: str = "random", alternative: str = "two-sided",
                  confidence_level: float = 0.95, labels: Sequence[str] | None = None,
                  tau2_method: str = "DL", hksj: bool = False) -> MetaAnalysisResult:
    """Combine per-topic effects: fixed effect, random effects, Stouffer's Z.

    Args:
        effects: per-topic effects ``d_q`` (e.g. :func:`logit_difference` of two systems' AP).
        standard_errors: per-topic standard errors ``σ_q`` (e.g. the SD of ``d_q`` over corpus
            images); all positive.
        method: which pooled effect is reported as ``statistic``/``pvalue``: ``"random"``
            (default; topics are heterogeneous) or ``"fixed"``. Both are always in the result.
        alternative: for the p-values of the pooled effects and of Stouffer's test
            (``"greater"``: first system better; Cormack & Lynam's one-sided p).
        confidence_level: of the pooled intervals (normal).
        labels: topic labels (default: the index of a Series ``effects``, else positions).
        tau2_method: the between-topic variance's estimator: ``"DL"`` (default, DerSimonian &
            Laird), ``"REML"`` or ``"PM"`` (:func:`~pyterrier_boot.meta.random_effects.random_effects`).
        hksj: the Hartung-Knapp-Sidik-Jonkman t interval and test for the random effects (default:
            normal).

    Returns:
        MetaAnalysisResult (``summary()``, ``to_frame()``, ``plot()`` draws the forest plot).

    Example:
        >>> res = meta_analysis([0.1, 0.5, 0.3, -0.2], [0.2, 0.3, 0.1, 0.2236068])
        >>> round(res.fixed.estimate, 4), round(res.random.estimate, 4), round(res.tau2, 4)
        (0.2181, 0.177, 0.0283)
        >>> round(res.i2, 3), round(res.stouffer_statistic, 3)
        (0.444, 2.136)

    References:
        Cormack, G. V. & Lynam, T. R. (2006). Statistical precision of information retrieval
        evaluation. SIGIR, §9. DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical
        trials. Controlled Clinical Trials 7. Stouffer, S. A. et al. (1949). The American Soldier.
    """
    check_choice(tau2_method, "tau2_method", TAU2_METHODS)
    d, se, method, alternative, confidence_level, labels = _meta_iv(
        effects, standard_errors, method, alternative, confidence_level, labels)
    k, v = d.size, se ** 2
    fixed = _pooled(d, v, 0.0, confidence_level, alternative)
    fit = random_effects(d, v, tau2_method=tau2_method, hksj=hksj, confidence_level=confidence_level,
                         alternative=alternative)
    random = _pooled(d, v, fit.tau2, confidence_level, alternative, hksj=hksj)
    z = float((d / se).sum() / np.sqrt(k))
    chosen = random if method == "random" else fixed
    return MetaAnalysisResult(
        statistic=chosen.estimate, pvalue=chosen.pvalue, confidence_interval=chosen.confidence_interval,
        standard_error=chosen.standard_error, fixed=fixed, random=random, tau2=fit.tau2, i2=fit.i2,
        q=fit.q, q_pvalue=fit.q_pvalue, stouffer_statistic=z, stouffer_pvalue=_pvalue(z, alternative),
        effects=d, standard_errors=se, labels=labels, method=method, alternative=alternative,
        confidence_level=confidence_level, prediction_interval=ConfidenceInterval(fit.pi_low, fit.pi_high),
        tau2_method=tau2_method, hksj=bool(hksj),
    )
