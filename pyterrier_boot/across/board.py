"""A leaderboard over several collections: systems ranked by their average over these collections
(or their pooled mean over a population of collections), with rank intervals and letter groups.

Every pair of systems is tested on its per-collection differences the way the board's figure is
made: ``which="average"`` by the t test of the average difference (Welch-Satterthwaite degrees
of freedom, :mod:`~pyterrier_boot.across.average`), ``"pooled"`` by the random-effects test
(:mod:`~pyterrier_boot.across.pooled`); the p-values are corrected over the pairs (Holm by
default). The letters and the rank intervals are read from those verdicts alone: systems sharing a
letter are not significantly different, and a system's rank interval is ``[1 + systems
significantly better, n - systems significantly worse]``, which holds for every system at once
with probability at least ``1 - alpha`` under a family-wise correction (Holm, Bonferroni).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from ..leaderboards.anytime import decided_ranks
from ..stats.correction import correct_pvalues
from ..stats.letters import DEFAULT_METHOD, check_method, compact_letter_display, letters_label
from .average import average_effects
from .display import CaptionedTable, describe_variance, interval_cells
from .effects import effects_of, standardized

if TYPE_CHECKING:
    from .result import AcrossCollections

__all__ = ["CollectionsBoard", "collections_board", "WHICH"]

#: the figures a board ranks by
WHICH = ("average", "pooled")
_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "sidak": "Šidák", "holm-sidak": "Holm-Šidák",
          "fdr_bh": "Benjamini-Hochberg", "fdr_by": "Benjamini-Yekutieli"}


@dataclass(frozen=True, eq=False)
class CollectionsBoard:
    """Systems ranked over collections (build with :meth:`AcrossCollections.leaderboard
    <pyterrier_boot.across.result.AcrossCollections.leaderboard>`).

    Attributes:
        table: one row per system, best first: ``rank, system, estimate, ci_low, ci_high``
            (``pi_low, pi_high`` when pooled), ``rank ci_low, rank ci_high, group``.
        pairwise: every pair: ``measure, system_a, system_b, mean_a, mean_b, difference, se, df,
            ci_low, ci_high, p-value, p-value corrected, reject, decision``.
        which, correction, alpha, letters_method: how the board was made; caption: what it shows.
    """

    table: pd.DataFrame
    pairwise: pd.DataFrame
    which: str
    correction: str | None
    alpha: float
    letters_method: str
    caption: str

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def display(self, *, digits: int = 3) -> CaptionedTable:
        """``rank, system, <figure> [interval], rank [low, high], group`` as strings, with the caption."""
        t = self.table
        frame = pd.DataFrame({"rank": [f"{r:g}" for r in t["rank"]], "system": t["system"]})
        frame[self.which] = interval_cells(t["estimate"].to_numpy(), t["ci_low"].to_numpy(),
                                           t["ci_high"].to_numpy(), digits)
        if "pi_low" in t:
            frame["prediction"] = [c[c.index("["):] for c in interval_cells(
                t["estimate"].to_numpy(), t["pi_low"].to_numpy(), t["pi_high"].to_numpy(), digits)]
        frame["rank interval"] = [f"[{lo:g}, {hi:g}]" for lo, hi in zip(t["rank ci_low"], t["rank ci_high"],
                                                                        strict=True)]
        frame["group"] = t["group"]
        return CaptionedTable(frame, self.caption)

    def to_markdown(self, *, digits: int = 3) -> str:
        return self.display(digits=digits).to_markdown()

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        return self.display(digits=digits).to_latex(caption=caption, label=label)

    def _repr_html_(self) -> str:
        return self.display()._repr_html_()

    def __repr__(self) -> str:
        import re

        groups = len({g for text in self.table["group"] for g in re.findall(r"[A-Za-z][0-9]*", text)})
        return f"CollectionsBoard({len(self.table)} systems by their {self.which}; {groups} groups)"


def _pair_tests(result: AcrossCollections, which: str) -> pd.DataFrame:
    """Every pair ``a < b`` (in the result's order) tested as the board's figure is made."""
    e = result.effects
    a, b = np.triu_indices(len(e.systems), k=1)
    y, se, df = e.difference[:, a, b], e.difference_se[:, a, b], e.difference_df[:, a, b]
    if result.standardize:
        y, se = standardized(y, se, e.difference_sd[:, a, b], e.n_topics[:, None])
    if which == "average":
        out = average_effects(y, se, df, confidence_level=result.confidence_level)
        se_out = out["se"]
    else:
        out = result.pool(y, se, predict=False)
        se_out = out["standard_error"]
    return pd.DataFrame({"measure": result.measure, "system_a": np.array(e.systems, dtype=object)[a],
                         "system_b": np.array(e.systems, dtype=object)[b], "difference": out["estimate"],
                         "se": se_out, "df": out["df"], "ci_low": out["ci_low"], "ci_high": out["ci_high"],
                         "p-value": out["pvalue"]})


def _verdicts(frame: pd.DataFrame, correction: str | None, alpha: float) -> pd.DataFrame:
    p = frame["p-value"].to_numpy(float)
    if correction is None:
        corrected, reject = p, np.nan_to_num(p, nan=1.0) < alpha
    else:
        res = correct_pvalues(p, method=correction, alpha=alpha)
        corrected, reject = res.pvalues, res.reject
    frame["p-value corrected"], frame["reject"] = corrected, np.asarray(reject, dtype=bool)
    sign = np.sign(frame["difference"].to_numpy(float))
    frame["decision"] = np.where(frame["reject"] & (sign > 0), "better",
                                 np.where(frame["reject"] & (sign < 0), "worse", "undecided"))
    return frame


def _figures(result: AcrossCollections, which: str) -> dict[str, Any]:
    """Each system's mean over the collections as the board ranks it."""
    means = effects_of(result.effects, baseline=None, standardize=False, confidence_level=result.confidence_level)
    if which == "average":
        return average_effects(means.estimate, means.se, means.df, confidence_level=result.confidence_level)
    return result.pool(means.estimate, means.se)


def _caption(result: AcrossCollections, which: str, correction: str | None, alpha: float, method: str) -> str:
    level = f"{100 * result.confidence_level:g}%"
    figure = (f"mean {result.measure} over these {result.k} collections ({level} t interval, "
              f"{describe_variance(result.variance, result.seeds)})" if which == "average" else
              f"random-effects mean {result.measure} over a population of collections ({result.tau2_method} τ², "
              f"{'Hartung-Knapp-Sidik-Jonkman' if result.hksj else 'normal'} {level} interval; prediction: a new "
              "collection's mean)")
    test = ("the t test of the average difference (Welch-Satterthwaite df)" if which == "average" else
            "the random-effects test of the per-collection differences")
    scale = " on standardised differences (Hedges' g)" if result.standardize else ""
    return " ".join([
        f"{len(result.systems)} systems ranked by their {figure}.",
        f"Every pair tested by {test}{scale}, {_NAMES.get(correction or 'none', correction or 'no')} correction, alpha {alpha:g}.",
        "Rank interval: 1 + the systems significantly better, n - the systems significantly worse"
        + (" (simultaneous at 1 - alpha)." if correction in ("holm", "bonferroni", "sidak", "holm-sidak") else "."),
        f"Group: systems that share a letter are not significantly different ({letters_label(method)}).",
    ])


def collections_board(result: AcrossCollections, *, which: str = "average", correction: str | None = "holm",
                      alpha: float | None = None, letters_method: str | None = None) -> CollectionsBoard:
    """Rank the systems of ``result`` by their average (``which="average"``) or pooled mean
    (``"pooled"``) over the collections, with rank intervals and letters from the pairs' tests
    corrected by ``correction`` at ``alpha`` (default ``1 - confidence_level``)."""
    if which not in WHICH:
        raise ValueError(f"'which' must be 'average' (these collections) or 'pooled' (a population of "
                         f"collections), got {which!r}")
    method = check_method(DEFAULT_METHOD if letters_method is None else letters_method, "letters_method")
    alpha = 1 - result.confidence_level if alpha is None else alpha
    if not 0 < alpha < 1:
        raise ValueError(f"'alpha' must be between 0 and 1, got {alpha!r}")
    figures = _figures(result, which)
    order = np.argsort(-np.nan_to_num(figures["estimate"], nan=-np.inf), kind="stable")
    names = [result.systems[s] for s in order]
    means = dict(zip(result.systems, figures["estimate"], strict=True))
    pairs = _verdicts(_pair_tests(result, which), correction, alpha)
    pairs.insert(3, "mean_a", pairs["system_a"].map(means))
    pairs.insert(4, "mean_b", pairs["system_b"].map(means))
    letters = compact_letter_display(pairs, measure=result.measure, order=names, method=method)
    low, high = decided_ranks(pairs, tuple(names), (result.measure,))
    table = pd.DataFrame({"rank": stats.rankdata(-figures["estimate"][order], method="average"), "system": names,
                          "estimate": figures["estimate"][order], "ci_low": figures["ci_low"][order],
                          "ci_high": figures["ci_high"][order]})
    if which == "pooled":
        table["pi_low"], table["pi_high"] = figures["pi_low"][order], figures["pi_high"][order]
    table["rank ci_low"], table["rank ci_high"], table["group"] = low[:, 0], high[:, 0], letters.to_numpy()
    return CollectionsBoard(table, pairs, which, correction, alpha, method,
                            _caption(result, which, correction, alpha, method))
