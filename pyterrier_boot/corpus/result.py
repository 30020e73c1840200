"""Results of a corpus bootstrap: the image distribution and the tables built from it.

:class:`CorpusBootstrapResult` keeps every value ``[image, system, topic, measure]`` (float64,
``B·S·Q·M·8`` bytes: 68 MB for 1000 images of 17 systems x 100 topics x 5 measures) together with
the full-corpus values and the delete-a-group jackknife, and derives from them:

* :meth:`~CorpusBootstrapResult.per_topic`: each (system, topic, measure) value with its standard
  deviation over images and an interval (small-R correction for AP, Cormack & Lynam §7);
* :meth:`~CorpusBootstrapResult.per_system`: the mean over topics (MAP, ...), L-MAP
  (``statistic="logit_mean"``) or geometric mean (``"gmean"``) with its interval, including
  Cormack & Lynam's parametric MAP / L-MAP intervals (§8) and the empirical-Bayes variance of
  L-MAP / G-MAP (their default);
* :meth:`~CorpusBootstrapResult.difference`: paired differences within each image, per topic and
  for the aggregate, with interval and p-value, and the per-image paired t-tests of Zobel & Rashidi
  (Fig. 6) -> :class:`CorpusDifference`;
* :meth:`~CorpusBootstrapResult.ranks`: each system's rank on every image (Zobel & Rashidi Fig. 5)
  -> :class:`~pyterrier_boot.stats.ranking.RankIntervals`;
* :meth:`~CorpusBootstrapResult.to_frame`: long form.

The per-topic variance ``v_q`` of the parametric intervals (``per_system(method="parametric",
variance=...)``; measured in ``pt_docs/corpus_bootstrap.md``):

* ``"mixed"``: for MAP, the delta method on the logit scale, ``(x - x²)² var(logit x_b)``, except
  for cells whose images reach 0 or 1, which get the variance of their image values on the score
  scale ``var(x_b)`` (``logit(ε)`` would otherwise dominate them); for L-MAP ``var(logit x_b)``.
* ``"logit"``: the paper's formula read with image variances: ``(x - x²)² var(logit x_b)`` for every
  MAP cell (over 2 times too wide on Robust 2003 and TREC DL: 99.5% of split-half predictions
  inside where 83.4% is expected), ``var(logit x_b)`` for L-MAP (somewhat wide on AP: sd(z) 0.89
  on Robust 2003).
* ``"small_r"``: the variance implied by each topic's small-R-corrected logit interval,
  ``((logit high - logit low) / 2z)²`` (limits clipped to ``[ε, 1 - ε]``, the range of L-MAP's
  logits), as the paper combined its per-topic intervals, delta-weighted for MAP.
* ``"score"``: ``var(x_b)`` for MAP (no logit), ``var(logit x_b)`` for L-MAP, ``var(log(x_b + ε))``
  for G-MAP.
* ``"empirical_bayes"`` (L-MAP and G-MAP only; their default): the chance that another corpus loses
  every relevant document a cell retrieved, estimated over the whole collection, and the expected
  squared jump it brings (:mod:`pyterrier_boot.corpus.empirical_bayes`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from scipy import special

from .._bounds import clipped, difference_bounds, normal_within
from .._checks import check_choice, check_confidence_level, check_eps, describe
from .._deprecation import renamed_keywords
from .._results import ConfidenceInterval, TupleLike, interval_table_html
from ..stats.aggregates import get_aggregate
from ..stats.ranking import rank_intervals
from ..stats.significance import paired_t
from .empirical_bayes import fit_rate_prior, replicate_variance, zero_chance
from .intervals import (
    EPSILON,
    METHODS,
    PVALUE_METHODS,
    image_interval,
    image_pvalue,
    standard_error,
)
from .small_r import small_r_correction

if TYPE_CHECKING:
    from .._typing import FloatArray, MeasureLike, MeasuresLike
    from ..stats.ranking import RankIntervals


__all__ = ["CorpusBootstrapResult", "CorpusDifference", "UNIT_MEASURES", "unit_measure"]

#: ir_measures measures whose values lie in [0, 1] by definition (the logit interval needs it).
UNIT_MEASURES = frozenset({
    "AP", "AP_IA", "Accuracy", "BPref", "Bpref", "Compat", "ERR", "INSQ", "INST", "IPrec", "Judged", "MAP",
    "MRR", "nDCG", "NDCG", "NERR8", "NERR9", "NERR10", "NERR11", "P", "P_IA", "Precision", "R", "Recall",
    "RBP", "Rprec", "RPrec", "RR", "SetAP", "SetF", "SetP", "SetR", "SetRelP", "StRecall", "Success",
    "alpha_nDCG", "α_nDCG", "infAP", "nERR_IA", "nNRBP", "Q", "nCG",
})
STATISTICS = ("mean", "gmean", "logit_mean")
SYSTEM_METHODS = METHODS + ("parametric",)
#: Per-topic variance rules of the parametric (Cormack & Lynam §8) system interval; see ``per_system``.
PARAMETRIC_VARIANCES = ("mixed", "logit", "small_r", "score", "empirical_bayes")
#: The rules of each statistic (G-MAP has no logit delta method and no small-R logit interval).
STATISTIC_VARIANCES = {"mean": ("mixed", "logit", "small_r", "score"),
                       "logit_mean": PARAMETRIC_VARIANCES, "gmean": ("empirical_bayes", "score")}
#: Default interval of each statistic (split-half calibration, ``pt_docs/corpus_bootstrap.md``): the
#: image percentiles of L-MAP and G-MAP are off-centre (images lose relevant documents more often
#: than another corpus does), so theirs is the parametric interval with the empirical-Bayes variance.
DEFAULT_METHODS = {"mean": "percentile", "logit_mean": "parametric", "gmean": "parametric"}
#: Default per-topic variance of each statistic's parametric interval (split-half calibration).
DEFAULT_VARIANCES = {"mean": "mixed", "logit_mean": "empirical_bayes", "gmean": "empirical_bayes"}
#: Name of the standard-error column of each statistic: it is on the scale where the statistic is a mean.
SE_COLUMN = {"mean": "se", "logit_mean": "se(logit)", "gmean": "se(log)"}
#: The scale of each statistic's paired differences (``difference``): scores, logits or logs.
SCALES = {"mean": "score", "logit_mean": "logit", "gmean": "log"}


def _system_method(statistic, method, variance):
    """``(method, variance, default_of)`` of :meth:`CorpusBootstrapResult.per_system`, checked:
    ``variance`` implies the parametric method; None takes the statistic's default method
    (``default_of``: the statistic then, for messages)."""
    if method is not None:
        method = check_choice(method, "method", SYSTEM_METHODS)
    if variance is not None:
        variance = check_choice(variance, "variance", PARAMETRIC_VARIANCES)
        if method not in (None, "parametric"):
            raise ValueError(f"'variance' is a rule of method='parametric'; got method={method!r} with "
                             f"variance={variance!r}")
        if variance not in STATISTIC_VARIANCES[statistic]:
            raise ValueError(f"variance={variance!r} is not a rule for statistic={statistic!r}; its rules are "
                             f"{STATISTIC_VARIANCES[statistic]}")
        return "parametric", variance, None
    if method is None:
        return DEFAULT_METHODS[statistic], None, statistic
    return method, None, None


def unit_measure(measure: MeasureLike) -> bool:
    """True when an ir_measures measure's values lie in [0, 1] by definition."""
    return getattr(measure, "NAME", None) in UNIT_MEASURES


