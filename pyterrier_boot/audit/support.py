"""Where a measure's per-topic scores live: the range [0, 1], and the values a discrete measure takes.

Every margin of the model is fitted on its measure's support: a continuous measure (AP, nDCG, ERR,
R-precision, ...) on ``[0, 1]`` with possible atoms at 0 and 1; ``P@k`` on the multiples of ``1/k``;
``Success@k`` on ``{0, 1}``; ``RR`` (reciprocal rank, ``RR@k``) on ``{0} ∪ {1/r}`` for the ranks
``r`` up to the cutoff (or the deepest rank the scores show). Without a measure the support is read
from the scores: the smaller of the multiples of ``1/k`` (the smallest ``k <= 100``) and the
reciprocal ranks that hold every score, else continuous.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._checks import describe

if TYPE_CHECKING:
    from .._typing import FloatArray

__all__ = ["Support", "support_for", "LATTICE_MAX"]

#: the finest lattice (multiples of 1/k) read from scores without a measure
LATTICE_MAX = 100
#: how far a score may lie from the support value it stands for: scores rounded to 4 decimals, as
#: trec_eval prints them, still read as the values they round
ON_SUPPORT = 5.0001e-5


@dataclass(frozen=True, eq=False)
class Support:
    """The support of a measure's per-topic scores.

    Attributes:
        measure: the measure's label (None when read from the scores).
        values: the values a discrete measure takes, ascending (None for a continuous measure).
        description: in words, for tables and messages.
        separate_zero: 0 and 1 stand apart from the values between them (RR: no relevant document
            retrieved, the first one relevant), so a margin gives them their own atoms rather than
            smoothing across them.
    """

    measure: str | None
    values: FloatArray | None
    description: str
    separate_zero: bool = False
    low: float = 0.0
    high: float = 1.0

    @property
    def discrete(self) -> bool:
        return self.values is not None

    def snap(self, X: FloatArray, systems: list) -> FloatArray:
        """``X`` with each score replaced by the support value it stands for (within
        :data:`ON_SUPPORT`); a score
        outside the range or between two values is a ValueError naming the system and the score."""
        outside = (X < self.low) | (X > self.high)
        if outside.any():
            s, q = np.argwhere(outside)[0]
            raise ValueError(f"scores outside the range [{self.low:g}, {self.high:g}] of {self._name()}: "
                             f"{int(outside.sum())} in all, e.g. {float(X[s, q]):g} for system {systems[s]!r}; "
                             "audit_tests models scores of measures bounded by 0 and 1")
        if self.values is None:
            return X
        index = _nearest(self.values, X)
        off = np.abs(self.values[index] - X) > ON_SUPPORT
        if off.any():
            s = np.argwhere(off)[0][0]
            raise ValueError(f"{self._name()} takes only {self.description}, but system {systems[s]!r} scores "
                             f"{describe(np.unique(X[s][off[s]]).tolist())}; pass the measure the scores are of")
        return self.values[index]

    def _name(self) -> str:
        return repr(self.measure) if self.measure else "the scores"


def _nearest(values: FloatArray, X: FloatArray) -> np.ndarray:
    """Index of the value of ``values`` (ascending) nearest to each score."""
    right = np.clip(np.searchsorted(values, X), 1, len(values) - 1)
    left = right - 1
    return np.where(np.abs(values[left] - X) <= np.abs(values[right] - X), left, right)


def _lattice(k: int) -> Support:
    return Support(None, np.arange(k + 1) / k, f"multiples of 1/{k}")


def _reciprocal_ranks(deepest: int) -> Support:
    values = np.concatenate([[0.0], 1.0 / np.arange(deepest, 0, -1)])
    return Support(None, values, f"0 and 1/r for ranks r = 1..{deepest}", separate_zero=True)


def _deepest_rank(X: FloatArray) -> int:
    positive = X[X > 0]
    return int(np.rint(1 / positive.min())) if positive.size else 1


def _read_from_scores(X: FloatArray) -> Support:
    """The smallest support the scores fit: multiples of ``1/k`` (``k <= 100``) or reciprocal ranks
    (the lattice on a tie), else continuous."""
    inside = X[(X >= 0) & (X <= 1)]
    found = []
    for k in range(1, LATTICE_MAX + 1):
        if np.all(np.abs(inside * k - np.rint(inside * k)) <= ON_SUPPORT * k):
            found.append(_lattice(k))
            break
    positive = inside[inside > 0]
    if positive.size and np.all(np.abs(1 / positive - np.rint(1 / positive)) <= ON_SUPPORT / positive ** 2):
        found.append(_reciprocal_ranks(_deepest_rank(X)))
    if not found:
        return Support(None, None, "any value in [0, 1]")
    return min(found, key=lambda support: len(support.values))  # type: ignore[arg-type]  # discrete


def support_for(measure: str | None, X: FloatArray) -> Support:
    """The support of ``measure``'s scores ``X`` (systems x topics); read from ``X`` when ``measure``
    is None (see the module docstring).

    Example:
        >>> support_for("P@10", np.array([[0.1, 0.3], [0.0, 1.0]])).description
        'multiples of 1/10'
        >>> support_for("AP", np.array([[0.12, 0.3], [0.0, 1.0]])).description
        'any value in [0, 1]'
    """
    if measure is None:
        found = _read_from_scores(X)
        return found
    from ..measures.parsing import parse_measure, require_mean_aggregated

    parsed = parse_measure(measure)
    if len(parsed) != 1:
        raise ValueError(f"'measure' must name one measure, got {measure!r} ({len(parsed)} measures)")
    require_mean_aggregated(parsed, "an audit of tests of mean differences")
    name, cutoff = parsed[0].measure.NAME, parsed[0].measure.params.get("cutoff")
    if name == "P" and cutoff is not None:
        found = _lattice(int(cutoff))
    elif name == "Success":
        found = _lattice(1)
    elif name == "RR":
        found = _reciprocal_ranks(int(cutoff) if cutoff is not None else max(_deepest_rank(X), 1))
    else:
        found = Support(None, None, "any value in [0, 1]")
    return Support(str(measure), found.values, found.description, found.separate_zero)
