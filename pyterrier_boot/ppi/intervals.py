"""Prediction-powered intervals for a mean, on arrays of per-topic scores.

PPI (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023, *Prediction-powered inference*,
Science 382) estimates the mean of a gold-standard score ``Y`` (here: a measure computed with
human qrels) from a few topics where ``Y`` is known and many where only a prediction ``Yhat`` is
(the same measure computed with automatic qrels, e.g. from an LLM judge):

    theta = lam * mean(Yhat on unlabeled topics) + mean(Y - lam * Yhat on labeled topics)

The second term, the *rectifier*, removes the judge's bias; the interval is normal, with the
variance of the two independent means added. ``lam = 1`` is PPI, ``lam = 0`` the classical
interval from the labeled topics alone, and PPI++ (Angelopoulos, Duchi & Zrnic 2024, *PPI++:
Efficient prediction-powered inference*) picks the ``lam`` that minimises the estimated variance,
``Cov(Y, Yhat) / ((1 + n/N) Var(Yhat))``, clipped to [0, 1], so it is never (asymptotically)
wider than the classical interval.

Labeled and unlabeled topics are disjoint samples: the unlabeled scores are those of the topics
*without* human judgments.

These normal intervals rest on many human-judged topics; with the 5 to 50 an IR test collection
can afford they under-cover (and PPI++ most, its ``lam`` being tuned on the same few topics). The
default *small-sample rule*, chosen by a coverage study on TREC collections (``pt_docs/ppi.md``):

* unbiased variances and a Student t quantile whose degrees of freedom are the
  Welch-Satterthwaite ones of the two variance terms (close to ``n - 1`` when the rectifier
  dominates; the classical interval is Student's t interval);
* ``lam=None`` is plain PPI (``lam = 1``) below :data:`CROSSFIT_MIN_TOPICS` human-judged
  topics and PPI++ with a *cross-fitted* ``lam`` from there on: the topics are split into
  :data:`CROSSFIT_FOLDS` folds and each fold's rectifier uses the ``lam`` tuned on the other
  folds, so ``lam`` is not fitted to the topics whose error it corrects (cross-fitting as in
  Zrnic & Candes 2024, *Cross-prediction-powered inference*, PNAS);
* below :data:`FEW_TOPICS` human-judged topics a warning says that no interval reaches its
  nominal coverage.

``small_sample=False`` switches the rule off: z quantiles, divisor-``n`` variances and ``lam``
tuned in-sample, as in the papers and ``ppi_py``.

Two estimands (``estimand=``):

* ``"population"`` (default): the topics are a random sample of a population of topics and the
  target is the population's mean human score (the variance above, as in the papers);
* ``"topics"``: the target is the mean human score over *these* ``n + N`` topics, of which the
  ``n`` human-judged ones are a simple random sample without replacement. The automatic mean over
  all ``n + N`` topics is then a known constant, the estimate is
  ``lam * mean(Yhat on all topics) + mean(Y - lam * Yhat on labeled topics)`` (Cochran's 1977
  difference / regression estimator) and its variance ``(1 - n/(n+N)) var(Y - lam * Yhat) / n``
  carries the finite-population correction; the small-sample quantile is Student's t with
  ``n - 1`` degrees of freedom and PPI++ tunes ``lam = Cov(Y, Yhat) / Var(Yhat)``. With every topic
  human-judged (``N = 0``) the mean is known: an interval of zero width.

See ``pt_docs/ppi.md`` and ``pt_docs/methods.md``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from .._results import ConfidenceInterval, TupleLike
from .._warnings import FitWarning, one_warning_per_kind, report

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import ScoresLike


__all__ = ["PPIResult", "ppi_mean_ci", "classical_mean_ci", "ppi_lambda", "CROSSFIT_MIN_TOPICS", "CROSSFIT_FOLDS",
           "FEW_TOPICS", "ESTIMANDS"]

#: human-judged topics from which ``lam=None`` tunes ``lam`` (cross-fitted PPI++) under the small-sample rule
CROSSFIT_MIN_TOPICS = 30
#: folds of the cross-fitted ``lam``
CROSSFIT_FOLDS = 5
#: below this many human-judged topics no interval measured reaches its nominal coverage: one warning
FEW_TOPICS = 10

ALTERNATIVES = ("two-sided", "larger", "smaller")
#: what an interval is about: the mean over a population of topics, or over the topics at hand
ESTIMANDS = ("population", "topics")


@dataclass(frozen=True, slots=True)
class PPIResult(TupleLike):
    """A confidence interval (and the test it inverts) for a population mean.

    Unpacks as ``statistic, confidence_interval``. For 1-D input the fields are scalars; for 2-D
    input (topics x columns) arrays with one entry per column.

    Attributes:
        statistic: the point estimate (prediction-powered, or the plain mean for the classical
            interval).
        confidence_interval: ``ConfidenceInterval(low, high)``.
        standard_error: the estimated standard error of ``statistic``.
        pvalue: of the test of ``mean == null`` against ``alternative`` (t with ``df``, or z),
            from the same standard error as the interval (so it rejects exactly when the interval
            excludes ``null``).
        lam: the weight of the automatic scores (1 for PPI, tuned for PPI++, the mean of the
            folds' weights when cross-fitted, 0 for classical).
        n_labeled, n_unlabeled: topics with human scores, topics with automatic scores only.
        confidence_level, alternative, null: the options used.
        method: ``"ppi++"`` (in-sample ``lam``), ``"ppi++ cross-fit"``, ``"ppi"`` (lam=1),
            ``"ppi(lam=...)"`` or ``"classical"``.
        df: degrees of freedom of the t quantile (``inf``: normal quantile, ``small_sample=False``).
        estimand: ``"population"`` (the mean over the population the topics are sampled from) or
            ``"topics"`` (the mean over the ``n_labeled + n_unlabeled`` topics at hand, with the
            finite-population correction).
    """

    statistic: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    pvalue: Any
    lam: Any
    n_labeled: int
    n_unlabeled: int
    confidence_level: float
    alternative: str
    null: float
    method: str
    df: Any = np.inf
    estimand: str = "population"
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "confidence_interval")


def _as_scores(values, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name!r} must be an array of numbers") from None
    if array.ndim not in (1, 2):
        raise ValueError(f"{name!r} must be 1-D (topics) or 2-D (topics x columns), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name!r} holds NaN or infinite values")
    return array


def _check_options(confidence_level, alternative):
    if not (isinstance(confidence_level, (float, int)) and 0 < confidence_level < 1):
        raise ValueError(f"'confidence_level' must be a number in (0, 1), got {confidence_level!r}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"'alternative' must be one of {list(ALTERNATIVES)}, got {alternative!r}")


def check_estimand(estimand: object) -> str:
    """``estimand`` itself, or a ValueError naming the argument and the choices."""
    if not isinstance(estimand, str) or estimand not in ESTIMANDS:
        raise ValueError(f"'estimand' must be one of {list(ESTIMANDS)}, got {estimand!r}")
    return estimand


def _check_samples(human, auto_labeled, auto_unlabeled, estimand="population"):
    human = _as_scores(human, "human_scores")
    auto_labeled = _as_scores(auto_labeled, "auto_scores_on_human")
    auto_unlabeled = _as_scores(auto_unlabeled, "auto_scores_unlabeled")
    if human.shape != auto_labeled.shape:
        raise ValueError(f"'human_scores' {human.shape} and 'auto_scores_on_human' {auto_labeled.shape} must have "
                         "the same shape: one automatic score per human-judged topic")
    if auto_unlabeled.ndim != human.ndim or auto_unlabeled.shape[1:] != human.shape[1:]:
        raise ValueError(f"'auto_scores_unlabeled' {auto_unlabeled.shape} must have the columns of 'human_scores' "
                         f"{human.shape}")
    if human.shape[0] < 2:
        raise ValueError(f"'human_scores' has {human.shape[0]} topic(s): a prediction-powered interval needs at "
                         "least 2 human-judged topics (and, being a normal approximation, many more to be accurate)")
    if auto_unlabeled.shape[0] < 2 and estimand == "population":
        raise ValueError(f"'auto_scores_unlabeled' has {auto_unlabeled.shape[0]} topic(s): it needs at least 2 "
                         "topics judged only automatically (with every topic human-judged, use the classical interval, or "
                         "estimand='topics' for the mean over these topics, then known exactly)")
    return human, auto_labeled, auto_unlabeled


def ppi_lambda(human_scores: npt.ArrayLike, auto_scores_on_human: npt.ArrayLike,
               auto_scores_unlabeled: npt.ArrayLike, *, estimand: str = "population") -> Any:
    """The PPI++ weight of the automatic scores for a mean (Angelopoulos, Duchi & Zrnic 2024, Eq. 6).

    ``lam = Cov(Y, Yhat) / ((1 + n/N) Var(Yhat))`` with the covariance over the ``n`` labeled
    topics (divisor ``n``) and the variance over all ``n + N`` automatic scores (divisor
    ``n + N - 1``), clipped to [0, 1] (as ``ppi_py`` does). Constant automatic scores carry no
    information: ``lam = 0``. Columns of 2-D input get their own ``lam``. For
    ``estimand="topics"`` the automatic mean is known, so the ``1 + n/N`` factor is 1 (the
    regression coefficient of Cochran's regression estimator).

    Example:
        >>> import numpy as np
        >>> from pyterrier_boot import ppi_lambda
        >>> y = np.array([0.2, 0.5, 0.4, 0.9]); yhat = y + 0.1
        >>> float(ppi_lambda(y, yhat, np.array([0.3, 0.6, 0.8, 0.4])))  # doctest: +ELLIPSIS
        0.543...
    """
    check_estimand(estimand)
    y, yhat, yhat_u = _check_samples(human_scores, auto_scores_on_human, auto_scores_unlabeled, estimand)
    return _tuned_lambda(y, yhat, yhat_u, estimand)


def _tuned_lambda(y, yhat, yhat_u, estimand="population"):
    n, big_n = y.shape[0], yhat_u.shape[0]
    covariance = ((y - y.mean(0)) * (yhat - yhat.mean(0))).mean(0)
    variance = np.concatenate([yhat, yhat_u]).var(0, ddof=1)
    inflation = 1 + n / big_n if estimand == "population" else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = covariance / (inflation * variance)
    return np.clip(np.where(variance > 0, lam, 0.0), 0.0, 1.0)


def _welch_df(a, b, n, big_n):
    """Welch-Satterthwaite degrees of freedom of ``a + b``, variances of means from ``big_n`` and ``n``
    observations; ``n - 1`` when both are 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (a + b) ** 2 / (a**2 / (big_n - 1) + b**2 / (n - 1))
    return np.where(np.isfinite(df), df, n - 1.0)


def _normal_result(estimate, se, confidence_level, alternative, null, lam, n, big_n, method, df=np.inf,
                   estimand="population"):
    alpha = 1 - confidence_level
    dist = stats.t(df) if np.any(np.isfinite(df)) else stats.norm
    if alternative == "two-sided":
        z = dist.ppf(1 - alpha / 2)
        low, high = estimate - z * se, estimate + z * se
    elif alternative == "larger":
        low, high = estimate - dist.ppf(1 - alpha) * se, np.full_like(estimate, np.inf)
    else:
        low, high = np.full_like(estimate, -np.inf), estimate + dist.ppf(1 - alpha) * se
    # zero standard error: the estimate is the value (p = 1 at the null, 0 elsewhere); an unknown
    # one (NaN) leaves the p-value unknown, as the interval is
    with np.errstate(divide="ignore", invalid="ignore"):
        z_stat = np.where(se > 0, (estimate - null) / se,
                          np.where(np.isnan(se), np.nan,
                                   np.where(estimate == null, 0.0, np.copysign(np.inf, estimate - null))))
    if alternative == "two-sided":
        pvalue = np.minimum(2 * dist.sf(np.abs(z_stat)), 1.0)
    elif alternative == "larger":
        pvalue = dist.sf(z_stat)
    else:
        pvalue = dist.cdf(z_stat)
    scalar = np.ndim(estimate) == 0

    def out(a):
        return float(a) if scalar else np.asarray(a, dtype=float)

    return PPIResult(statistic=out(estimate), confidence_interval=ConfidenceInterval(out(low), out(high)),
                     standard_error=out(se), pvalue=out(pvalue), lam=out(lam), n_labeled=int(n),
                     n_unlabeled=int(big_n), confidence_level=float(confidence_level), alternative=alternative,
                     null=float(null), method=method, df=out(np.broadcast_to(df, np.shape(estimate))),
                     estimand=estimand)


def _parts(y, yhat, yhat_u, per_topic, weight, estimand, ddof):
    """The estimate and the two variance terms (automatic mean, rectifier mean) of either estimand."""
    n, big_n = y.shape[0], yhat_u.shape[0]
    rectifier = y - per_topic * yhat
    if estimand == "population":  # two independent samples of one population
        estimate = weight * yhat_u.mean(0) + rectifier.mean(0)
        return estimate, weight**2 * yhat_u.var(0, ddof=ddof) / big_n, rectifier.var(0, ddof=ddof) / n
    # these n + N topics, the n a simple random sample of them (Cochran 1977): the human mean of the n
    # is known, that of the N others estimated. For one lam this is lam * mean(Yhat on all) + mean(Y - lam * Yhat),
    # whose only variance is the rectifier's, with the finite-population correction
    share = n / (n + big_n)
    others = weight * yhat_u.mean(0) + rectifier.mean(0) if big_n else 0.0
    estimate = share * y.mean(0) + (1 - share) * others
    return estimate, np.zeros_like(estimate), (1 - share) * rectifier.var(0, ddof=ddof) / n


@one_warning_per_kind()
def _asymptotic_result(y, yhat, yhat_u, lam, confidence_level, alternative, null, estimand):
    """The papers' (and ``ppi_py``'s) interval: z quantile, divisor-``n`` variances, in-sample ``lam``."""
    n, big_n = y.shape[0], yhat_u.shape[0]
    weight = _tuned_lambda(y, yhat, yhat_u, estimand) if lam is None else np.full(y.shape[1:], float(lam))
    estimate, auto_part, human_part = _parts(y, yhat, yhat_u, weight, weight, estimand, ddof=0)
    return _normal_result(estimate, np.sqrt(auto_part + human_part), confidence_level, alternative, null, weight,
                          n, big_n, "ppi++" if lam is None else _fixed_name(lam), estimand=estimand)


def ppi_mean_ci(human_scores: npt.ArrayLike, auto_scores_on_human: npt.ArrayLike,
                auto_scores_unlabeled: npt.ArrayLike, *, confidence_level: float = 0.95,
                lam: float | None = None, alternative: str = "two-sided", null: float = 0.0,
                small_sample: bool = True, estimand: str = "population") -> PPIResult:
    """Prediction-powered confidence interval for the mean human score (PPI / PPI++).

    Args:
        human_scores: gold-standard scores ``Y`` on the ``n`` human-judged topics, shape ``(n,)``
            or ``(n, k)`` for ``k`` columns (systems, or differences between systems).
        auto_scores_on_human: the automatic scores ``Yhat`` on the same topics, same shape.
        auto_scores_unlabeled: automatic scores on the ``N`` other topics, ``(N,)`` or ``(N, k)``
            (both sets disjoint random samples of one population of topics).
        confidence_level: of the interval (default 0.95).
        lam: weight of the automatic scores: None (default) chooses it (small sample: plain PPI
            below :data:`CROSSFIT_MIN_TOPICS` human-judged topics, cross-fitted PPI++ from there;
            else PPI++ tuned in-sample, Angelopoulos, Duchi & Zrnic 2024); 1: plain PPI
            (Angelopoulos et al. 2023); 0: the classical interval from the human scores alone.
        alternative: ``"two-sided"``, ``"larger"`` (interval ``[low, inf)``) or ``"smaller"``.
        null: the value the p-value tests (default 0).
        small_sample: True (default): the module docstring's small-sample rule (unbiased variances,
            Welch-Satterthwaite t quantile, cross-fitted ``lam``); False: the papers' asymptotic ones.
        estimand: ``"population"`` (default): the mean over the population the topics are sampled
            from; ``"topics"``: the mean over these ``n + N`` topics, the ``n`` human-judged ones
            a simple random sample of them (finite-population correction; module docstring).

    Returns:
        :class:`PPIResult`. For the population estimand the estimate is
        ``lam * mean(Yhat_u) + mean(Y - lam * Yhat)`` and the standard error
        ``sqrt(lam^2 var(Yhat_u)/N + var(Y - lam * Yhat)/n)``; for the topics estimand
        ``lam * mean(Yhat on all n + N topics) + mean(Y - lam * Yhat)`` and
        ``sqrt((1 - n/(n+N)) var(Y - lam * Yhat)/n)`` (t with ``n - 1`` degrees of freedom). The p-value uses
        the same ``lam``, standard error and quantile as the interval, so the test and interval agree
        (``ppi_py``'s ``ppi_mean_pval`` does not clip a tuned ``lam``: ``pt_docs/ppi.md``).
        Bad shapes, fewer than 2 human-judged topics, fewer than 2 others for the population
        estimand, an unknown ``estimand`` or non-finite scores are a ValueError.

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> truth = rng.uniform(size=200); judge = np.clip(truth + 0.1 + rng.normal(0, 0.05, 200), 0, 1)
        >>> result = ppi_mean_ci(truth[:20], judge[:20], judge[20:])
        >>> bool(result.confidence_interval.low < truth.mean() < result.confidence_interval.high), result.method
        (True, 'ppi')
    """
    _check_ci_options(confidence_level, alternative, small_sample, estimand, lam)
    y, yhat, yhat_u = _check_samples(human_scores, auto_scores_on_human, auto_scores_unlabeled, estimand)
    n, big_n = y.shape[0], yhat_u.shape[0]
    if small_sample and (big_n or estimand == "population"):  # every topic human-judged: the mean is known
        warn_few_topics(n)
    if not small_sample:
        return _asymptotic_result(y, yhat, yhat_u, lam, confidence_level, alternative, null, estimand)
    per_topic, weight, method = _small_sample_lambda(y, yhat, yhat_u, lam, estimand)
    estimate, auto_part, human_part = _parts(y, yhat, yhat_u, per_topic, weight, estimand, ddof=1)
    df = _welch_df(auto_part, human_part, n, big_n) if estimand == "population" else n - 1.0
    return _normal_result(estimate, np.sqrt(auto_part + human_part), confidence_level, alternative, null, weight, n,
                          big_n, method, df, estimand)


def _check_ci_options(confidence_level, alternative, small_sample, estimand, lam) -> None:
    """ValueError/TypeError naming the option for a bad option of :func:`ppi_mean_ci`."""
    _check_options(confidence_level, alternative)
    if not isinstance(small_sample, (bool, np.bool_)):
        raise TypeError(f"'small_sample' must be True or False, got {small_sample!r}")
    check_estimand(estimand)
    if lam is not None and (isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating, np.integer))
                            or not 0 <= lam <= 1):
        raise ValueError(f"'lam' must be None (chosen) or a number in [0, 1], got {lam!r}")