def _long(columns):
    return pd.DataFrame(columns)


@dataclass(frozen=True, slots=True, eq=False)
class CorpusBootstrapResult(TupleLike):
    """Values of every run and measure on the full corpus and on each corpus image.

    Unpacks as ``statistic, bootstrap_distribution``.

    Attributes:
        statistic: values on the full corpus, ``[system, topic, measure]``.
        bootstrap_distribution: values on each image, ``[image, system, topic, measure]``.
        jackknife_distribution: values on the ``G`` delete-a-group jackknife collections
            ``[group, system, topic, measure]`` (BCa acceleration).
        systems, qids, measures: labels of the axes (measures as the user wrote them).
        model: ``"poisson"`` or ``"multinomial"``; corpus_size: ``N`` used (None for Poisson
            images unless given).
        keys: the 64-bit key of each image (``CorpusImage(i, rng=...)`` reproduces image ``i``).
        documents: the docnos seen (retrieved or judged), sorted: the documents images are drawn for.
        n_relevant: ``R`` per ``[topic, measure]`` for AP measures (grade >= the measure's
            ``rel``), -1 for other measures.
        depth: run depth per ``[system, topic, measure]``, capped at the measure's cutoff (small-R).
        unit: per measure, whether its values lie in [0, 1] by definition.
        found: relevant documents each cell retrieved within the measure's depth ``[system, topic,
            measure]``, -1 for measures that can be 0 with relevant documents retrieved
            (``variance="empirical_bayes"``; None in results saved before it existed).
    """

    statistic: np.ndarray
    bootstrap_distribution: np.ndarray
    jackknife_distribution: np.ndarray
    systems: tuple
    qids: tuple
    measures: tuple
    model: str
    corpus_size: int | None
    keys: np.ndarray
    documents: np.ndarray
    n_relevant: np.ndarray
    depth: np.ndarray
    unit: tuple = ()
    found: np.ndarray | None = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "bootstrap_distribution")

    # ------------------------------------------------------------ basics

    @property
    def n_images(self) -> int:
        return self.bootstrap_distribution.shape[0]

    @property
    def standard_error(self) -> FloatArray:
        """Standard deviation over images of each value ``[system, topic, measure]`` (ddof=1)."""
        return standard_error(self.bootstrap_distribution)

    def __repr__(self):
        S, Q, M = self.statistic.shape
        return (f"CorpusBootstrapResult({self.n_images} {self.model} images, {S} systems x {Q} topics x "
                f"measures {list(self.measures)})")

    def _measure_index(self, measures):
        if measures is None:
            return list(range(len(self.measures)))
        if isinstance(measures, str):
            measures = [measures]
        index = []
        for m in measures:
            if m not in self.measures:
                raise ValueError(f"unknown measure {m!r} in 'measures': expected one of {describe(self.measures)}")
            index.append(self.measures.index(m))
        if not index:
            raise ValueError("'measures' is empty")
        return index

    def _system_index(self, name, argument):
        if name not in self.systems:
            raise ValueError(f"unknown system {name!r} for {argument!r}: expected one of {describe(self.systems)}")
        return self.systems.index(name)

    def _unit(self, index):
        """Whether each measure of ``index`` lies in [0, 1] (all, for results built without ``unit``)."""
        return np.array([self.unit[m] if self.unit else True for m in index], dtype=bool)

    def _bounds(self, index):
        """Each measure's range ``(lo [M], hi [M])``: [0, 1] for those in it by definition and on the
        full corpus, unbounded for the others (:mod:`pyterrier_boot._bounds`)."""
        values = self.statistic[..., index]
        inside = self._unit(index) & ((values >= 0) & (values <= 1)).all(axis=(0, 1))
        return np.where(inside, 0.0, -np.inf), np.where(inside, 1.0, np.inf)

    def _check_unit(self, method, index, what, default_of=None):
        if method not in ("logit", "parametric"):
            return
        bad = [self.measures[m] for m, unit in zip(index, self._unit(index)) if not unit]
        if bad:
            which = f"the default method={method!r} of statistic={default_of!r}" if default_of else f"method={method!r}"
            raise ValueError(
                f"{which} needs {what} in [0, 1], and {describe(bad)} "
                f"{'is' if len(bad) == 1 else 'are'} not known to lie in [0, 1]; use 'percentile', "
                "'normal' or 'bca', or pick measures=[...]"
            )

    # ------------------------------------------------------------ per topic

    @renamed_keywords(epsilon="eps")
    def per_topic(self, *, method: str = "percentile", confidence_level: float = 0.95,
                  small_r: bool = True, measures: MeasuresLike | None = None, eps: float = EPSILON) -> pd.DataFrame:
        """Each (system, topic, measure) value with its SD over images and an interval.

        Args:
            method: ``"percentile"``, ``"normal"``, ``"logit"`` (Cormack & Lynam's logit-normal) or
                ``"bca"`` (see :mod:`pyterrier_boot.corpus.intervals`), as the paper defines them:
                per-topic intervals are not kept in the measure's range (means and differences are:
                :meth:`per_system`), so ``"normal"`` is Cormack & Lynam's linear interval, which can
                leave [0, 1] (their Table 2; ``"logit"`` with the small-R correction is the calibrated one).
            confidence_level: e.g. 0.95.
            small_r: apply the small-R correction to AP measures (silver bullets / lead balloons,
                :mod:`pyterrier_boot.corpus.small_r`); other measures are never corrected.
            measures: labels to include (default all).
            eps: the logit interval's ε.

        Returns:
            A long frame ``name, qid, measure, value, standard_error, ci_low, ci_high, small_r``
            (``small_r``: the correction applied to that cell).
        """
        method = check_choice(method, "method", METHODS)
        confidence_level, eps = check_confidence_level(confidence_level), check_eps(eps)
        index = self._measure_index(measures)
        self._check_unit(method, index, "scores")
        theta = self.statistic[..., index]
        dist = self.bootstrap_distribution[..., index]
        low, high, corrected = self._topic_interval(index, method, confidence_level, small_r, eps)
        S, Q, M = theta.shape
        labels = np.array([self.measures[m] for m in index], dtype=object)
        return _long({
            "name": np.repeat(np.array(self.systems, dtype=object), Q * M),
            "qid": np.tile(np.repeat(np.array(self.qids, dtype=object), M), S),
            "measure": np.tile(labels, S * Q),
            "value": theta.reshape(-1),
            "standard_error": standard_error(dist).reshape(-1),
            "ci_low": low.reshape(-1),
            "ci_high": high.reshape(-1),
            "small_r": corrected.reshape(-1),
        })

    def _topic_interval(self, index, method, confidence_level, small_r, eps):
        """Per-topic interval ``low, high, corrected`` ``[system, topic, measure]`` (see :meth:`per_topic`)."""
        theta = self.statistic[..., index]
        low, high = image_interval(theta, self.bootstrap_distribution[..., index], method=method,
                                   confidence_level=confidence_level,
                                   jackknife=self.jackknife_distribution[..., index], eps=eps, what="scores")
        low, high = np.array(low), np.array(high)
        corrected = np.zeros(theta.shape, dtype=bool)
        if small_r:
            R = np.broadcast_to(self.n_relevant[None, :, index], theta.shape)
            ap = R >= 0
            if ap.any():
                new_low, new_high, applied = small_r_correction(
                    theta[ap], low[ap], high[ap], R[ap], self.depth[..., index][ap],
                    confidence_level=confidence_level)
                low[ap], high[ap], corrected[ap] = new_low, new_high, applied
        return low, high, corrected

    # ------------------------------------------------------------ per system

    def _aggregate(self, statistic):
        statistic = check_choice(statistic, "statistic", STATISTICS)
        return get_aggregate(statistic)

    def system_distribution(self, *, statistic: str = "mean") -> tuple[FloatArray, FloatArray]:
        """The aggregate over topics: full corpus ``[system, measure]`` and per image ``[image, system, measure]``."""
        agg = self._aggregate(statistic)
        if agg.domain is not None:
            agg.check_domain(self.statistic, name="scores")
        return agg(self.statistic, axis=1), agg(self.bootstrap_distribution, axis=2)

    @renamed_keywords(epsilon="eps")
    def per_system(self, *, statistic: str = "mean", method: str | None = None,
                   confidence_level: float = 0.95, measures: MeasuresLike | None = None,
                   eps: float = EPSILON, variance: str | None = None) -> pd.DataFrame:
        """Each system's aggregate over topics (MAP, mean nDCG@10, ...) with its corpus-bootstrap interval.

        Args:
            statistic: ``"mean"``; ``"logit_mean"`` (L-MAP, Cormack & Lynam §8:
                ``expit(mean(logit(x)))``, scores clipped to ``[1e-5, 1 - 1e-5]``); or ``"gmean"``
                (Sakai's ``exp(mean(log(x + 1e-5))) - 1e-5``). Computed within each image.
            method: ``"percentile"``, ``"normal"``, ``"logit"``, ``"bca"`` on the image values of
                the aggregate, or ``"parametric"`` (Cormack & Lynam §8): per-topic variances
                combined as the variance of a mean of independent topics, ``Σ_q v_q / Q²``, and
                ``θ ± z σ`` on the statistic's scale (logit for L-MAP, log for G-MAP, mapped back).
                ``normal`` works on the scale where the statistic is a mean and maps back. Default
                (None): ``"percentile"`` for ``mean``, ``"parametric"`` for ``logit_mean`` and
                ``gmean`` (their image percentiles are off-centre: :data:`DEFAULT_METHODS`).
            confidence_level: e.g. 0.95.
            measures: labels to include (default all).
            eps: ε of the ``logit`` method and of MAP's parametric rules (L-MAP's and G-MAP's use
                their own ε = 1e-5).
            variance: the per-topic variance ``v_q`` of ``method="parametric"`` (one of
                :data:`PARAMETRIC_VARIANCES`, defined in the module docstring; G-MAP has
                ``"empirical_bayes"`` and ``"score"``); giving it implies ``method="parametric"``.
                Default (None): the rules split-half calibration chose, ``"mixed"`` for MAP,
                ``"empirical_bayes"`` for L-MAP and G-MAP (the image variance, ``"score"``, for
                measures that can be 0 with relevant documents retrieved: Bpref, Judged, measures
                without a kernel). For measures in [0, 1] the interval stays in it: the normal
                interval of the mean on the logit scale where it would leave it, every other
                clipped (as ``pt.boot.Experiment``'s; ``pt_docs/statistics.md``).

        Returns:
            A frame with one row per system, as ``pt.Experiment``: ``name``, then for each measure
            ``<m>``, ``<m> ci_low``, ``<m> ci_high`` and the standard error on the scale where the
            statistic is a mean: ``<m> se`` (scores) for ``mean``, ``<m> se(logit)`` for
            ``logit_mean``, ``<m> se(log)`` for ``gmean``: the SD over images of the mean of the
            transformed scores, or the parametric standard error.
        """
        agg = self._aggregate(statistic)
        method, variance, default_of = _system_method(agg.name, method, variance)
        confidence_level, eps = check_confidence_level(confidence_level), check_eps(eps)
        index = self._measure_index(measures)
        self._check_unit(method, index, "scores", default_of)
        scores = self.statistic[..., index]
        images = self.bootstrap_distribution[..., index]
        if agg.domain is not None:
            agg.check_domain(scores, name="scores")
        theta = agg(scores, axis=1)  # [S, M]
        dist = agg(images, axis=2)  # [B, S, M]
        se, low, high = self._system_limits(agg, index, scores, images, theta, dist, method, confidence_level,
                                            eps, variance)
        suffix = SE_COLUMN[agg.name]
        frame = pd.DataFrame({"name": list(self.systems)})
        for j, m in enumerate(index):
            label = self.measures[m]
            frame[label] = theta[:, j]
            frame[f"{label} ci_low"] = low[:, j]
            frame[f"{label} ci_high"] = high[:, j]
            frame[f"{label} {suffix}"] = se[:, j]
        return frame

    def _system_limits(self, agg, index, scores, images, theta, dist, method, confidence_level, eps, variance):
        """``se, low, high`` of each system's aggregate by ``method`` (:meth:`per_system`)."""
        z = special.ndtri(1 - (1 - confidence_level) / 2)
        centre = agg.forward(scores).mean(axis=1)
        if method == "parametric":
            se = np.column_stack([self._parametric_se(m, agg, variance, eps, confidence_level) for m in index])
        else:
            se = standard_error(agg.forward(images).mean(axis=2))
        bounds = self._bounds(index)
        if method not in ("parametric", "normal"):
            jack = agg(self.jackknife_distribution[..., index], axis=2)
            low, high = image_interval(theta, dist, method=method, confidence_level=confidence_level,
                                       jackknife=jack, eps=eps, what=f"{agg.name} values", bounds=bounds)
            return se, low, high
        if method == "normal" and agg.name == "mean":  # on the logit scale of [0, 1] where it would leave it
            return se, *normal_within(theta, dist, z, bounds)
        # G-MAP's exp(.) - ε, MAP's parametric θ ± zσ: kept in [0, 1] for measures there
        return se, *clipped(agg.inverse(centre - z * se), agg.inverse(centre + z * se), bounds)

    def _default_variance(self, m, statistic):
        """The statistic's default rule (:data:`DEFAULT_VARIANCES`), or for L-MAP and G-MAP of a
        measure without counts of relevant documents found (Bpref, ...) the image variance."""
        if statistic != "mean" and self.found is not None and (self.found[..., m] < 0).any():
            return "score"
        return DEFAULT_VARIANCES[statistic]

    def _parametric_se(self, m, agg, variance, eps, confidence_level):
        """Cormack & Lynam's §8 standard error ``sqrt(Σ_q v_q) / Q`` of measure ``m`` per system
        (``v_q`` by ``variance``, see :meth:`per_system`; None: the statistic's default rule), on the
        statistic's scale: scores for ``mean``, logits (L-MAP) or logs (G-MAP) with the statistic's
        own ε for the others."""
        x = self.statistic[..., m]
        images = self.bootstrap_distribution[..., m]
        Q = x.shape[1]
        variance = variance or self._default_variance(m, agg.name)
        if agg.name != "mean":
            v = self._transformed_variance(m, agg, variance, eps, confidence_level)
        elif variance == "score":
            v = images.var(axis=0, ddof=1)
        else:
            v = (x - x**2) ** 2 * self._logit_variance(m, variance, eps, confidence_level)
            if variance == "mixed":
                extreme = (images.min(axis=0) <= 0) | (images.max(axis=0) >= 1)
                v = np.where(extreme, images.var(axis=0, ddof=1), v)
        return np.sqrt(v.sum(axis=1)) / Q

    def _logit_variance(self, m, variance, eps, confidence_level):
        """Per-cell variance of ``logit x`` ``[system, topic]``: from the small-R-corrected logit
        interval (``"small_r"``), else over the images (ε-clipped)."""
        if variance == "small_r":
            low, high, _ = self._topic_interval([m], "logit", confidence_level, True, eps)
            z = special.ndtri(1 - (1 - confidence_level) / 2)
            clip = partial(np.clip, a_min=eps, a_max=1 - eps)
            return (((special.logit(clip(high)) - special.logit(clip(low))) / (2 * z)) ** 2)[..., 0]
        return special.logit(np.clip(self.bootstrap_distribution[..., m], eps, 1 - eps)).var(axis=0, ddof=1)

    def _transformed_variance(self, m, agg, variance, eps, confidence_level):
        """Per-cell variance ``[system, topic]`` of L-MAP's logits or G-MAP's logs by ``variance``:
        the empirical-Bayes rule, the small-R-corrected logit intervals, or the image variance (any
        other rule)."""
        if variance == "small_r":  # L-MAP's own ε, as its other rules
            return self._logit_variance(m, variance, EPSILON, confidence_level)
        f = agg.forward
        if variance != "empirical_bayes":
            return f(self.bootstrap_distribution[..., m]).var(axis=0, ddof=1)
        if self.found is None:
            raise ValueError("variance='empirical_bayes' needs the relevant documents each cell retrieved "
                             "(CorpusBootstrapResult.found), which this result lacks (saved by an older version "
                             "or built by hand): rerun CorpusBootstrap.evaluate, or pass method='normal'")
        found = self.found[..., m]
        if (found < 0).any():
            raise ValueError(f"variance='empirical_bayes' needs a measure that is 0 exactly when no relevant "
                             f"document is retrieved, and {self.measures[m]!r} is not (Bpref, Judged and "
                             "measures without a kernel are not); leave variance=None (it picks the image "
                             "variance there) or pick measures=[...]")
        q = zero_chance(found, fit_rate_prior(found))
        return replicate_variance(f(self.statistic[..., m]), f(self.bootstrap_distribution[..., m]), found, q,
                                  float(f(0.0)))

    # ------------------------------------------------------------ differences

    def difference(self, a: str | int, b: str | int, *, statistic: str = "mean",
                   method: str = "percentile", confidence_level: float = 0.95,
                   measures: MeasuresLike | None = None) -> CorpusDifference:
        """Paired difference ``a - b`` computed within each image, per topic and for the aggregate.

        Args:
            a, b: system names.
            statistic: the aggregate over topics, which fixes the scale of the differences (the
                scale where it is a mean, as ``per_system(method="normal")`` and its ``se`` column):
                ``"mean"``: ``x_a - x_b`` per topic, ``mean(x_a) - mean(x_b)`` (scores);
                ``"logit_mean"``: ``logit x_a - logit x_b`` per topic (a log odds ratio, Cormack &
                Lynam §9), whose mean is ``logit(L-MAP_a) - logit(L-MAP_b)`` (scores clipped to
                ``[1e-5, 1 - 1e-5]``); ``"gmean"``: ``log(x_a + ε) - log(x_b + ε)`` per topic, whose
                mean is the log ratio of Sakai's geometric means plus ε.
            method: ``"percentile"``, ``"normal"`` or ``"bca"``; the p-value inverts the same
                interval (:func:`~pyterrier_boot.corpus.intervals.image_pvalue`), so ``p < α``
                when 0 lies outside the ``1 - α`` interval (Cormack & Lynam §9).
            confidence_level: e.g. 0.95.
            measures: labels to include (default all).

        Returns:
            :class:`CorpusDifference` (its ``scale`` says which), with also the paired t-test over
            topics of the per-topic differences, on the full corpus and on every image (the
            p-values Zobel & Rashidi plot in Fig. 6).
        """
        if method == "logit":
            raise ValueError("method='logit' is not available for differences, which lie in [-1, 1]: "
                             "use 'percentile', 'normal' or 'bca'")
        method = check_choice(method, "method", PVALUE_METHODS)
        confidence_level = check_confidence_level(confidence_level)
        agg = self._aggregate(statistic)
        ia, ib = self._system_index(a, "a"), self._system_index(b, "b")
        if ia == ib:
            raise ValueError(f"'a' and 'b' are the same system ({a!r}): a difference needs two systems")
        index = self._measure_index(measures)
        if agg.domain is not None:
            agg.check_domain(self.statistic[[ia, ib]][..., index], name="scores")
        pair = self._pair_differences([ia], [ib], index, agg)
        theta, dist, jack = pair["theta"][0], pair["dist"][:, 0], pair["jack"][:, 0]
        topic_theta, topic_dist, topic_jack = pair["topic_theta"][0], pair["topic_dist"][:, 0], pair["topic_jack"][:, 0]
        options = {"method": method, "confidence_level": confidence_level}
        # differences of scores in [0, 1] lie in [-1, 1] (clipped, as pt.boot.Experiment's)
        bounds = difference_bounds(self._bounds(index)) if agg.name == "mean" else None
        low, high = clipped(*image_interval(theta, dist, jackknife=jack, **options), bounds)
        t_low, t_high = clipped(*image_interval(topic_theta, topic_dist, jackknife=topic_jack, **options), bounds)
        _, _, t_stat, t_p = paired_t(topic_theta[None], axis=-2)
        _, _, _, image_p = paired_t(topic_dist, axis=-2)
        return CorpusDifference(
            statistic=theta, pvalue=image_pvalue(theta, dist, method=method, jackknife=jack),
            confidence_interval=ConfidenceInterval(low, high), standard_error=standard_error(dist),
            bootstrap_distribution=dist, topic_statistic=topic_theta,
            topic_pvalue=image_pvalue(topic_theta, topic_dist, method=method, jackknife=topic_jack),
            topic_confidence_interval=ConfidenceInterval(t_low, t_high),
            topic_standard_error=standard_error(topic_dist), topic_bootstrap_distribution=topic_dist,
            ttest_statistic=t_stat[0], ttest_pvalue=t_p[0], image_ttest_pvalues=image_p, systems=(a, b),
            qids=self.qids, measures=tuple(self.measures[m] for m in index), statistic_name=agg.name,
            method=method, confidence_level=confidence_level, scale=SCALES[agg.name],
        )

    def _pair_differences(self, ia, ib, index, agg):
        """Differences of pairs ``ia[p] - ib[p]`` on ``agg``'s mean scale: ``theta [P, M]``,
        ``dist [B, P, M]``, ``jack [G, P, M]`` and the per-topic ``topic_*`` (a topic axis before M)."""
        out = {}
        for name, values in (("", self.statistic[None]), ("dist", self.bootstrap_distribution),
                             ("jack", self.jackknife_distribution)):
            x = agg.forward(values[..., index])
            topic = x[:, ia] - x[:, ib]  # [*, P, Q, M]
            out["topic_" + (name or "theta")] = topic
            out[name or "theta"] = topic.mean(axis=2)
        out["theta"], out["topic_theta"] = out["theta"][0], out["topic_theta"][0]
        return out

    # ------------------------------------------------------------ ranks

    def ranks(self, *, statistic: str = "mean", confidence_level: float = 0.95,
              measures: MeasuresLike | None = None) -> RankIntervals:
        """Each system's rank (1 = best aggregate) on the full corpus and on every image (Zobel & Rashidi Fig. 5).

        Ties share the average rank (``scipy.stats.rankdata(method="average")``). The rank interval
        is the ``α/2`` quantile (rounded down to an observed rank) to the ``1 - α/2`` quantile
        (rounded up) of the image ranks, so it holds at least ``1 - α`` of the images.

        Returns:
            :class:`~pyterrier_boot.stats.ranking.RankIntervals`.
        """
        index = self._measure_index(measures)
        theta, dist = self.system_distribution(statistic=statistic)
        return rank_intervals(theta[:, index], dist[..., index], systems=self.systems,
                              measures=tuple(self.measures[m] for m in index), statistic_name=statistic,
                              confidence_level=confidence_level)

    # ------------------------------------------------------------ tables

    def to_frame(self, *, images: bool = False) -> pd.DataFrame:
        """Long form.

        ``images=False``: ``name, qid, measure, value, image_mean, standard_error`` (value on the
        full corpus; mean and SD over images). ``images=True``: every image value, ``name, image,
        qid, measure, value`` (``B·S·Q·M`` rows).
        """
        S, Q, M = self.statistic.shape
        systems = np.array(self.systems, dtype=object)
        qids = np.array(self.qids, dtype=object)
        labels = np.array(self.measures, dtype=object)
        if not images:
            return _long({
                "name": np.repeat(systems, Q * M),
                "qid": np.tile(np.repeat(qids, M), S),
                "measure": np.tile(labels, S * Q),
                "value": self.statistic.reshape(-1),
                "image_mean": self.bootstrap_distribution.mean(axis=0).reshape(-1),
                "standard_error": self.standard_error.reshape(-1),
            })
        B = self.n_images
        values = np.moveaxis(self.bootstrap_distribution, 0, 1)  # [S, B, Q, M]
        return _long({
            "name": np.repeat(systems, B * Q * M),
            "image": np.tile(np.repeat(np.arange(B), Q * M), S),
            "qid": np.tile(np.repeat(qids, M), S * B),
            "measure": np.tile(labels, S * B * Q),
            "value": values.reshape(-1),
        })

    def _repr_html_(self):
        frame = self.per_system()
        columns = {m: (frame[m], frame[f"{m} ci_low"], frame[f"{m} ci_high"]) for m in self.measures}
        return interval_table_html(
            self.systems, columns,
            caption=f"Corpus bootstrap: {self.n_images:,} {self.model} images, {len(self.systems)} systems, "
                    f"{len(self.qids)} topics. Cells: mean over topics [95% percentile interval over the images; "
                    "variance: corpus (documents)]. Bold: the best mean of each measure.")


