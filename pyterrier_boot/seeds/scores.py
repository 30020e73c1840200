"""Every run's per-topic scores, grouped into systems: the input of the seed-variance estimates.

A system trained with several seeds (folds, checkpoints) is given as several runs; its per-topic
score is the mean over its runs, its mean the mean over topics and runs. Systems with one run and
with many mix: a system with one run has no seed variance to estimate (a deterministic system
such as BM25, or one trained once: then its seed variance is unknown and left out).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .anova import MeanSquares, mean_squares

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray, IntArray
    from .groups import RunGroups

__all__ = ["RunScores"]


@dataclass(frozen=True, eq=False)
class RunScores:
    """Per-topic scores of every run and the system each run belongs to.

    Attributes:
        values: ``[run, topic, measure]`` per-topic scores of every run.
        system: ``[run]`` the position (in ``names``) of each run's system.
        runs: the runs' names; names: the systems' names.
    """

    values: FloatArray
    system: IntArray
    runs: tuple
    names: tuple

    @classmethod
    def from_groups(cls, values: npt.ArrayLike, groups: list[list[int]], runs: tuple, names: tuple) -> RunScores:
        """Scores of runs ``groups[s]`` (positions in ``values``) making up system ``names[s]``."""
        system = np.empty(len(runs), dtype=np.int64)
        for s, members in enumerate(groups):
            system[members] = s
        return cls(np.asarray(values, dtype=float), system, tuple(runs), tuple(names))

    @classmethod
    def of_groups(cls, values: npt.ArrayLike, groups: RunGroups) -> RunScores:
        """Scores of the runs of ``groups`` (``values`` in the order of ``groups.runs``)."""
        return cls.from_groups(values, [list(m) for m in groups.members], groups.runs, groups.names)

    @property
    def n_runs(self) -> IntArray:
        """``[system]`` how many runs each system has."""
        return np.bincount(self.system, minlength=len(self.names))

    @property
    def several(self) -> bool:
        """Whether any system has two or more runs (else there is no seed variance to estimate)."""
        return bool((self.n_runs > 1).any())

    def of(self, s: int) -> FloatArray:
        """``[run, topic, measure]`` the scores of system ``s``'s runs."""
        return self.values[self.system == s]

    def run_names(self, s: int) -> list[str]:
        return [name for name, owner in zip(self.runs, self.system, strict=True) if owner == s]

    def averaged(self) -> FloatArray:
        """``[system, topic, measure]`` each system's per-topic mean over its runs."""
        out = np.zeros((len(self.names),) + self.values.shape[1:])
        np.add.at(out, self.system, self.values)
        return out / self.n_runs[:, None, None]

    def mean_squares(self) -> list[MeanSquares]:
        """Per system, the mean squares of its runs x topics table (one value per measure)."""
        return [mean_squares(np.moveaxis(self.of(s), -1, 0)) for s in range(len(self.names))]

