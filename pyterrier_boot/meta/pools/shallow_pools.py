"""Comparing two systems over corpus images with shallow pools (Zobel & Rashidi 2020, §7).

A researcher with a new collection often judges only the top ``k`` documents of the systems being
compared. Zobel & Rashidi rebuild the qrels of the top two TREC-9 systems from their top 10 and
25 documents, redo the comparison on 100 corpus images, and plot, for each image, the paired
t-test p-value against the score difference (their Fig. 6) and the per-topic differences (Fig. 7).
RBP(p=0.95)'s differences and p-values barely move with the pool depth; AP's differences are
exaggerated and its p-values fall (false confidence) as the pool gets shallower.

:func:`shallow_pool_comparison` does this for any runs, qrels, depths and measures:

1. for each depth ``k``, the qrels are restricted with :func:`~pyterrier_boot.meta.pools.pooling.pool`
   to the union of the pool systems' top ``k`` (default: the two compared systems; ``full=True``
   adds the original qrels as the last row, Zobel & Rashidi's "depth 100");
2. the two runs are evaluated on the full corpus and on ``n_images`` corpus images with
   :class:`~pyterrier_boot.CorpusBootstrap` and compared with
   :meth:`~pyterrier_boot.CorpusBootstrapResult.difference` (difference of means, its interval
   and p-value over images, and the paired t-test over topics on every image).

Choices where the paper is vague:

* The pool is built once, from the full-corpus runs, and each image then counts the pooled
  judgements ``k_d`` times (the image of the shallow qrels). Zobel & Rashidi may have pooled the
  top ``k`` of each image run; the two differ only where documents near rank ``k`` are removed
  or duplicated in the image.
* With the default Poisson model an image depends only on ``(rng, image, docno)``, so every depth
  uses the *same* images: the rows are paired image by image. (Multinomial images are drawn for
  the set of documents seen, which changes with the pool; they are then only alike in
  distribution.) An int ``rng`` gives the images of ``CorpusBootstrap(qrels, rng=rng)``.
* A topic that keeps no judged document in the pool scores 0 for both systems (as a topic
  without relevant documents, Zobel & Rashidi §3), so every depth covers the topics of the full
  qrels; such topics are named in an :class:`~pyterrier_boot.InputWarning`.
"""
from __future__ import annotations

import dataclasses
import numbers
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..._checks import check_choice, check_confidence_level, check_positive_int, describe
from ..._deprecation import keyword_only
from ..._results import TupleLike
from ..._warnings import InputWarning, one_warning_per_kind, report
from .pooling import pool, pooled_runs

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd

    from ..._typing import MeasuresLike, QrelsLike, RngLike, RunsLike


__all__ = ["shallow_pool_comparison", "ShallowPoolResult", "FULL"]

#: label of the row evaluated on the original (full) qrels
FULL = "full"
DEFAULT_MEASURES = ("AP", "RBP(p=0.95)")

SUMMARY_COLUMNS = (
    "measure", "depth", "judgements", "relevant", "topics_judged", "difference", "ci_low", "ci_high",
    "standard_error", "pvalue", "ttest_pvalue", "image_ttest_pvalue_median", "image_ttest_pvalue_q025",
    "image_ttest_pvalue_q975", "image_ttest_pvalue_max", "share_significant", "topic_sd_mean",
)


