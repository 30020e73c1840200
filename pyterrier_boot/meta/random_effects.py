"""Random-effects meta-analysis on numpy arrays: one core for every door that pools effects.

Study ``i`` (a topic, a test collection) gives an effect ``y_i`` with a known sampling variance
``v_i``; the model is ``y_i ~ N(θ, v_i + τ²)`` (``τ² = 0``: the fixed-effect model). The core
works on arrays whose last axis holds the ``k`` studies, so many meta-analyses (one per system, or
per simulated replication) are fitted at once:

* ``τ²`` by DerSimonian & Laird (1986), restricted maximum likelihood (REML, Viechtbauer 2005:
  Fisher scoring, as R's metafor) or Paule & Mandel (1982), all truncated at 0;
* the pooled ``θ̂ = Σ w_i y_i / Σ w_i`` with ``w_i = 1 / (v_i + τ²)``;
* its interval: the Wald interval ``θ̂ ± z SE``, ``SE² = 1 / Σ w_i``, or the
  Hartung-Knapp-Sidik-Jonkman (HKSJ) interval ``θ̂ ± t_{k-1} sqrt(q / Σ w_i)`` with
  ``q = Σ w_i (y_i - θ̂)² / (k - 1)`` (IntHout, Ioannidis & Borm 2014: it keeps its level with
  few studies where the Wald interval does not);
* the prediction interval of a new study's effect: by default from the Q-profile confidence
  distribution of ``τ²`` (the generalised ``Q`` at the true ``τ²`` is chi-squared with ``k - 1``
  degrees of freedom, Viechtbauer 2007; a new study's effect is a mixture over that distribution of
  ``N(θ̂(τ²), τ² + 1/Σ w(τ²))``, as Nagashima, Noma & Furukawa 2019 propose), which keeps its level
  where plug-in intervals do not: with few studies and little heterogeneity ``τ²`` is often
  estimated 0; or the plug-in ``θ̂ ± t_{k-2} sqrt(τ² + SE²)`` with the Wald ``SE`` (``"higgins"``:
  Higgins, Thompson & Spiegelhalter 2009; metafor's ``predict(pi.type="riley")`` after
  ``test="z"``; 3 studies or more), or ``θ̂ ± t_{k-1} sqrt(τ² + SE²)`` with the HKSJ ``SE``
  (``"hksj"``: metafor's ``predict()`` after ``test="knha"``). Their coverage was measured
  (``pt_docs/seeds_and_collections.md``);
* heterogeneity: Cochran's ``Q = Σ v_i⁻¹ (y_i - ȳ_FE)²`` with its chi-squared test, and
  ``I² = τ² / (τ² + s²)``, the share of the variance of an effect that is between studies, with
  the typical within-study variance ``s² = (k - 1) Σ v_i⁻¹ / ((Σ v_i⁻¹)² - Σ v_i⁻²)`` (Higgins &
  Thompson 2002, as metafor); with DerSimonian-Laird's ``τ²`` it is ``max(0, (Q - (k - 1)) / Q)``.

The figures equal metafor's ``rma(yi, vi, method=..., test="knha")`` and ``predict()`` and
statsmodels' ``combine_effects`` where they overlap (tests/test_meta_random_effects.py; the R
script beside it). Formulas: ``pt_docs/methods.md``, "Meta-analysis".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special, stats

from .._checks import ALTERNATIVES, check_choice, check_confidence_level
from .._quantiles import critical_value
from .._warnings import DegenerateWarning, warn

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray

__all__ = ["random_effects", "RandomEffects", "tau2_estimate", "pooled_mean", "p_value", "finite_values",
           "TAU2_METHODS", "PREDICTIONS"]

#: estimators of the between-study variance ``τ²``
TAU2_METHODS = ("REML", "DL", "PM")
#: prediction intervals: from tau2's Q-profile confidence distribution, Higgins et al.'s ``t_{k-2}``
#: with the Wald SE, or ``t_{k-1}`` with the HKSJ SE
PREDICTIONS = ("q-profile", "higgins", "hksj")
_TOLERANCE = 1e-12
_GRID = 500  # quantiles of tau2's Q-profile confidence distribution in the prediction interval
_MAX_ITERATIONS = 1000


def _dl(y: FloatArray, v: FloatArray) -> FloatArray:
    """DerSimonian-Laird: ``max(0, (Q - (k - 1)) / (Σ w - Σ w² / Σ w))``, ``w = 1 / v``."""
    w = 1 / v
    total = w.sum(axis=-1)
    q = _cochran_q(y, v)
    c = total - (w ** 2).sum(axis=-1) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        tau2 = (q - (y.shape[-1] - 1)) / c
    return np.where(c > 0, np.maximum(tau2, 0.0), 0.0)


def _cochran_q(y: FloatArray, v: FloatArray) -> FloatArray:
    w = 1 / v
    mean = (w * y).sum(axis=-1, keepdims=True) / w.sum(axis=-1, keepdims=True)
    return (w * (y - mean) ** 2).sum(axis=-1)


def _reml_parts(y: FloatArray, v: FloatArray, tau2: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The restricted log-likelihood (up to a constant), its score and Fisher information in ``τ²``:
    ``-(Σ log(v + τ²) + log Σ w + Σ w (y - θ̂)²) / 2``; ``(Σ w²(y - θ̂)² - tr P) / 2``;
    ``tr P² / 2``, with ``w = 1 / (v + τ²)`` and ``P = W - w wᵀ / Σ w``."""
    w = 1 / (v + tau2[..., None])
    total = w.sum(axis=-1)
    theta = (w * y).sum(axis=-1) / total
    residual = (y - theta[..., None]) ** 2
    w2, w3 = (w ** 2).sum(axis=-1), (w ** 3).sum(axis=-1)
    loglik = -(np.log(v + tau2[..., None]).sum(axis=-1) + np.log(total) + (w * residual).sum(axis=-1)) / 2
    score = ((w ** 2 * residual).sum(axis=-1) - (total - w2 / total)) / 2
    return loglik, score, (w2 - 2 * w3 / total + (w2 / total) ** 2) / 2


