"""Figures of a :class:`~.result.TestAudit`: Type I error against the level (Urbano, Lima &
Hanjalic 2019, Figures 2-3) and power against the effect size. matplotlib is imported when drawing."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._figures import axes
from ..stats.registry import test_label

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["plot_type_i", "plot_power"]


def plot_type_i(curve: pd.DataFrame, *, title: str = "", ax: Axes | None = None) -> Axes:
    """Type I error (y) against ``alpha`` (x) per test, from ``TestAudit.type_i_curve()``; the
    diagonal is the nominal rate."""
    ax = axes(ax)
    levels = curve["alpha"].to_numpy()
    ax.plot(levels, levels, color="0.6", linestyle="--", linewidth=1, label="nominal")
    for test in curve.columns.drop("alpha"):
        ax.plot(levels, curve[test].to_numpy(), marker=".", label=test_label(test))
    ax.set_xlabel("significance level alpha")
    ax.set_ylabel("Type I error rate")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return ax


def plot_power(curve: pd.DataFrame, *, alpha: float, title: str = "", ax: Axes | None = None) -> Axes:
    """Power (y) at ``alpha`` against the effect size (x) per test, from ``TestAudit.power_curve()``."""
    ax = axes(ax)
    effects = curve["effect"].to_numpy()
    for test in curve.columns.drop("effect"):
        ax.plot(effects, curve[test].to_numpy(), marker="o", label=test_label(test))
    ax.set_xlabel("true difference of means")
    ax.set_ylabel(f"power at alpha = {alpha:g}")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return ax
