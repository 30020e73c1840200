"""A regression gate: is a candidate system not worse than a baseline by more than a margin?

A non-inferiority test read off the betting confidence sequence (Waudby-Smith & Ramdas 2024,
JRSS-B) of the paired difference ``candidate - baseline`` over topics, with a margin
``delta > 0``:

* **not worse** (exit 0) once the sequence's lower end exceeds ``-delta``;
* **worse** (exit 1) once its upper end falls below ``-delta`` (worse by more than the margin);
* **undecided** (exit 2) otherwise.

The sequence covers the mean difference at every number of topics at once with probability
``1 - alpha``, so the verdict may be read again after every new topic or batch of judgments,
and the comparison stopped whenever it is decided: a wrong verdict ("not worse" when the
candidate is worse by more than ``delta``, or "worse" when it is not) has probability at most
``alpha`` however often one looks. Its ends never move back (running intersection), so a verdict
once reached stays; unless the betting sequence becomes empty (every mean rejected: the scores
do not look like draws with one mean, e.g. topics sorted by difficulty), which warns
(:class:`~pyterrier_boot.DegenerateWarning`) and makes the gate undecided.

A series of commits is a series of comparisons. With ``alpha_spending="constant"`` each gets
``alpha``: the error rate holds per comparison, and over ``K`` commits the chance that at least
one of them gets a wrong verdict can reach ``K alpha``. With ``"series"`` the ``k``-th comparison
gets ``alpha * 6 / (pi^2 k^2)``; these sum to ``alpha`` (Basel series), so by a union bound the
chance of any wrong verdict over the whole (unbounded) series is at most ``alpha``
(family-wise), at the price of wider sequences for later commits.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._checks import check_choice, check_confidence_level
from .result import ConfidenceSequence
from .sequence import check_bounds, confidence_sequence

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["regression_gate", "GateResult", "gate_verdicts", "spent_alpha", "VERDICTS", "EXIT_CODES",
           "SPENDING"]

#: verdict code -> verdict (the code is the exit status of ``pyterrier-boot gate``)
VERDICTS = {0: "not worse", 1: "worse", 2: "undecided"}
#: verdict -> exit status
EXIT_CODES = {verdict: code for code, verdict in VERDICTS.items()}
#: ways to share alpha over a series of commits
SPENDING = ("constant", "series")


def spent_alpha(alpha: float, commit_index: int, alpha_spending: str) -> float:
    """The level of the ``commit_index``-th comparison (1, 2, ...): ``alpha`` (``"constant"``) or
    ``alpha * 6 / (pi^2 k^2)`` (``"series"``, summing to ``alpha`` over all ``k``)."""
    check_choice(alpha_spending, "alpha_spending", SPENDING)
    if isinstance(commit_index, bool) or not isinstance(commit_index, numbers.Integral) or commit_index < 1:
        raise ValueError(f"'commit_index' must be an integer >= 1 (the first comparison is 1), got {commit_index!r}")
    if alpha_spending == "constant":
        return alpha
    return alpha * 6.0 / (math.pi ** 2 * int(commit_index) ** 2)


def gate_verdicts(ci_low: npt.ArrayLike, ci_high: npt.ArrayLike, margin: float) -> np.ndarray:
    """Verdict codes (0 not worse, 1 worse, 2 undecided; :data:`VERDICTS`) of confidence-sequence ends
    of ``candidate - baseline``, elementwise (any shape: one per prefix, per column). NaN ends (an
    empty betting sequence) are undecided."""
    margin = _check_margin(margin)
    low, high = np.asarray(ci_low, dtype=float), np.asarray(ci_high, dtype=float)
    codes = np.full(np.broadcast(low, high).shape, 2, dtype=np.int8)
    codes[low > -margin] = 0
    codes[high < -margin] = 1
    return codes


@dataclass(frozen=True, slots=True)
class GateResult:
    """What :func:`regression_gate` returns.

    Attributes:
        verdict: ``"not worse"``, ``"worse"`` or ``"undecided"`` after all the topics.
        exit_code: 0, 1 or 2 (:data:`EXIT_CODES`).
        decided_at: the number of topics at which the verdict was first reached (None if undecided).
        n, estimate, ci_low, ci_high: topics seen, mean difference and the sequence's ends after all of them.
        margin: ``delta``.
        alpha: the error rate asked for; ``alpha_used`` the level this comparison got
            (smaller than ``alpha`` for later commits with ``alpha_spending="series"``).
        alpha_spending, commit_index: how ``alpha`` is shared over a series of commits.
        sequence: the whole :class:`ConfidenceSequence` of ``candidate - baseline``.
    """

    verdict: str
    exit_code: int
    decided_at: int | None
    n: int
    estimate: float
    ci_low: float
    ci_high: float
    margin: float
    alpha: float
    alpha_used: float
    alpha_spending: str
    commit_index: int
    sequence: ConfidenceSequence

    def guarantee(self) -> str:
        """One sentence: which error rate holds, and over what."""
        if self.alpha_spending == "series":
            return (f"This is comparison {self.commit_index} of a series spending alpha = {self.alpha:g} as "
                    f"alpha * 6 / (pi^2 k^2) (here {self.alpha_used:.3g}): the chance of any wrong verdict over the "
                    f"whole series of commits is at most {self.alpha:g}, however often each is re-checked.")
        return (f"The chance of a wrong verdict in this comparison is at most {self.alpha:g}, however often it is "
                "re-checked as topics or judgments are added; over a series of K commits, each a new comparison, "
                f"up to K x {self.alpha:g} (use alpha spending over the series to bound it by {self.alpha:g}).")

    def interval(self, digits: int = 4) -> str:
        """The sequence's ends after all the topics, ``[low, high]``, or why there are none."""
        if np.isnan(self.ci_low):
            return "empty: no single mean fits these topics (are they in an order that follows their scores?)"
        return f"[{self.ci_low:+.{digits}f}, {self.ci_high:+.{digits}f}]"

    def summary(self, measure: str = "score", *, digits: int = 4) -> str:
        """A Markdown summary for a pull request: verdict, measure, topics, estimate, sequence, margin,
        and the guarantee."""
        icon = {"not worse": "PASS", "worse": "FAIL", "undecided": "UNDECIDED"}[self.verdict]
        level = 1.0 - self.alpha_used
        decided = (f"decided after {self.decided_at} of {self.n} topics" if self.decided_at is not None
                   else f"not decided after {self.n} topics")
        interval = self.interval(digits)
        rows = [("measure", measure), ("topics", str(self.n)),
                ("mean difference (candidate - baseline)", f"{self.estimate:+.{digits}f}"),
                (f"{level:.4g} confidence sequence", interval),
                ("margin", f"{self.margin:.{digits}g} (worse by more than this fails)"),
                ("verdict", f"**{self.verdict}** ({decided}; exit {self.exit_code})")]
        table = ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in rows]
        rule = ("Not worse: the lower end is above -margin. Worse: the upper end is below -margin. "
                "Otherwise undecided: more topics (or judgments) are needed.")
        return "\n".join([f"### Regression gate: {icon}", "", *table, "", rule, "",
                          "Betting confidence sequence over topics (Waudby-Smith & Ramdas 2024). "
                          + self.guarantee(), ""])