def _small_sample_lambda(y, yhat, yhat_u, lam, estimand):
    """``(per-topic lam, lam, method)`` of the small-sample rule: cross-fitted PPI++ from
    :data:`CROSSFIT_MIN_TOPICS` human-judged topics when ``lam`` is None, else the fixed ``lam`` (1 below)."""
    if lam is None and y.shape[0] >= CROSSFIT_MIN_TOPICS:
        per_topic = _crossfit_lambda(y, yhat, yhat_u, estimand)
        return per_topic, per_topic.mean(0), "ppi++ cross-fit"
    weight = np.full(y.shape[1:], 1.0 if lam is None else float(lam))
    return weight, weight, _fixed_name(1.0 if lam is None else lam)


def warn_few_topics(n: int) -> None:
    """The one warning below :data:`FEW_TOPICS` human-judged topics (pooled per public call)."""
    if n < FEW_TOPICS:
        report(FitWarning, f"only {{cases}} human-judged topic(s): below {FEW_TOPICS}, no interval keeps its nominal "
               "coverage in our measurements on TREC collections (95% intervals: PPI 92-95%, human-only 91-95% with "
               "4-10 topics); judge more topics, chosen at random (see the ppi page of the docs)", [n])


def _fixed_name(lam) -> str:
    return "ppi" if lam == 1 else "classical" if lam == 0 else f"ppi(lam={float(lam):g})"


