"""Where the variance comes from, on corpus-bootstrap replicates (Kanoulas; pt_docs/methods.md, "Where the variance comes from").

Each corpus image is a replicate of the whole experiment: ``y[s,q,k]`` is the score of system
``s`` on topic ``q`` in image ``k``. The mixed model of
:func:`~pyterrier_boot.meta.design.variance_decomposition.variance_decomposition`,

    y[s,q,k] = β_s + b_q + c_sq + ε[s,q,k],

then separates the topic variance ``σ_q²`` (what pairing removes), the system-by-topic variance
``σ_sq²`` (what a paired t-test over topics measures) and the residual ``σ²``, here the
*collection* (corpus) variance: how much a score moves when the documents change. Kanoulas fits it
homoscedastic and heteroscedastic (a residual variance per system x topic: the corpus bootstrap
shows that AP's per-topic precision varies a lot between topics, Zobel & Rashidi §5), and
compares the system effects with the paired t-test, which ignores the corpus.

:func:`corpus_variance_decomposition` builds the long frame ``(score, system, topic, replicate)``
from the images of a :class:`~pyterrier_boot.CorpusBootstrapResult` (or runs the corpus bootstrap
first) and fits both models with the exact cell-statistics solver (``solver="cells"``): 17 systems
x 100 topics x 1,000 images, 1.7 million rows, both models in under a second (statsmodels'
``MixedLM`` on those rows took 185 s for one model).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..._checks import check_positive_int, describe
from ..._results import TupleLike
from ..design.variance_decomposition import COMPONENTS, t_table, variance_decomposition
from ._inputs import check_corpus_result, one_measure, system_indices

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt
    import pandas as pd

    from ..._typing import MeasureLike, QrelsLike, RngLike
    from ...corpus.result import CorpusBootstrapResult


__all__ = ["corpus_variance_decomposition", "CorpusVarianceResult", "corpus_replicates"]


@dataclass(frozen=True, slots=True, eq=False)
class CorpusVarianceResult(TupleLike):
    """Both mixed models fitted to corpus images; unpacks as ``homoscedastic, heteroscedastic``.

    Attributes:
        homoscedastic, heteroscedastic: :class:`~pyterrier_boot.VarianceDecompositionResult`
            (the residual is the corpus variance; in the heteroscedastic model its mean over cells).
        t_test: the paired t-test over topics of each system against ``reference`` on the full
            corpus (what is usually reported): ``system, difference, standard_error, t, p-value``
            (equal to ``scipy.stats.ttest_rel``).
        measure, systems, reference, n_topics, n_images: as used.
    """

    homoscedastic: Any
    heteroscedastic: Any
    t_test: Any
    measure: str
    systems: tuple
    reference: Any
    n_topics: int
    n_images: int
    _tuple_fields: ClassVar[tuple[str, ...]] = ("homoscedastic", "heteroscedastic")

    def components_frame(self) -> pd.DataFrame:
        """``component, homoscedastic, homoscedastic share, heteroscedastic, heteroscedastic share``
        (variances in score units squared)."""
        import pandas as pd

        rows = [(c, self.homoscedastic.components[c], self.homoscedastic.share[c],
                 self.heteroscedastic.components[c], self.heteroscedastic.share[c]) for c in COMPONENTS]
        return pd.DataFrame(rows, columns=["component", "homoscedastic", "homoscedastic share",
                                           "heteroscedastic", "heteroscedastic share"])

    def to_frame(self) -> pd.DataFrame:
        """One row per non-reference system: each model's effect, standard error and p-value
        (``homo ...``, ``hetero ...``), then the full-corpus paired t-test (``t ...``)."""
        frame = self.homoscedastic.effects[["system", "effect", "standard_error", "p-value"]].rename(
            columns={"effect": "homo effect", "standard_error": "homo se", "p-value": "homo p-value"})
        hetero = self.heteroscedastic.effects[["system", "effect", "standard_error", "p-value"]].rename(
            columns={"effect": "hetero effect", "standard_error": "hetero se", "p-value": "hetero p-value"})
        t = self.t_test.rename(columns={"difference": "t difference", "standard_error": "t se",
                                        "t": "t statistic", "p-value": "t p-value"})
        return frame.merge(hetero, on="system").merge(t, on="system")

    def _repr_html_(self):
        return self.components_frame()._repr_html_() + self.to_frame()._repr_html_()

    def __repr__(self):
        return (f"CorpusVarianceResult({self.measure!r}, {len(self.systems)} systems x {self.n_topics} topics x "
                f"{self.n_images} images, reference={self.reference!r})")


def corpus_replicates(result: CorpusBootstrapResult, measure: MeasureLike | None = None, *,
                      systems: Sequence[str] | None = None, images: npt.ArrayLike | None = None) -> pd.DataFrame:
    """The long frame ``score, system, topic, replicate`` of one measure's image values.

    ``replicate`` is the image number; ``images`` keeps the first ``images`` images (default all).
    One row per (system, topic, image), systems outermost, images innermost.
    """
    result = check_corpus_result(result)
    m = one_measure(result, measure)
    s_index = system_indices(result, systems)
    x = result.bootstrap_distribution[:, s_index][..., m]  # [B, S, Q]
    if images is not None:
        images = check_positive_int(images, "images", minimum=2)
        x = x[:images]
    import pandas as pd

    B, S, Q = x.shape
    names = np.array([result.systems[s] for s in s_index], dtype=object)
    qids = np.array(result.qids, dtype=object)
    return pd.DataFrame({
        "score": np.moveaxis(x, 0, -1).reshape(-1),
        "system": np.repeat(names, Q * B),
        "topic": np.tile(np.repeat(qids, B), S),
        "replicate": np.tile(np.arange(B), S * Q),
    })


def _as_corpus_result(result, measure, qrels, n_images, rng):
    """``result`` itself, or the corpus bootstrap of runs ``result`` on ``qrels`` for ``measure``."""
    from ...corpus.result import CorpusBootstrapResult

    if not isinstance(result, CorpusBootstrapResult):
        if qrels is None:
            raise TypeError(f"'result' must be a CorpusBootstrapResult, or runs with qrels=...; got "
                            f"{type(result).__name__} and no qrels")
        if not isinstance(measure, str):
            raise ValueError("'measure' is required (one measure label) when runs and qrels are given")
        from ...corpus.bootstrap import CorpusBootstrap

        return CorpusBootstrap(qrels, n_images=n_images, rng=rng, verbose=False).evaluate(result, [measure])
    if qrels is not None:
        raise ValueError("'qrels' is for runs: a CorpusBootstrapResult already holds its evaluation")
    return result


def corpus_variance_decomposition(result: CorpusBootstrapResult, measure: MeasureLike | None = None, *,
                                  qrels: QrelsLike | None = None,
                                  systems: Sequence[str] | None = None,
                                  reference: str | None = None, images: npt.ArrayLike | None = None,
                                  reml: bool = True, solver: str = "auto", n_images: int = 100,
                                  rng: RngLike = None) -> CorpusVarianceResult:
    """Fit ``score ~ system + (1|topic) + (1|topic:system)`` to corpus images, both ways.

    Args:
        result: a :class:`~pyterrier_boot.CorpusBootstrapResult`, or runs with ``qrels=``: the
            corpus bootstrap is then run here for ``measure`` (``n_images`` images from ``rng``).
        measure: the measure label (optional when the result has one measure).
        systems: system names to include (default all, at least 2).
        reference: the system effects are relative to (default: the first system).
        images: use the first ``images`` images only (default all).
        reml, solver: of :func:`~pyterrier_boot.variance_decomposition`.

    Returns:
        CorpusVarianceResult: ``homoscedastic`` and ``heteroscedastic`` fits, ``components_frame()``,
        ``to_frame()`` (both models' effects beside the full-corpus paired t-test).

    Example:
        >>> import numpy as np
        >>> from pyterrier_boot.corpus.result import CorpusBootstrapResult
        >>> rng = np.random.default_rng(0)
        >>> S, Q, B = 3, 20, 50
        >>> cells = 0.4 + np.array([0, 0.05, 0.1])[:, None] + rng.normal(0, 0.1, Q) + rng.normal(0, 0.05, (S, Q))
        >>> images = cells + rng.normal(0, 0.03, (B, S, Q))
        >>> res = CorpusBootstrapResult(cells[..., None], images[..., None], images[:20, ..., None],
        ...     ("a", "b", "c"), tuple(map(str, range(Q))), ("AP",), "poisson", None,
        ...     np.zeros(B, np.uint64), np.array([]), np.full((Q, 1), -1), np.zeros((S, Q, 1), int))
        >>> out = corpus_variance_decomposition(res)
        >>> out.components_frame()[["component", "homoscedastic", "heteroscedastic"]].round(4)
              component  homoscedastic  heteroscedastic
        0         topic         0.0084           0.0084
        1  system:topic         0.0030           0.0030
        2      residual         0.0009           0.0009

    References:
        Kanoulas, E., experimental-design slides (mixed-effects homoscedastic and heteroscedastic
        models on simulated collections); Cormack & Lynam (2006); Zobel & Rashidi (2020).
    """
    result = check_corpus_result(_as_corpus_result(result, measure, qrels, n_images, rng))
    m = one_measure(result, measure)
    s_index = system_indices(result, systems)
    names = [result.systems[s] for s in s_index]
    if reference is None:
        reference = names[0]
    elif reference not in names:
        raise ValueError(f"'reference' {reference!r} is not one of the systems {describe(names)}")
    data = corpus_replicates(result, result.measures[m], systems=names, images=images)
    fits = [variance_decomposition(data, heteroscedastic=h, reference=reference, reml=reml, solver=solver)
            for h in (False, True)]
    full = result.statistic[s_index][:, :, m]
    return CorpusVarianceResult(
        homoscedastic=fits[0], heteroscedastic=fits[1], t_test=t_table(full, names, names.index(reference)),
        measure=result.measures[m], systems=tuple(names), reference=reference, n_topics=full.shape[1],
        n_images=int(data["replicate"].max()) + 1,
    )
