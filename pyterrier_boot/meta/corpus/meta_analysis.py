"""Meta-analysis over topics with per-topic precision from the corpus bootstrap (Cormack & Lynam §9).

Cormack & Lynam regard each topic as a separate experiment: its effect ``d_q`` (by default
``logit(AP_x) - logit(AP_y)``, "the logarithm of the ratio of the effectiveness of the two
systems") is measured with a standard error ``σ_q`` due to the corpus, and the topics are
combined by meta-analysis instead of a t-test over topics. They note that the most powerful
estimate of ``σ_q`` accounts for the correlation of the two systems' results by bootstrapping the
difference itself: on each corpus image compute both scores and hence ``d_q``; ``σ_q`` is the SD of
those image values. That is what :func:`corpus_topic_effects` does; :func:`corpus_meta_analysis`
feeds the effects to :func:`~pyterrier_boot.meta_analysis` (fixed effect, DerSimonian-Laird
random effects, ``τ²``, ``I²``, Stouffer's combined test) and the result's ``plot()`` draws the
forest plot.

Choices where the paper is vague:

* ``d_q`` is the effect on the full corpus; ``σ_q`` the SD (``ddof=1``) of the image effects.
* Logit effects clip scores to ``[eps, 1 - eps]`` (``eps = 1e-5``, as L-MAP). A topic where one
  system scores 0 on the full corpus gets an effect near ``±11.5`` on the logit scale; if it also
  scores 0 on every image its SD can be small and the topic dominates: compare with
  ``effect="difference"`` or a larger ``eps`` (Cormack & Lynam's small-R correction addresses the
  same problem for intervals).
* A topic whose effect is the same on every image (e.g. both systems score 0 everywhere) has
  ``σ_q = 0``: no information about precision. ``degenerate="drop"`` (default) leaves it out with an
  :class:`~pyterrier_boot.InputWarning` naming it; ``"raise"`` refuses.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..._checks import check_choice, describe
from ..._warnings import InputWarning
from ...stats.aggregates import EPS
from ..meta_analysis import logit_difference, meta_analysis
from ._inputs import check_corpus_result, constant_rows, one_measure, one_system

if TYPE_CHECKING:

    import pandas as pd

    from ..._typing import MeasureLike
    from ...corpus.result import CorpusBootstrapResult
    from ..meta_analysis import MetaAnalysisResult


__all__ = ["corpus_meta_analysis", "corpus_topic_effects", "EFFECTS"]

EFFECTS = ("logit", "difference")
DEGENERATE = ("drop", "raise")


def _effect_function(effect, eps):
    if callable(effect):
        return effect, getattr(effect, "__name__", "effect")
    check_choice(effect, "effect", EFFECTS)
    if effect == "difference":
        return (lambda x, y: x - y), "difference"
    return (lambda x, y: logit_difference(x, y, eps=eps)), "logit"


def corpus_topic_effects(result: CorpusBootstrapResult, a: str | int, b: str | int, *,
                         measure: MeasureLike | None = None, effect: str = "logit", eps: float = EPS) -> tuple[pd.Series, pd.Series]:
    """Per-topic effects of ``a`` over ``b`` on the full corpus and their SDs over images.

    Args:
        result: a :class:`~pyterrier_boot.CorpusBootstrapResult`.
        a, b: system names.
        measure: measure label (optional when the result has one measure).
        effect: ``"logit"`` (``logit(x_a) - logit(x_b)``, scores clipped to ``[eps, 1 - eps]``;
            measures in [0, 1] only), ``"difference"`` (``x_a - x_b``) or a vectorised callable
            ``f(x_a, x_b)`` returning an array of the same shape.
        eps: the logit's clipping.

    Returns:
        ``(effects, standard_errors)``: two pandas Series indexed by topic.

    Example:
        >>> import numpy as np
        >>> from pyterrier_boot.corpus.result import CorpusBootstrapResult
        >>> images = np.array([[[[0.5], [0.2]], [[0.25], [0.2]]],
        ...                    [[[0.6], [0.3]], [[0.2], [0.25]]]])     # [image, system, topic, measure]
        >>> res = CorpusBootstrapResult(images.mean(axis=0), images, images, ("x", "y"), ("1", "2"), ("AP",),
        ...     "poisson", None, np.zeros(2, np.uint64), np.array([]), np.full((2, 1), 3), np.ones((2, 2, 1), int))
        >>> d, se = corpus_topic_effects(res, "x", "y", effect="difference")
        >>> d.round(3).tolist(), se.round(4).tolist()
        ([0.325, 0.025], [0.1061, 0.0354])
    """
    import pandas as pd

    result = check_corpus_result(result)
    m = one_measure(result, measure)
    ia, ib = one_system(result, a, "a"), one_system(result, b, "b")
    if ia == ib:
        raise ValueError(f"'a' and 'b' are the same system ({a!r}): an effect needs two systems")
    if not callable(effect):
        check_choice(effect, "effect", EFFECTS)
    if effect == "logit" and result.unit and not result.unit[m]:
        raise ValueError(f"effect='logit' needs scores in [0, 1], and {result.measures[m]!r} is not known to lie "
                         "in [0, 1]: use effect='difference'")
    function, name = _effect_function(effect, eps)
    full = function(result.statistic[ia, :, m], result.statistic[ib, :, m])
    images = function(result.bootstrap_distribution[:, ia, :, m], result.bootstrap_distribution[:, ib, :, m])
    full, images = np.asarray(full, dtype=float), np.asarray(images, dtype=float)
    Q = len(result.qids)
    if full.shape != (Q,) or images.shape != (result.n_images, Q):
        raise ValueError(f"'effect' must return an array shaped like its inputs, got {full.shape} for ({Q},)")
    if not (np.all(np.isfinite(full)) and np.all(np.isfinite(images))):
        raise ValueError("'effect' returned NaN or infinite values")
    se = np.where(constant_rows(images), 0.0, images.std(axis=0, ddof=1))
    index = pd.Index(list(result.qids), name="qid")
    return pd.Series(full, index=index, name=name), pd.Series(se, index=index, name="standard_error")


def corpus_meta_analysis(result: CorpusBootstrapResult, a: str | int, b: str | int, *,
                         measure: MeasureLike | None = None, effect: str = "logit",
                         eps: float = EPS, degenerate: str = "drop", method: str = "random",
                         alternative: str = "two-sided", confidence_level: float = 0.95) -> MetaAnalysisResult:
    """Meta-analysis over topics of ``a`` against ``b``, with per-topic SDs from the corpus bootstrap.

    Args:
        result: a :class:`~pyterrier_boot.CorpusBootstrapResult`.
        a, b: system names (effects are ``a`` over ``b``).
        measure, effect, eps: see :func:`corpus_topic_effects` (default ``logit(AP_a) -
            logit(AP_b)``-style effects of ``measure``).
        degenerate: ``"drop"`` topics whose effect is the same on every image (SD 0), with an
            :class:`~pyterrier_boot.InputWarning`, or ``"raise"``.
        method, alternative, confidence_level: of :func:`~pyterrier_boot.meta_analysis`
            (``alternative="greater"`` is Cormack & Lynam's one-sided combined p).

    Returns:
        :class:`~pyterrier_boot.MetaAnalysisResult` labelled by topic (``plot()``: forest plot).

    Example:
        >>> res = CorpusBootstrap(qrels, n_images=200, rng=1).evaluate(runs, ["AP"])  # doctest: +SKIP
        >>> meta = corpus_meta_analysis(res, "BM25", "DPH")                          # doctest: +SKIP
        >>> meta.summary(); meta.plot()                                               # doctest: +SKIP

    References:
        Cormack, G. V. & Lynam, T. R. (2006). Statistical precision of information retrieval
        evaluation. SIGIR, §9. DerSimonian, R. & Laird, N. (1986).
    """
    check_choice(degenerate, "degenerate", DEGENERATE)
    effects, se = corpus_topic_effects(result, a, b, measure=measure, effect=effect, eps=eps)
    zero = se.to_numpy() == 0
    if zero.any():
        names = list(se.index[zero])
        if degenerate == "raise":
            raise ValueError(f"{len(names)} topic(s) have the same effect on every corpus image (SD 0), which "
                             f"carries no information about precision: {describe(names)}; pass "
                             "degenerate='drop' to leave them out")
        warnings.warn(f"{len(names)} topic(s) have the same effect on every corpus image (SD 0) and are left out "
                      f"of the meta-analysis: {describe(names)}", InputWarning, stacklevel=2)
        effects, se = effects[~zero], se[~zero]
        if len(effects) < 2:
            raise ValueError(f"only {len(effects)} topic(s) have an effect that varies over images; a "
                             "meta-analysis needs at least 2")
    return meta_analysis(effects, se, method=method, alternative=alternative, confidence_level=confidence_level)