def regression_gate(candidate: npt.ArrayLike, baseline: npt.ArrayLike, *, margin: float,
                    confidence_level: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0),
                    alpha_spending: str = "constant", commit_index: int = 1) -> GateResult:
    """Non-inferiority of ``candidate`` against ``baseline`` from their per-topic scores, valid under
    re-checking (module docstring).

    Args:
        candidate, baseline: per-topic scores (1-D, same topics in the same order: the order in
            which topics were added, so that a re-check sees the earlier topics first).
        margin: ``delta > 0``: a candidate worse by at most this much counts as not worse.
        confidence_level: ``1 - alpha``.
        bounds: range of one system's scores (default (0, 1)); the difference lies in
            ``(low - high, high - low)``.
        alpha_spending: ``"constant"`` (each comparison at ``alpha``) or ``"series"`` (the
            ``commit_index``-th at ``alpha * 6 / (pi^2 k^2)``; family-wise over the series).
        commit_index: position of this comparison in the series (1 for the first).

    Returns:
        A :class:`GateResult`.
    """
    lo, hi = check_bounds(bounds)
    margin = _check_margin(margin, (lo, hi))
    alpha = 1.0 - check_confidence_level(confidence_level)
    used = spent_alpha(alpha, commit_index, alpha_spending)
    x, y = (_check_one(v, name) for v, name in ((candidate, "candidate"), (baseline, "baseline")))
    if x.shape != y.shape:
        raise ValueError(f"'candidate' ({x.size} topics) and 'baseline' ({y.size} topics) must have one score per "
                         "topic each, for the same topics")
    _check_within(x, y, lo, hi)
    span = hi - lo
    sequence = confidence_sequence(x, y, bounds=(-span, span), method="betting", confidence_level=1.0 - used)
    codes = gate_verdicts(sequence.ci_low, sequence.ci_high, margin)
    code = int(codes[-1])
    decided_at = None if code == 2 else int(np.argmax(codes != 2)) + 1
    return GateResult(VERDICTS[code], code, decided_at, int(x.size), float(sequence.estimate[-1]),
                      float(sequence.ci_low[-1]), float(sequence.ci_high[-1]), margin, alpha, used,
                      alpha_spending, int(commit_index), sequence)


def _check_margin(margin, bounds=None):
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise TypeError(f"'margin' must be a positive number, got {type(margin).__name__}")
    margin = float(margin)
    if not np.isfinite(margin) or margin <= 0:
        raise ValueError(f"'margin' must be positive (how much worse still counts as not worse, e.g. 0.01), got "
                         f"{margin:g}" + ("; give its size, the sign is implied" if margin < 0 else ""))
    if bounds is not None and margin >= float(bounds[1]) - float(bounds[0]):
        raise ValueError(f"'margin' {margin:g} must be smaller than the range of the scores {tuple(bounds)}: "
                         "any candidate would pass")
    return margin


def _check_one(values, name):
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name!r} must hold numeric per-topic scores") from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name!r} must be a non-empty 1-D array of per-topic scores, got shape {array.shape}")
    bad = ~np.isfinite(array)
    if bad.any():
        raise ValueError(f"{name!r} has {int(bad.sum())} NaN or infinite topic scores, e.g. at position "
                         f"{int(np.argmax(bad))}: remove those topics from both systems or score them")
    return array


def _check_within(x, y, lo, hi):
    for values, name in ((x, "candidate"), (y, "baseline")):
        outside = (values < lo) | (values > hi)
        if outside.any():
            i = int(np.argmax(outside))
            raise ValueError(f"{name!r} has {int(outside.sum())} scores outside bounds ({lo:g}, {hi:g}), e.g. "
                             f"{values[i]:.6g} at position {i}")
