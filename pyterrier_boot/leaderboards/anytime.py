"""The parts of a sequential (anytime-valid) leaderboard: ``leaderboard(..., sequential=True)``.

Everything on such a board comes from hedged betting confidence sequences (Waudby-Smith &
Ramdas 2024, JRSS-B) over the topics in the order they were judged, so the board may be looked at
after every new topic: each run's mean has its own sequence
(:func:`~pyterrier_boot.sequential.sequence.confidence_sequence`, per run at ``confidence_level``);
every pair of runs is compared by
:func:`~pyterrier_boot.sequential.comparisons.sequential_comparisons` (Bonferroni over the pairs,
family-wise error, or e-BH, Wang & Ramdas 2022, false discovery rate, at ``alpha``); the letters
and the rank intervals are read from those pairs' decisions alone. A run's rank interval is
``[1 + runs decided better, n_runs - runs decided worse]``: with Bonferroni every sequence holds at
every topic at once with probability ``1 - alpha``, so these are simultaneous anytime-valid rank
intervals; with e-BH they count claims whose false discovery rate is controlled, with no coverage
guarantee.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._results import ConfidenceInterval
from ..sequential.comparisons import CORRECTIONS, sequential_comparisons
from ..sequential.sequence import confidence_sequence
from ..stats.letters import compact_letter_display, letters_label
from ..stats.ranking import RankIntervals

__all__ = ["CORRECTIONS", "LABEL", "check_sequential", "in_judged_order", "check_bounded",
           "sequential_pairwise", "decided_ranks", "mean_sequences", "sequential_parts", "sequential_caption"]

#: what the rank interval columns of a sequential board say they are
LABEL = "topics, anytime"
#: the range every score of a sequential board must lie in
BOUNDS = (0.0, 1.0)


def check_sequential(correction: str | None, bootstrap: str, test: str, **unused: Any) -> str:
    """``correction`` if a sequential board takes it and the other two are theirs by default, else a
    ValueError naming the argument that has no sequential form."""
    if bootstrap != "topic":
        raise ValueError(f"'bootstrap' must be 'topic' with sequential=True (the corpus bootstrap has no "
                         f"sequential form), got {bootstrap!r}")
    for name, value in unused.items():  # bootstrap options, given: they would be ignored
        if value is not None:
            raise ValueError(f"'{name}' does not apply with sequential=True (no bootstrap), got {value!r}")
    if test != "t":
        raise ValueError(f"'test' does not apply with sequential=True (pairs are compared by betting confidence "
                         f"sequences): leave it at its default, got {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"'correction' must be one of {', '.join(map(repr, CORRECTIONS))} with sequential=True "
                         f"(default 'bonferroni'; the fixed-n corrections do not apply), got {correction!r}")
    return correction


def in_judged_order(result: Any, judged_order: list[str]) -> Any:
    """``result`` (an :class:`~pyterrier_boot.ExperimentResult`) with its topics in ``judged_order``."""
    position = {q: i for i, q in enumerate(result.qids)}
    order = [q for q in judged_order if q in position]
    return replace(result, qids=tuple(order), values=result.values[:, [position[q] for q in order], :])


def check_bounded(result: Any) -> None:
    """A ValueError naming the first measure that is summed or has a score outside [0, 1]."""
    for j, m in enumerate(result.measures):
        values = result.values[:, :, j]
        if result.summed[j] or values.min() < BOUNDS[0] or values.max() > BOUNDS[1]:
            what = ("is summed over topics, not averaged" if result.summed[j] else
                    f"has scores outside [0, 1] (from {values.min():g} to {values.max():g})")
            raise ValueError(f"'measures': {m!r} {what}; sequential boards need measures averaged over topics and "
                             "bounded in [0, 1] (e.g. AP, nDCG@10, P@10, RR)")


def sequential_pairwise(result: Any, correction: str, alpha: float) -> pd.DataFrame:
    """Every pair of runs per measure: ``measure, system_a, system_b, mean_a, mean_b``, then the
    columns of :func:`~pyterrier_boot.sequential.comparisons.sequential_comparisons` (family level
    ``1 - alpha``) over the topics in ``result``'s order."""
    frames = []
    for j, m in enumerate(result.measures):
        frame = sequential_comparisons(result.values[:, :, j].T, result.names, bounds=BOUNDS,
                                       confidence_level=1 - alpha, correction=correction)
        means = dict(zip(result.names, result.means[:, j], strict=True))
        frame.insert(0, "measure", m)
        frame.insert(3, "mean_a", frame["system_a"].map(means))
        frame.insert(4, "mean_b", frame["system_b"].map(means))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def decided_ranks(pairwise: pd.DataFrame, names: tuple, measures: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` ``[run, measure]``: ``1 +`` runs decided better, ``n_runs -`` runs decided worse."""
    low, high = np.ones((len(names), len(measures))), np.full((len(names), len(measures)), float(len(names)))
    row, column = {n: i for i, n in enumerate(names)}, {m: j for j, m in enumerate(measures)}
    for m, a, b, decision in zip(pairwise["measure"], pairwise["system_a"], pairwise["system_b"],
                                 pairwise["decision"], strict=True):
        j = column[m]
        if decision in ("better", "worse"):
            winner, loser = (a, b) if decision == "better" else (b, a)
            low[row[loser], j] += 1
            high[row[winner], j] -= 1
    return low, high


def mean_sequences(result: Any, confidence_level: float) -> np.ndarray:
    """``[run, measure, 2]``: each run's betting confidence sequence after the last topic."""
    out = np.empty((len(result.names), len(result.measures), 2))
    for j in range(len(result.measures)):
        sequence = confidence_sequence(result.values[:, :, j].T, bounds=BOUNDS, confidence_level=confidence_level)
        out[:, j, 0], out[:, j, 1] = sequence.ci_low[-1], sequence.ci_high[-1]
    return out


def sequential_parts(result: Any, correction: str, alpha: float, confidence_level: float,
                     letters_method: str) -> dict[str, Any]:
    """The fields of a sequential :class:`~pyterrier_boot.leaderboards.Leaderboard` but the settings."""
    from scipy import stats

    check_bounded(result)
    pairwise = sequential_pairwise(result, correction, alpha)
    letters = pd.DataFrame({m: compact_letter_display(pairwise, measure=m, method=letters_method)
                            for m in result.measures})
    low, high = decided_ranks(pairwise, result.names, result.measures)
    shape = (0, len(result.names), len(result.measures))  # no replicates: the intervals count decisions
    ranks = RankIntervals(statistic=stats.rankdata(-result.means, axis=0, method="average"),
                          bootstrap_distribution=np.empty(shape), confidence_interval=ConfidenceInterval(low, high),
                          systems=tuple(result.names), measures=tuple(result.measures), statistic_name="mean",
                          confidence_level=1 - alpha)
    return {"result": result, "pairwise": pairwise, "letters": letters, "ranks": ranks, "topic_ranks": None,
            "mean_intervals": mean_sequences(result, confidence_level)}


def sequential_caption(board: Any) -> str:
    """What the columns of a sequential board mean, in one paragraph."""
    res, n, runs = board.result, len(board.result.qids), len(board.result.names)
    k = runs * (runs - 1) // 2
    family = (f"Bonferroni over {k} pairs per measure (family-wise error at most {board.alpha:g}: every pair's "
              f"sequence at level {board.alpha:g}/{k})" if board.correction == "bonferroni" else
              f"e-BH (Wang & Ramdas 2022) over the 2 x {k} one-sided e-values of the pairs per measure (false "
              f"discovery rate of the claims better/worse at most {board.alpha:g}; each pair's interval is the e-BY "
              "interval at the last topic, which excludes 0 exactly when the pair is decided)")
    ranks = (f"simultaneous anytime-valid rank intervals at {100 * (1 - board.alpha):g}%"
             if board.correction == "bonferroni" else
             "counts of FDR-controlled claims, with no coverage guarantee")
    return " ".join([
        f"{runs} runs on {n} topic{'s' if n != 1 else ''}, ranked by mean {board.measures[0]}.",
        f"Anytime-valid: hedged betting confidence sequences (Waudby-Smith & Ramdas 2024) over the {n} topics "
        "in the order judged, valid however often the board is looked at as topics are added.",
        f"Means with each run's own {100 * res.confidence_level:g}% confidence sequence (per run, not "
        "simultaneous).",
        f"Every pair of runs compared by its sequence of differences, {family}.",
        f"Rank [low, high] ({LABEL}): 1 + the runs decided better, {runs} - the runs decided worse (1 = best; "
        f"the rank of the mean, ties sharing the average rank): {ranks}.",
        "Group: runs that share a letter are not decided apart; runs with no letter in common are "
        f"({letters_label(board.letters_method)}).",
    ])