@dataclass(frozen=True, slots=True, eq=False)
class CorpusDifference(TupleLike):
    """Paired difference ``a - b`` of two systems, computed within each corpus image.

    Unpacks as ``statistic, pvalue`` (arrays over measures).

    Attributes:
        statistic: ``agg(x_a) - agg(x_b)`` on the full corpus, per measure.
        pvalue: two-sided p-value of ``H0: difference = 0`` (inverting the ``method`` interval).
        confidence_interval: ``ConfidenceInterval(low, high)`` per measure.
        standard_error: SD of the difference over images.
        bootstrap_distribution: the difference on each image ``[image, measure]``.
        topic_statistic, topic_pvalue, topic_confidence_interval, topic_standard_error,
        topic_bootstrap_distribution: the same per topic (``[topic, measure]``, images first).
        ttest_statistic, ttest_pvalue: paired t-test over topics on the full corpus (as
            ``scipy.stats.ttest_rel``), per measure.
        image_ttest_pvalues: that t-test's p-value on each image ``[image, measure]`` (Zobel &
            Rashidi Fig. 6 plots them against ``bootstrap_distribution``); NaN where all topic
            differences are equal.
        systems: ``(a, b)``; qids, measures, statistic_name, method, confidence_level.
        scale: the scale of every difference, interval and standard error above: ``"score"``
            (``statistic="mean"``), ``"logit"`` (``"logit_mean"``: log odds ratios) or ``"log"``
            (``"gmean"``: log ratios).
    """

    statistic: Any
    pvalue: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    bootstrap_distribution: Any
    topic_statistic: Any
    topic_pvalue: Any
    topic_confidence_interval: ConfidenceInterval
    topic_standard_error: Any
    topic_bootstrap_distribution: Any
    ttest_statistic: Any
    ttest_pvalue: Any
    image_ttest_pvalues: Any
    systems: tuple
    qids: tuple
    measures: tuple
    statistic_name: str
    method: str
    confidence_level: float
    scale: str = "score"
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    def to_frame(self, *, per_topic: bool = False) -> pd.DataFrame:
        """One row per measure (``measure, scale, difference, ci_low, ci_high, standard_error, pvalue,
        ttest_pvalue``), or with ``per_topic=True`` one row per (topic, measure); ``scale`` says
        what the differences are (``"score"``, ``"logit"`` or ``"log"``, see ``scale``)."""
        a, b = self.systems
        if per_topic:
            Q, M = self.topic_statistic.shape
            frame = _long({
                "qid": np.repeat(np.array(self.qids, dtype=object), M),
                "measure": np.tile(np.array(self.measures, dtype=object), Q),
                "difference": self.topic_statistic.reshape(-1),
                "ci_low": self.topic_confidence_interval.low.reshape(-1),
                "ci_high": self.topic_confidence_interval.high.reshape(-1),
                "standard_error": self.topic_standard_error.reshape(-1),
                "pvalue": self.topic_pvalue.reshape(-1),
            })
        else:
            frame = _long({
                "measure": list(self.measures),
                "difference": self.statistic,
                "ci_low": self.confidence_interval.low,
                "ci_high": self.confidence_interval.high,
                "standard_error": self.standard_error,
                "pvalue": self.pvalue,
                "ttest_pvalue": self.ttest_pvalue,
            })
        frame.insert(2 if per_topic else 1, "scale", self.scale)
        frame.insert(0, "b", b)
        frame.insert(0, "a", a)
        return frame

    def _repr_html_(self):
        return self.to_frame()._repr_html_()

    def __repr__(self):
        a, b = self.systems
        return (f"CorpusDifference({a!r} - {b!r}, statistic={self.statistic!r}, pvalue={self.pvalue!r}, "
                f"method={self.method!r}, scale={self.scale!r})")