def _reml(y: FloatArray, v: FloatArray) -> FloatArray:
    """REML (Viechtbauer 2005): 0 where the restricted likelihood decreases from ``τ² = 0``, else
    the root of its score by Fisher scoring from the DerSimonian-Laird value, kept inside a bracket
    of the root (a step that leaves it, or is not half the previous one, is replaced by bisection:
    plain Fisher scoring can oscillate about the root), until ``τ²`` is known to 1e-12 (relative)."""
    _, at_zero, _ = _reml_parts(y, v, np.zeros(y.shape[:-1]))
    active = at_zero > 0
    low = np.zeros(y.shape[:-1])
    high = np.maximum(y.var(axis=-1, ddof=1), 1e-300)
    for _ in range(200):  # the score is negative for large tau2: double until it is
        up = active & (_reml_parts(y, v, high)[1] > 0)
        if not up.any():
            break
        high = np.where(up, 2 * high, high)
    tau2 = np.where(active, np.clip(_dl(y, v), low, high), 0.0)
    last = high - low
    for _ in range(_MAX_ITERATIONS):
        _, score, information = _reml_parts(y, v, tau2)
        low, high = np.where(score > 0, tau2, low), np.where(score < 0, tau2, high)
        new = tau2 + score / information
        # bisect where a step leaves the bracket or shrinks less than by half (a slow oscillation)
        new = np.where((new > low) & (new < high) & (np.abs(new - tau2) < last / 2), new, (low + high) / 2)
        last = np.abs(new - tau2)
        done = (np.abs(new - tau2) <= _TOLERANCE * np.maximum(1.0, new)) | (score == 0)
        active &= ~done
        tau2 = np.where(active, new, tau2)
        if not active.any():
            return tau2
    raise RuntimeError("REML did not converge in 1000 Fisher scoring steps")  # pragma: no cover - not seen


