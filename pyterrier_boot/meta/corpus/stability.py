"""Corpus stability of measures: how much scores and differences move across corpus images.

Zobel & Rashidi (2020, §5-6) compare measures by the standard deviation, over corpus images, of

* each (system, topic) score (their Table 4 reports, per system, the mean ± SD over topics of
  those SDs; Fig. 1 the 95th percentile over systems, per topic);
* each (system, system, topic) difference, computed within each image (Table 3: mean ± SD over
  all (pair, topic) cells);
* each system's mean over topics (Fig. 4), and each pair's difference of means.

A measure whose per-topic SDs are small and uniform is *stable* with respect to the corpus: its
per-topic values can be compared and averaged. Zobel & Rashidi find RBP(p=0.95) and INSQ the most
stable, RR and P@10 the least, AP and nDCG in between with heavy tails.

Choices: SDs use ``ddof=1`` (as :attr:`CorpusBootstrapResult.standard_error`); pairs are all
``i < j`` of the chosen systems in the result's order (the SD of ``x_i - x_j`` is that of
``x_j - x_i``); percentiles are numpy's linear ones. Differences are exact (computed on the image
values, pair by pair), not derived from covariances.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..._results import TupleLike
from ._inputs import check_corpus_result, measure_indices, system_indices

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from ..._typing import MeasuresLike
    from ...corpus.result import CorpusBootstrapResult


__all__ = ["corpus_stability", "CorpusStabilityResult"]

SUMMARY_COLUMNS = (
    "measure",
    "score_sd_mean", "score_sd_sd", "score_sd_median", "score_sd_p95",
    "difference_sd_mean", "difference_sd_sd", "difference_sd_median", "difference_sd_p95",
    "mean_sd_mean", "mean_sd_median", "mean_difference_sd_mean", "mean_difference_sd_median",
)


@dataclass(frozen=True, slots=True, eq=False)
class CorpusStabilityResult(TupleLike):
    """Standard deviations over corpus images, per measure; unpacks as ``score_sd, difference_sd``.

    Attributes:
        score_sd: SD of each score ``[system, topic, measure]``.
        difference_sd: SD of each within-image difference ``[pair, topic, measure]``.
        mean_sd: SD of each system's mean over topics ``[system, measure]``.
        mean_difference_sd: SD of each pair's difference of means ``[pair, measure]``.
        pairs: ``(first, second)`` system positions of each pair (``i < j``).
        systems, qids, measures: labels; n_images: images used.
    """

    score_sd: Any
    difference_sd: Any
    mean_sd: Any
    mean_difference_sd: Any
    pairs: tuple
    systems: tuple
    qids: tuple
    measures: tuple
    n_images: int
    _tuple_fields: ClassVar[tuple[str, ...]] = ("score_sd", "difference_sd")

    @property
    def n_pairs(self) -> int:
        return len(self.pairs[0])

    def summary(self) -> pd.DataFrame:
        """One row per measure (Zobel & Rashidi's Tables 3-4 pooled over systems).

        ``score_sd_*``: over the (system, topic) cells; ``difference_sd_*``: over the
        (pair, topic) cells (``difference_sd_mean ± difference_sd_sd`` is Table 3's
        ``μ_σ ± σ_σ``); ``mean_sd_*``: over systems, the SD of the mean over topics (Fig. 4);
        ``mean_difference_sd_*``: over pairs, the SD of the difference of means. ``_p95`` is the
        95th percentile. Smaller is more stable.
        """
        import pandas as pd

        rows = []
        for m, label in enumerate(self.measures):
            score = self.score_sd[..., m].ravel()
            diff = self.difference_sd[..., m].ravel()
            rows.append((
                label,
                score.mean(), score.std(), np.median(score), np.percentile(score, 95),
                diff.mean(), diff.std(), np.median(diff), np.percentile(diff, 95),
                self.mean_sd[:, m].mean(), np.median(self.mean_sd[:, m]),
                self.mean_difference_sd[:, m].mean(), np.median(self.mean_difference_sd[:, m]),
            ))
        return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))

    def per_system(self) -> pd.DataFrame:
        """One row per system (Zobel & Rashidi Table 4): for each measure ``<m>``,
        ``<m> topic_sd_mean`` and ``<m> topic_sd_sd`` (mean and SD over topics of the per-topic SDs)
        and ``<m> mean_sd`` (SD of the system's mean over topics)."""
        import pandas as pd

        frame = pd.DataFrame({"name": list(self.systems)})
        for m, label in enumerate(self.measures):
            frame[f"{label} topic_sd_mean"] = self.score_sd[..., m].mean(axis=1)
            frame[f"{label} topic_sd_sd"] = self.score_sd[..., m].std(axis=1)
            frame[f"{label} mean_sd"] = self.mean_sd[:, m]
        return frame

    def per_topic(self) -> pd.DataFrame:
        """One row per topic (Zobel & Rashidi Fig. 1): for each measure ``<m>``, ``<m> sd_mean``,
        ``<m> sd_p95`` (mean and 95th percentile over systems of the score SDs) and
        ``<m> difference_sd_mean`` (mean over pairs of the difference SDs)."""
        import pandas as pd

        frame = pd.DataFrame({"qid": list(self.qids)})
        for m, label in enumerate(self.measures):
            frame[f"{label} sd_mean"] = self.score_sd[..., m].mean(axis=0)
            frame[f"{label} sd_p95"] = np.percentile(self.score_sd[..., m], 95, axis=0)
            frame[f"{label} difference_sd_mean"] = self.difference_sd[..., m].mean(axis=0)
        return frame

    def to_frame(self) -> pd.DataFrame:
        """Same as :meth:`summary`."""
        return self.summary()

    def _repr_html_(self):
        return self.summary()._repr_html_()

    def __repr__(self):
        return (f"CorpusStabilityResult({len(self.systems)} systems, {len(self.qids)} topics, "
                f"{self.n_images} images, measures {list(self.measures)})")


def corpus_stability(result: CorpusBootstrapResult, *, measures: MeasuresLike | None = None,
                     systems: Sequence[str] | None = None) -> CorpusStabilityResult:
    """SDs over corpus images of scores and of system differences, to compare measures.

    Args:
        result: a :class:`~pyterrier_boot.CorpusBootstrapResult` (at least 2 images; Zobel &
            Rashidi use 100).
        measures: labels to include (default all), as written to ``evaluate``.
        systems: system names to include (default all, at least 2), e.g. the top 50 by a measure
            as in Zobel & Rashidi.

    Returns:
        CorpusStabilityResult: ``summary()`` (one row per measure), ``per_system()`` (Table 4),
        ``per_topic()`` (Fig. 1) and the SD arrays.

    Example:
        >>> import numpy as np
        >>> from pyterrier_boot.corpus.result import CorpusBootstrapResult
        >>> rng = np.random.default_rng(0)
        >>> B, S, Q = 200, 3, 4
        >>> images = 0.5 + rng.normal(0, [0.02, 0.1], size=(B, S, Q, 2))  # 2nd measure noisier
        >>> res = CorpusBootstrapResult(images.mean(axis=0), images, images[:20], ("a", "b", "c"),
        ...     ("1", "2", "3", "4"), ("stable", "noisy"), "poisson", None, np.zeros(B, np.uint64),
        ...     np.array([]), np.full((Q, 2), -1), np.zeros((S, Q, 2), int))
        >>> corpus_stability(res).summary()[["measure", "score_sd_mean", "difference_sd_mean"]].round(3)
          measure  score_sd_mean  difference_sd_mean
        0  stable          0.020               0.028
        1   noisy          0.099               0.139

    References:
        Zobel, J. & Rashidi, L. (2020). Corpus bootstrapping for assessment of the properties of
        effectiveness measures. CIKM, §5 (Tables 3 and 4, Fig. 1) and §6 (Fig. 4).
    """
    result = check_corpus_result(result)
    m_index = measure_indices(result, measures)
    s_index = system_indices(result, systems)
    x = result.bootstrap_distribution[:, s_index][..., m_index]  # [B, S, Q, M]
    B, S, Q, M = x.shape
    first, second = np.triu_indices(S, k=1)
    score_sd = x.std(axis=0, ddof=1)
    difference_sd = np.empty((len(first), Q, M))
    start = 0
    for i in range(S - 1):  # pairs (i, j > i) are contiguous in triu order: one block per i
        stop = start + S - 1 - i
        for m in range(M):
            difference_sd[start:stop, :, m] = (x[:, i:i + 1, :, m] - x[:, i + 1:, :, m]).std(axis=0, ddof=1)
        start = stop
    means = x.mean(axis=2)  # [B, S, M]
    mean_sd = means.std(axis=0, ddof=1)
    mean_difference_sd = (means[:, first] - means[:, second]).std(axis=0, ddof=1)
    return CorpusStabilityResult(
        score_sd=score_sd, difference_sd=difference_sd, mean_sd=mean_sd,
        mean_difference_sd=mean_difference_sd, pairs=(first, second),
        systems=tuple(result.systems[s] for s in s_index), qids=tuple(result.qids),
        measures=tuple(result.measures[m] for m in m_index), n_images=B,
    )