def _crossfit_lambda(y, yhat, yhat_u, estimand="population") -> np.ndarray:
    """Per-topic ``lam``: topic ``i`` in fold ``i mod CROSSFIT_FOLDS`` gets the PPI++ ``lam`` tuned on the
    other folds' human-judged topics (and every automatic-only topic)."""
    folds = np.arange(y.shape[0]) % CROSSFIT_FOLDS
    per_topic = np.empty_like(y)
    for fold in range(CROSSFIT_FOLDS):
        held = folds == fold
        per_topic[held] = _tuned_lambda(y[~held], yhat[~held], yhat_u, estimand)
    return per_topic


def classical_mean_ci(scores: ScoresLike, *, confidence_level: float = 0.95, alternative: str = "two-sided",
                      null: float = 0.0, small_sample: bool = True,
                      population_size: int | None = None) -> PPIResult:
    """The classical interval for a mean: Student's ``mean +- t(n-1) * s / sqrt(n)`` (``s`` with
    divisor ``n - 1``); with ``small_sample=False`` the normal ``mean +- z * sd / sqrt(n)`` (divisor
    ``n``) of the PPI papers and ``ppi_py``.

    The ``lam = 0`` case of :func:`ppi_mean_ci`, and the comparison the PPI papers use: applied to
    the human scores it is the *human-only* interval; applied to the automatic scores of every
    topic the *automatic-only* interval, which is narrow but centred on the judge's biased mean.

    ``population_size``: None (default) for the mean of an infinite population of topics; the
    number ``N`` of topics the scores are a simple random sample (without replacement) of, for
    the mean over those ``N`` topics (estimand ``"topics"``): the variance takes the
    finite-population correction ``1 - n/N`` (Cochran 1977, Sec. 2.6), zero when ``n = N``.

    Example:
        >>> from pyterrier_boot import classical_mean_ci
        >>> classical_mean_ci([0.2, 0.4, 0.6]).statistic  # doctest: +ELLIPSIS
        0.4...
    """
    _check_options(confidence_level, alternative)
    if not isinstance(small_sample, (bool, np.bool_)):
        raise TypeError(f"'small_sample' must be True or False, got {small_sample!r}")
    y = _as_scores(scores, "scores")
    if y.shape[0] < 2:
        raise ValueError(f"'scores' has {y.shape[0]} topic(s): an interval needs at least 2")
    n = y.shape[0]
    if population_size is not None and (isinstance(population_size, bool) or
                                        not isinstance(population_size, (int, np.integer)) or population_size < n):
        raise ValueError(f"'population_size' must be None or an integer of at least the {n} scores' topics, got "
                         f"{population_size!r}")
    fpc = 1.0 if population_size is None else 1 - n / population_size
    ddof, df = (1, n - 1.0) if small_sample else (0, np.inf)
    return _normal_result(y.mean(0), np.sqrt(fpc) * y.std(0, ddof=ddof) / np.sqrt(n), confidence_level, alternative,
                          null, np.zeros(y.shape[1:]), n, 0 if population_size is None else population_size - n,
                          "classical", df, "population" if population_size is None else "topics")
