"""The recommendation a paper can quote: which tests kept their Type I error here, ranked by power.

A test *keeps* its error rate when its simulated Type I error is at most ``alpha`` plus two Monte
Carlo standard errors; among those, tests are ranked by their mean power over the effect sizes.
The sentence states the collection, the measure, the simulation settings and the rates, so it can
be pasted as it is.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..stats.registry import test_label

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["recommendation", "kept"]


def kept(rows: pd.DataFrame) -> pd.Series:
    """Which rows' Type I error is within ``alpha`` plus two standard errors."""
    return rows["type_i"] <= rows["alpha"] + 2 * rows["type_i_se"]


def _settings(rows: pd.DataFrame, audit: Any) -> str:
    n = int(rows["n_topics"].iloc[0])
    measure = f" of {audit.measure}" if audit.measure else ""
    return (f"On {len(audit.systems)} systems x {audit.n_topics_observed} topics{measure}, "
            f"{audit.n_simulations:,} simulated sets of {n} topics (a margin per system and a copula per pair "
            f"fitted to the scores, as Urbano, Lima & Hanjalic 2019; {audit.n_resamples:,} resamples for the "
            "bootstrap and randomization tests)")


def _rate(row: pd.Series) -> str:
    return f"the {test_label(row['test'])} ({row['type_i']:.3f})"


def _listed(rows: pd.DataFrame) -> str:
    """``"the A (x), the B (y) and the C (z)"``."""
    items = [_rate(row) for _, row in rows.iterrows()]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def recommendation(rows: pd.DataFrame, audit: Any) -> str:
    """The sentence for ``rows`` (one topic count and alternative, pair simulations, correction
    ``"none"``) of ``audit``'s table."""
    power = [f"power@{d:g}" for d in audit.effects]
    rows = rows.assign(mean_power=rows[power].mean(axis=1) if power else 0.0)
    good = rows[kept(rows)].sort_values("mean_power", ascending=False)
    bad = rows[~kept(rows)].sort_values("type_i")
    alpha, alternative = rows["alpha"].iloc[0], rows["alternative"].iloc[0]
    if good.empty:
        best = bad.iloc[0]
        return (f"{_settings(rows, audit)} showed no test keeping its Type I error within alpha = {alpha:g} plus "
                f"two standard errors ({alternative}); the closest was {_rate(best)}.")
    best = good.iloc[0]
    text = (f"{_settings(rows, audit)} gave the {test_label(best['test'])} a Type I error of "
            f"{best['type_i']:.3f} ± {best['type_i_se']:.3f} at alpha = {alpha:g} ({alternative}), within alpha plus "
            "two standard errors")
    if power:
        shown = sorted({power[0], power[-1]}, key=power.index)
        reach = ", ".join(f"{best[p]:.2f} at a difference of {p.split('@')[1]}" for p in shown)
        text += f", and the highest power of the tests that kept it ({reach})"
    if len(good) > 1:
        text += f"; {_listed(good.iloc[1:])} also kept it"
    if not bad.empty:
        text += f", while {_listed(bad)} exceeded it"
    return text + "."
