"""The generative model of a collection's score matrix: a margin per system and copulas between them
(Urbano & Nagler 2018; Urbano, Lima & Hanjalic 2019).

:func:`fit_model` fits, for a systems x topics matrix on a measure's support, every system's margin
(:mod:`.margins`), every pair's copula and, when families of systems are simulated, one joint copula
(:mod:`.copulas`) to pseudo-observations with ties broken at random from ``rng``.

Effects are drawn through tilted margins: :meth:`ScoreModel.effect_margins` gives each system the
pair ``(baseline margin, moved margin)`` whose means differ by exactly ``delta``: the system's own
margin and the one tilted up by ``delta``, or, where its mean cannot rise by ``delta`` inside the range,
the one tilted down by ``delta`` and its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .copulas import fit_joint_copula, fit_pair_copulas, pseudo_observations
from .margins import fit_margin

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import numpy as np

    from .._typing import FloatArray
    from .copulas import JointCopula, PairCopulas
    from .margins import Margin
    from .support import Support

__all__ = ["ScoreModel", "fit_model"]


@dataclass(frozen=True, eq=False)
class ScoreModel:
    """A fitted model of a score matrix.

    Attributes:
        systems: the systems' labels; margins[s] is system s's margin.
        support: the measure's support (:class:`~.support.Support`).
        margins: one :class:`~.margins.Margin` per system.
        pairs: the pair copulas (:class:`~.copulas.PairCopulas`).
        joint: the joint copula (:class:`~.copulas.JointCopula`), or None when not fitted.
        n_topics: the number of topics it was fitted to.
    """

    systems: tuple
    support: Support
    margins: tuple[Margin, ...]
    pairs: PairCopulas
    joint: JointCopula | None
    n_topics: int
    _effects: dict = field(default_factory=dict, repr=False)

    def effect_margins(self, delta: float) -> list[tuple[Margin, Margin] | None]:
        """Per system, ``(baseline, moved)`` margins whose means differ by ``delta`` (None where
        neither tilt reaches it); cached per ``delta``."""
        if delta not in self._effects:
            pairs: list[tuple[Margin, Margin] | None] = []
            for margin in self.margins:
                up = margin.shifted(delta)
                down = None if up is not None else margin.shifted(-delta)
                pairs.append((margin, up) if up is not None else ((down, margin) if down is not None else None))
            self._effects[delta] = pairs
        return self._effects[delta]


def fit_model(X: FloatArray, systems: list, support: Support, rng: np.random.Generator, *,
              joint: bool = True, pairs: set[tuple[int, int]] | None = None,
              executor: Executor | None = None) -> ScoreModel:
    """Fit :class:`ScoreModel` to ``X`` (systems x topics, on ``support``); ``joint`` fits the joint
    copula too; the copulas of ``pairs`` (``(i, j)``, ``i < j``; default all) are fitted in batches
    on ``executor`` when given."""
    margins = tuple(fit_margin(x, support) for x in X)
    U = pseudo_observations(X, rng)
    pairs = fit_pair_copulas(U, systems, executor, pairs)
    joint_copula = fit_joint_copula(U) if joint else None
    return ScoreModel(tuple(systems), support, margins, pairs, joint_copula, X.shape[1])