@dataclass(frozen=True, slots=True, eq=False)
class ShallowPoolResult(TupleLike):
    """The comparison of two systems at each pool depth; unpacks as ``depths, differences``.

    Attributes:
        depths: pool depths in order, then ``"full"`` for the original qrels (when included).
        differences: dict ``depth -> CorpusDifference`` (``bootstrap_distribution[image, measure]``
            are the image differences of means, ``image_ttest_pvalues[image, measure]`` the paired
            t-test p-values, ``topic_bootstrap_distribution[image, topic, measure]`` the per-topic
            differences).
        judgements, relevant, topics_judged: dicts ``depth -> int``: judgements kept, those with a
            positive label, topics with at least one judgement.
        dropped_topics: dict ``depth -> tuple`` of topics without a judged pooled document
            (scored 0 for both systems).
        systems: ``(a, b)``; pool_systems: the runs pooled; measures, qids, n_images, model,
        method, confidence_level: as used.
    """

    depths: tuple
    differences: dict
    judgements: dict
    relevant: dict
    topics_judged: dict
    dropped_topics: dict
    systems: tuple
    pool_systems: tuple
    measures: tuple
    qids: tuple
    n_images: int
    model: str
    method: str
    confidence_level: float
    _tuple_fields: ClassVar[tuple[str, ...]] = ("depths", "differences")

    def summary(self) -> pd.DataFrame:
        """One row per (measure, depth), measures first.

        Columns: ``measure, depth, judgements, relevant, topics_judged``; ``difference`` (``a - b``
        of the means on the full corpus), ``ci_low, ci_high, standard_error, pvalue`` (over
        images, ``method``); ``ttest_pvalue`` (paired t-test over topics on the full corpus);
        the per-image paired t-test p-values' ``median``, 2.5% and 97.5% quantiles and maximum,
        and ``share_significant`` (share of images with p < 1 - confidence_level) (Fig. 6);
        ``topic_sd_mean``, the mean over topics of the SD over images of the per-topic difference
        (the spread of Fig. 7).
        """
        import pandas as pd

        alpha = 1 - self.confidence_level
        rows = []
        for m, label in enumerate(self.measures):
            for depth in self.depths:
                d = self.differences[depth]
                p = d.image_ttest_pvalues[:, m]
                finite = p[np.isfinite(p)]
                q025, median, q975 = (np.quantile(finite, [0.025, 0.5, 0.975]) if finite.size
                                      else (np.nan,) * 3)
                rows.append((
                    label, depth, self.judgements[depth], self.relevant[depth], self.topics_judged[depth],
                    d.statistic[m], d.confidence_interval.low[m], d.confidence_interval.high[m],
                    d.standard_error[m], d.pvalue[m], d.ttest_pvalue[m], median, q025, q975,
                    finite.max() if finite.size else np.nan,
                    float(np.mean(finite < alpha)) if finite.size else np.nan,
                    float(d.topic_standard_error[:, m].mean()),
                ))
        return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))

    def to_frame(self) -> pd.DataFrame:
        """Same as :meth:`summary`."""
        return self.summary()

    @keyword_only("axes")
    def plot(self, *, axes: Any = None, **kwargs: Any) -> Any:
        """p-value against score difference on every image (:func:`~pyterrier_boot.meta.plots.plot_pool_pvalues`)."""
        from ..plots import plot_pool_pvalues

        return plot_pool_pvalues(self, axes=axes, **kwargs)

    def _repr_html_(self):
        return self.summary()._repr_html_()

    def __repr__(self):
        a, b = self.systems
        return (f"ShallowPoolResult({a!r} - {b!r}, depths {list(self.depths)}, measures {list(self.measures)}, "
                f"{self.n_images} images)")


def _check_depths(depths):
    if isinstance(depths, numbers.Integral) and not isinstance(depths, bool):
        depths = [depths]
    try:
        depths = list(depths)
    except TypeError:
        raise TypeError(f"'depths' must be a list of positive integers, got {type(depths).__name__}") from None
    bad = [d for d in depths if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1]
    if bad:
        raise ValueError(f"'depths' must be positive integers (pool depths), got {describe(bad)}; "
                         "pass full=True for the original qrels")
    if len(set(depths)) != len(depths):
        raise ValueError(f"'depths' has repeated values: {describe(depths)}")
    return [int(d) for d in depths]


def _seed(rng):
    """A seed giving the same images at every depth (an int or SeedSequence is used as is)."""
    from ..._random import as_generator

    if isinstance(rng, (numbers.Integral, np.random.SeedSequence)) and not isinstance(rng, bool):
        as_generator(rng)  # validates (negative ints)
        return rng
    return int(as_generator(rng).integers(0, 2**63 - 1))


def _shallow_iv(runs, qrels, a, b, depths, measures, pool_systems, full, n_images, method, confidence_level, rng):
    from ...inputs.qrels import read_qrels
    from ...inputs.runs import read_runs

    depths = _check_depths(depths)
    if not isinstance(full, (bool, np.bool_)):
        raise TypeError(f"'full' must be True or False, got {type(full).__name__}")
    if not depths and not full:
        raise ValueError("'depths' is empty and full=False: nothing to compare")
    n_images = check_positive_int(n_images, "n_images", minimum=2)
    if method == "logit":
        raise ValueError("method='logit' is not available for differences: use 'percentile', 'normal' or 'bca'")
    from ...corpus.intervals import PVALUE_METHODS

    method = check_choice(method, "method", PVALUE_METHODS)
    confidence_level = check_confidence_level(confidence_level)
    if isinstance(measures, str):
        measures = [measures]
    measures = list(measures)
    if not measures:
        raise ValueError("'measures' is empty")
    read = read_runs(runs)
    for value, name in ((a, "a"), (b, "b")):
        if value not in read:
            raise ValueError(f"unknown system {value!r} for {name!r}: the runs are {describe(list(read))}")
    if a == b:
        raise ValueError(f"'a' and 'b' are the same system ({a!r}): a comparison needs two systems")
    pool_systems = [a, b] if pool_systems is None else pooled_runs(pool_systems, read, "pool_systems")
    return (read, read_qrels(qrels), depths, measures, tuple(dict.fromkeys(pool_systems)), bool(full),
            n_images, method, confidence_level, _seed(rng))


