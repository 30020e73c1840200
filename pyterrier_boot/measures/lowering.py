"""Which measures have a fast kernel, and the numbers that describe each one to the kernels.

A measure is *lowered* to a :class:`KernelMeasure`: a kind code plus its parameters (cutoff,
relevance level, one real parameter, a gain scheme). Measures that cannot be lowered are computed
by the ir_measures fallback. Each kind follows the ir_measures provider that computes it by
default (see the ``evaluate`` docstring): trec_eval for AP, nDCG, P, R, RR, Rprec, Success,
Bpref; cwl_eval for RBP, INSQ, INST; gdeval for ERR@k and ``nDCG(dcg='exp-log2')``; ir_measures'
own provider for Judged; Sakai (2007) for Q and nCG.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .arrays import UNJUDGED

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import numpy.typing as npt

    from .._typing import FloatArray


# kind codes shared by the numba kernels and the pure-Python references
AP, NDCG, P, R, RR, RPREC, SUCCESS, RBP, INSQ, INST, JUDGED, ERR, BPREF, Q, NCG = range(15)

#: cwl_eval truncates (and zero-pads) every ranking to this many positions.
CWL_DEPTH = 1000
#: gdeval's ERR scales grades by 2**4 whatever the data (TREC Web track grades 0..4).
ERR_MAX_GRADE = 4


@dataclass(frozen=True)
class KernelMeasure:
    """A measure as the kernels see it.

    Attributes:
        kind: one of the kind codes above.
        cutoff: rank cutoff, 0 for none.
        rel: minimum grade that counts as relevant (binary measures); at least 0, because
            trec_eval treats documents judged with a negative grade as unjudged.
        x: the real parameter: RBP's persistence, Q's beta, INSQ/INST's T; else 0.
        judged_only: unjudged documents are removed before scoring (trec_eval's ``-J``).
        scheme: how a grade becomes a gain: ``"grade"`` (the grade, or ``gains[grade]``),
            ``"exp2"`` (``2**grade - 1``, gdeval), ``"binary"`` (1 when ``grade >= rel``),
            ``"scaled"`` (cwl_eval: clipped to ``[min_rel, max_rel]`` and scaled to ``[0, 1]``).
        gains: grade -> gain overrides for the ``"grade"`` scheme.
        min_rel, max_rel: the ``"scaled"`` scheme's range.
    """

    kind: int
    cutoff: int = 0
    rel: int = 1
    x: float = 0.0
    judged_only: bool = False
    scheme: str = "grade"
    gains: dict = field(default_factory=dict)
    min_rel: int = 0
    max_rel: int = 1

    def gain(self, grade: int | None) -> float:
        """Gain of a judged grade; unjudged documents and negative grades gain 0."""
        if grade is None or grade == UNJUDGED:
            return 0.0
        if self.scheme == "grade":
            return float(max(self.gains.get(grade, grade), 0))
        grade = max(grade, 0)
        if self.scheme == "exp2":
            return 2.0**grade - 1.0
        if self.scheme == "binary":
            return 1.0 if grade >= self.rel else 0.0
        clipped = min(max(grade, self.min_rel), self.max_rel)
        return (clipped - self.min_rel) / (self.max_rel - self.min_rel)

    def position_weights(self) -> FloatArray | None:
        """cwl_eval's weights ``W_i`` over the first 1000 positions (RBP, INSQ), else None.

        ``W_i`` is proportional to the probability of reaching rank ``i``, ``prod_{j<i} C_j``,
        normalised over the 1000 positions cwl_eval looks at (so RBP is
        ``(1-p)/(1-p**1000) * sum p**(i-1) g_i``, equal to the textbook form for p <= 0.95).
        """
        i = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)
        if self.kind == RBP:
            continuation = np.full(CWL_DEPTH, self.x)
        elif self.kind == INSQ:
            continuation = ((i + 2 * self.x - 1) / (i + 2 * self.x)) ** 2
        else:
            return None
        reach = np.concatenate([[1.0], np.cumprod(continuation[:-1])])
        return reach / reach.sum()


def lower(measure: Any) -> KernelMeasure | None:
    """The :class:`KernelMeasure` of an ir_measures measure, or None when there is no kernel."""
    params = dict(measure.params)
    kind = _KINDS_BY_NAME.get(measure.NAME)
    if kind is None:
        return None
    spec: dict[str, Any] = {"cutoff": int(params.pop("cutoff", 0) or 0), "judged_only": bool(params.pop("judged_only", False))}
    if kind in (AP, P, R, RR, RPREC, SUCCESS, BPREF, Q, RBP):
        spec["rel"] = max(int(params.pop("rel", 1)), 0)
    if kind in (NDCG, Q, NCG):
        spec["gains"] = dict(params.pop("gains", None) or {})
    if kind == NDCG and params.pop("dcg", "log2") == "exp-log2":
        if spec["gains"] or spec["judged_only"]:
            return None
        spec["scheme"] = "exp2"
    if kind == Q:
        spec["x"] = float(params.pop("beta", 1.0))
    if kind == RBP:
        spec.update(x=float(params.pop("p", 0.8)), scheme="binary")
        if spec["rel"] < 1 or spec["cutoff"] or not 0 < spec["x"] < 1:
            return None
    if kind in (INSQ, INST):
        spec.update(x=float(params.pop("T", 1.0)), scheme="scaled",
                    min_rel=int(params.pop("min_rel", 0)), max_rel=int(params.pop("max_rel", 1)))
        if spec["cutoff"] or spec["min_rel"] >= spec["max_rel"] or spec["x"] <= 0:
            return None
    if kind == ERR:
        spec["scheme"] = "exp2"
    if params:  # a parameter the kernels do not model
        return None
    if kind in (P, SUCCESS, NCG, ERR) and spec["cutoff"] <= 0:
        return None
    if kind == RPREC and spec["cutoff"]:
        return None
    if spec["judged_only"] and kind in (RBP, INSQ, INST, JUDGED, ERR, BPREF):
        return None
    return KernelMeasure(kind, **spec)


_KINDS_BY_NAME = {
    "AP": AP, "nDCG": NDCG, "P": P, "R": R, "RR": RR, "Rprec": RPREC, "Success": SUCCESS,
    "RBP": RBP, "INSQ": INSQ, "INST": INST, "Judged": JUDGED, "ERR": ERR, "Bpref": BPREF,
    "Q": Q, "nCG": NCG,
}


def kernel_tables(kernel_measures: Sequence[KernelMeasure], grades: npt.ArrayLike) -> tuple[FloatArray, npt.NDArray[np.int32], FloatArray]:
    """Per measure: gain of each of ``grades`` (the distinct judged grades, increasing, so that
    column ``j`` is grade code ``j - n_negative``: :mod:`.arrays`), the grades by gain descending,
    and cwl position weights.

    Returns ``gains`` float64[M, G] (a grade beyond 2**53 gains its nearest double, as trec_eval's
    ``(double) rel``), ``order`` int32[M, G] (columns, highest gain first, how the kernels build
    ideal rankings from a histogram of grades) and ``weights`` float64[M, 1000] (zeros for measures
    without position weights). ``G`` is the number of distinct grades (at least 1), never their size.
    """
    grades = np.asarray(grades, dtype=np.int64).reshape(-1)
    if len(grades) == 0:
        grades = np.zeros(1, np.int64)
    gains = np.array([[km.gain(int(g)) for g in grades] for km in kernel_measures], dtype=np.float64)
    gains = gains.reshape(len(kernel_measures), len(grades))
    order = np.argsort(-gains, axis=1, kind="stable").astype(np.int32)
    weights = np.zeros((len(kernel_measures), CWL_DEPTH))
    for m, km in enumerate(kernel_measures):
        w = km.position_weights()
        if w is not None:
            weights[m] = w
    return gains, order, weights