def _q_profile(y: FloatArray, v: FloatArray, target: FloatArray, tolerance: float = _TOLERANCE) -> FloatArray:
    """The ``τ²`` at which the generalised ``Q(τ²) = Σ w (y - θ̂)²`` equals ``target`` (0 where
    ``Q(0) <= target``). ``Q`` decreases in ``τ²``, with slope ``-Σ w² (y - θ̂)²``, and is at most
    ``target`` at ``Σ (y - ȳ)² / target``: Newton steps from 0, kept inside that bracket (a step
    that leaves it is replaced by bisection). ``y``, ``v``: ``[..., k]``; ``target`` broadcasts
    against ``[...]``."""
    spread = ((y - y.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    low = np.zeros(np.broadcast_shapes(y.shape[:-1], np.shape(target)))
    high = np.maximum(spread / np.maximum(target, 1e-300), 1e-300) + low
    tau2, active = low.copy(), np.ones(low.shape, dtype=bool)
    for step in range(200):
        w = 1 / (v + tau2[..., None])
        residual = (y - ((w * y).sum(axis=-1) / w.sum(axis=-1))[..., None]) ** 2
        excess = (w * residual).sum(axis=-1) - target
        if step == 0:
            active = excess > 0  # Q(0) <= target: tau2 = 0
        low, high = np.where(excess > 0, tau2, low), np.where(excess < 0, tau2, high)
        new = tau2 + excess / np.maximum((w ** 2 * residual).sum(axis=-1), 1e-300)
        new = np.where((new > low) & (new < high), new, (low + high) / 2)
        active &= np.abs(new - tau2) > tolerance * np.maximum(new, 1e-300)
        tau2 = np.where(active, new, tau2)
        if not active.any():
            break
    return tau2


def _pm(y: FloatArray, v: FloatArray) -> FloatArray:
    """Paule-Mandel: the ``τ²`` at which the generalised ``Q`` equals its expectation ``k - 1``."""
    return _q_profile(y, v, np.asarray(y.shape[-1] - 1.0))


_ESTIMATORS = {"REML": _reml, "DL": _dl, "PM": _pm}


def tau2_estimate(effects: npt.ArrayLike, variances: npt.ArrayLike, method: str = "REML") -> FloatArray:
    """The between-study variance ``τ²`` of each row (studies on the last axis) by ``method``
    (``"REML"``, ``"DL"`` or ``"PM"``), truncated at 0.

    Example:
        >>> round(float(tau2_estimate([0.1, 0.5, 0.3, -0.2], [0.04, 0.09, 0.01, 0.05], "DL")), 4)
        0.0283
    """
    check_choice(method, "tau2_method", TAU2_METHODS)
    y, v = _checked(effects, variances)
    return _ESTIMATORS[method](y, v)


@dataclass(frozen=True)
class RandomEffects:
    """Random-effects meta-analyses, one per row of the effects (scalars for one meta-analysis).

    Attributes:
        estimate, standard_error: pooled ``θ̂`` and its standard error (the HKSJ one with ``hksj``).
        ci_low, ci_high: its interval at ``confidence_level``; df: the degrees of freedom of its
            t distribution (``k - 1`` with ``hksj``, infinite for the normal one).
        statistic, pvalue: ``θ̂ / SE`` and the p-value of ``θ = 0`` for ``alternative``.
        pi_low, pi_high: prediction interval of a new study's effect (``prediction``; NaN for
            Higgins et al.'s with fewer than 3 studies, and with ``prediction=None``).
        tau2: between-study variance; q, q_pvalue: Cochran's Q and its chi-squared p-value
            (``k - 1`` df); i2: ``I²`` (from ``tau2``); k: number of studies.
        weights: relative weights of the studies (rows sum to 1).
        tau2_method, hksj, prediction, confidence_level, alternative: as used.
    """

    estimate: Any
    standard_error: Any
    ci_low: Any
    ci_high: Any
    df: Any
    statistic: Any
    pvalue: Any
    pi_low: Any
    pi_high: Any
    tau2: Any
    q: Any
    q_pvalue: Any
    i2: Any
    k: int
    weights: Any
    tau2_method: str
    hksj: bool
    confidence_level: float
    alternative: str
    prediction: str | None = "q-profile"


def pooled_mean(effects: FloatArray, variances: FloatArray, tau2: npt.ArrayLike, *, hksj: bool,
                confidence_level: float, alternative: str = "two-sided") -> dict[str, Any]:
    """The inverse-variance pooled mean given ``τ²`` (0: fixed effect): ``estimate,
    standard_error, ci_low, ci_high, df, statistic, pvalue, weights`` (arrays over rows)."""
    y, v = np.asarray(effects, dtype=float), np.asarray(variances, dtype=float)
    k = y.shape[-1]
    w = 1 / (v + np.asarray(tau2, dtype=float)[..., None])
    total = w.sum(axis=-1)
    estimate = (w * y).sum(axis=-1) / total
    if hksj:
        scale = (w * (y - estimate[..., None]) ** 2).sum(axis=-1) / (k - 1)
        se, df = np.sqrt(scale / total), float(k - 1)
    else:
        se, df = np.sqrt(1 / total), np.inf
    half = critical_value(df, confidence_level) * se
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(se > 0, estimate / se, np.sign(estimate) * np.inf)
    return {"estimate": estimate, "standard_error": se, "ci_low": estimate - half, "ci_high": estimate + half,
            "df": df, "statistic": statistic, "pvalue": p_value(statistic, df, alternative),
            "weights": w / total[..., None]}


def _i2(v: FloatArray, tau2: FloatArray) -> FloatArray:
    """``τ² / (τ² + s²)`` with the typical within-study variance ``s²`` (0 when ``τ² = 0``)."""
    w = 1 / v
    total = w.sum(axis=-1)
    typical = (v.shape[-1] - 1) * total / (total ** 2 - (w ** 2).sum(axis=-1))
    return np.where(tau2 > 0, tau2 / (tau2 + typical), 0.0)


def p_value(statistic: npt.ArrayLike, df: npt.ArrayLike, alternative: str = "two-sided") -> FloatArray:
    """The p-value of a t statistic with ``df`` degrees of freedom (normal where infinite) for
    ``alternative``."""
    statistic, df = np.asarray(statistic, dtype=float), np.asarray(df, dtype=float)
    finite = np.where(np.isinf(df), 1.0, df)
    if alternative == "greater":
        return np.where(np.isinf(df), stats.norm.sf(statistic), stats.t.sf(statistic, finite))
    if alternative == "less":
        return np.where(np.isinf(df), stats.norm.cdf(statistic), stats.t.cdf(statistic, finite))
    tail = np.where(np.isinf(df), stats.norm.sf(np.abs(statistic)), stats.t.sf(np.abs(statistic), finite))
    return np.minimum(1.0, 2 * tail)


def finite_values(value: Any, name: str) -> FloatArray:
    """``value`` as a float array, or a TypeError (not numbers) or ValueError (not finite) naming ``name``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name!r} must hold numbers") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name!r} must be finite (no NaN or infinite values)")
    return arr


def _checked(effects, variances):
    y, v = finite_values(effects, "effects"), finite_values(variances, "variances")
    for arr, name in ((y, "effects"), (v, "variances")):
        if arr.ndim == 0:
            raise ValueError(f"{name!r} must hold one value per study, got a scalar")
    if y.shape != v.shape:
        raise ValueError(f"'effects' and 'variances' must have the same shape, got {y.shape} and {v.shape}")
    if y.shape[-1] < 2:
        raise ValueError(f"a meta-analysis needs at least 2 studies, got {y.shape[-1]}")
    if np.any(v <= 0):
        raise ValueError("'variances' must be positive: a study with no sampling variance carries no weight to pool")
    return y, v


def random_effects(effects: npt.ArrayLike, variances: npt.ArrayLike, *, tau2_method: str = "REML",
                   hksj: bool = True, confidence_level: float = 0.95, alternative: str = "two-sided",
                   prediction: str | None = "q-profile") -> RandomEffects:
    """Random-effects meta-analysis of ``k`` studies, or of each row of a 2-D array at once.

    Args:
        effects: the studies' effects ``y_i`` (last axis: studies).
        variances: their sampling variances ``v_i`` (squared standard errors), all positive.
        tau2_method: ``"REML"`` (default, as metafor), ``"DL"`` (DerSimonian-Laird) or ``"PM"``
            (Paule-Mandel, statsmodels' default).
        hksj: the Hartung-Knapp-Sidik-Jonkman interval and test (default; metafor's
            ``test="knha"``), else the normal (Wald) ones.
        confidence_level: of the interval and the prediction interval.
        alternative: of the p-value (``"two-sided"``, ``"greater"``, ``"less"``).
        prediction: the prediction interval: ``"q-profile"`` (default; ``τ²``'s confidence
            distribution), ``"higgins"`` (``t_{k-2}``, Wald standard error: 3 studies or more,
            else NaN with a warning), ``"hksj"``
            (``t_{k-1}``, HKSJ standard error; metafor's default) or None (none: NaN).

    Returns:
        :class:`RandomEffects` (scalars for 1-D input).

    Example:
        >>> res = random_effects([0.1, 0.5, 0.3, -0.2], [0.04, 0.09, 0.01, 0.05])
        >>> round(float(res.estimate), 4), round(float(res.tau2), 4), round(float(res.ci_low), 4)
        (0.1782, 0.0259, -0.2353)

    References:
        Viechtbauer, W. (2005). Bias and efficiency of meta-analytic variance estimators in the
        random-effects model. J. Educ. Behav. Stat. 30(3). IntHout, J., Ioannidis, J. P. A. &
        Borm, G. F. (2014). The Hartung-Knapp-Sidik-Jonkman method for random effects
        meta-analysis is straightforward and considerably outperforms the standard
        DerSimonian-Laird method. BMC Med. Res. Methodol. 14. Higgins, J. P. T., Thompson, S. G. &
        Spiegelhalter, D. J. (2009). A re-evaluation of random-effects meta-analysis. JRSS-A 172.
    """
    check_choice(tau2_method, "tau2_method", TAU2_METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    if prediction is not None:
        check_choice(prediction, "prediction", PREDICTIONS)
    if not isinstance(hksj, (bool, np.bool_)):
        raise TypeError(f"'hksj' must be True or False, got {hksj!r}")
    confidence_level = check_confidence_level(confidence_level)
    y, v = _checked(effects, variances)
    k = y.shape[-1]
    if prediction == "higgins" and k < 3:
        warn(DegenerateWarning(f"the 'higgins' prediction interval is t with k - 2 degrees of freedom: with {k} "
                               "studies it is undefined (NaN); use 'q-profile' (the default) or 'hksj' (t with k - 1)"))
    tau2 = _ESTIMATORS[tau2_method](y, v)
    pooled = pooled_mean(y, v, tau2, hksj=bool(hksj), confidence_level=confidence_level, alternative=alternative)
    q = _cochran_q(y, v)
    out = {**pooled, **_prediction(y, v, tau2, prediction, confidence_level), "tau2": tau2, "q": q,
           "q_pvalue": stats.chi2.sf(q, k - 1), "i2": _i2(v, tau2)}
    if y.ndim == 1:
        out = {key: value if key == "weights" else float(value) for key, value in out.items()}
    return RandomEffects(**out, k=k, tau2_method=tau2_method, hksj=bool(hksj), confidence_level=confidence_level,
                         alternative=alternative, prediction=prediction)


def _prediction(y: FloatArray, v: FloatArray, tau2: FloatArray, kind: str | None, confidence_level: float) -> dict:
    """``pi_low, pi_high`` of ``kind``: ``θ̂ ± c sqrt(τ² + SE²)`` with the standard error of its
    interval (``"higgins"``, ``"hksj"``), or the ends of the Q-profile predictive distribution."""
    if kind is None:
        return {"pi_low": np.full(y.shape[:-1], np.nan), "pi_high": np.full(y.shape[:-1], np.nan)}
    if kind == "q-profile":
        return _q_profile_prediction(y, v, confidence_level)
    k = y.shape[-1]
    pooled = pooled_mean(y, v, tau2, hksj=kind == "hksj", confidence_level=confidence_level)
    df = k - 1 if kind == "hksj" else k - 2
    half = (critical_value(df, confidence_level) if df >= 1 else np.nan) * np.sqrt(tau2 + pooled["standard_error"] ** 2)
    return {"pi_low": pooled["estimate"] - half, "pi_high": pooled["estimate"] + half}


def _q_profile_prediction(y: FloatArray, v: FloatArray, confidence_level: float) -> dict:
    """The prediction interval from ``τ²``'s Q-profile confidence distribution: the generalised
    ``Q(τ²)`` of the true ``τ²`` is chi-squared with ``k - 1`` degrees of freedom (Viechtbauer
    2007), so the ``τ²_j`` solving ``Q(τ²_j) = u_j``, ``u_j`` the ``(j - 1/2)/J`` quantiles of that
    chi-squared, are ``J`` equally likely values of ``τ²`` (Nagashima, Noma & Furukawa 2019 draw
    them at random); a new study's effect is then ``N(θ̂(τ²_j), τ²_j + 1 / Σ w(τ²_j))`` for each, and
    the interval holds the central ``confidence_level`` of that mixture."""
    k, tail = y.shape[-1], (1 - confidence_level) / 2
    u = stats.chi2.ppf((np.arange(_GRID) + 0.5) / _GRID, k - 1)
    tau2 = _q_profile(y[..., None, :], v[..., None, :], u, tolerance=1e-10)  # [..., J]
    w = 1 / (v[..., None, :] + tau2[..., None])
    total = w.sum(axis=-1)
    theta, scale = (w * y[..., None, :]).sum(axis=-1) / total, np.sqrt(tau2 + 1 / total)
    ends = []
    for p in (tail, 1 - tail):
        low, high = (theta - 10 * scale).min(axis=-1), (theta + 10 * scale).max(axis=-1)
        for _ in range(60):
            middle = (low + high) / 2
            below = special.ndtr((middle[..., None] - theta) / scale).mean(axis=-1) < p
            low, high = np.where(below, middle, low), np.where(below, high, middle)
        ends.append((low + high) / 2)
    return {"pi_low": ends[0], "pi_high": ends[1]}