def _pad_topics(result, qids):
    """The result over ``qids`` (a superset of its topics): missing topics score 0 everywhere."""
    if tuple(result.qids) == tuple(qids):
        return result
    where = [qids.index(q) for q in result.qids]
    Q = len(qids)

    def pad(values, axis, fill=0):
        shape = list(values.shape)
        shape[axis] = Q
        out = np.full(shape, fill, dtype=values.dtype)
        index = [slice(None)] * values.ndim
        index[axis] = where
        out[tuple(index)] = values
        return out

    n_relevant = pad(result.n_relevant, 0, fill=-1)
    ap = (result.n_relevant >= 0).any(axis=0)
    n_relevant[:, ap] = np.where(n_relevant[:, ap] < 0, 0, n_relevant[:, ap])
    return dataclasses.replace(
        result, statistic=pad(result.statistic, 1), bootstrap_distribution=pad(result.bootstrap_distribution, 2),
        jackknife_distribution=pad(result.jackknife_distribution, 2), qids=tuple(qids),
        n_relevant=n_relevant, depth=pad(result.depth, 1))


@one_warning_per_kind()
def _pooled(full_qrels, read, depth, pool_systems):
    """The qrels of the depth-``depth`` pool of ``pool_systems`` (dropped topics reported by the caller)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        return pool(full_qrels, read, depth, systems=pool_systems)


def _corpus_bootstrap(qrels, runs, measures, n_images, model, corpus_size, seed, verbose):
    """The corpus bootstrap of ``runs`` on ``qrels``, images drawn from ``seed``."""
    from ...corpus.bootstrap import CorpusBootstrap

    boot = CorpusBootstrap(qrels, n_images=n_images, model=model, corpus_size=corpus_size, rng=seed,
                           verbose=verbose)
    return boot.evaluate(runs, measures)


def shallow_pool_comparison(runs: RunsLike, qrels: QrelsLike, a: str, b: str, *,
                            depths: Sequence[int] = (10, 25, 100),
                            measures: MeasuresLike = DEFAULT_MEASURES,
                            pool_systems: Sequence[str] | None = None, full: bool = True,
                            n_images: int = 100, model: str = "poisson",
                            corpus_size: int | None = None, rng: RngLike = None,
                            method: str = "percentile", confidence_level: float = 0.95,
                            verbose: bool = False) -> ShallowPoolResult:
    """Compare systems ``a`` and ``b`` over corpus images with qrels pooled at several depths.

    Args:
        runs, qrels: the runs (holding ``a``, ``b`` and the pool systems) and the full judgements.
        a, b: the two systems compared (``a - b``).
        depths: pool depths (positive integers), e.g. Zobel & Rashidi's 10 and 25.
        measures: as for ``evaluate`` (default AP and RBP(p=0.95); ``rel=...`` for graded qrels).
        pool_systems: runs whose top ``depth`` documents form the pool (default ``[a, b]``).
        full: also compare on the original qrels (row ``"full"``).
        n_images, model, corpus_size, rng: of :class:`~pyterrier_boot.CorpusBootstrap` (100 images).
        method, confidence_level: of :meth:`~pyterrier_boot.CorpusBootstrapResult.difference`.
        verbose: progress bars.

    Returns:
        ShallowPoolResult (``summary()``, ``plot()`` for Fig. 6; ``pt_docs/meta_evaluation.md``).

    References:
        Zobel, J. & Rashidi, L. (2020). Corpus bootstrapping for assessment of the properties of
        effectiveness measures. CIKM, §7 (Fig. 6 and 7).
    """
    from ...measures.arrays import natural_order

    (read, full_qrels, depths, measures, pool_systems, full, n_images, method, confidence_level,
     seed) = _shallow_iv(runs, qrels, a, b, depths, measures, pool_systems, full, n_images, method,
                         confidence_level, rng)
    qids = tuple(natural_order([str(q) for q in dict.fromkeys(full_qrels.frame["qid"])]))
    pair = {a: read[a], b: read[b]}
    levels = list(depths) + ([FULL] if full else [])
    differences, judgements, relevant, judged, dropped = {}, {}, {}, {}, {}
    for level in levels:
        q = full_qrels if level == FULL else _pooled(full_qrels, read, level, pool_systems)
        frame = q.frame
        present = {str(t) for t in frame["qid"]}
        dropped[level] = tuple(t for t in qids if t not in present)
        report(InputWarning, f"{{n}} topic(s) keep no judged document in the pool of {list(pool_systems)} at "
               "some depth and score 0 for both systems there: {cases}",
               (f"{t} (depth {level})" for t in dropped[level]))
        runs_here = pair if level == FULL else {  # topics outside the pool: reported above, not by the engine
            name: run[run["qid"].astype(str).isin(present)] for name, run in pair.items()}
        result = _pad_topics(_corpus_bootstrap(q, runs_here, measures, n_images, model, corpus_size, seed, verbose),
                             list(qids))
        differences[level] = result.difference(a, b, method=method, confidence_level=confidence_level)
        judgements[level] = int(len(frame))
        relevant[level] = int((frame["label"] > 0).sum())
        judged[level] = len(present)
    measure_labels = differences[levels[0]].measures
    return ShallowPoolResult(
        depths=tuple(levels), differences=differences, judgements=judgements, relevant=relevant,
        topics_judged=judged, dropped_topics=dropped, systems=(a, b), pool_systems=pool_systems,
        measures=tuple(measure_labels), qids=qids, n_images=n_images, model=model, method=method,
        confidence_level=confidence_level,
    )
