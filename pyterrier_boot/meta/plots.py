"""Plots of meta-evaluation results (matplotlib, imported only when a plot is drawn).

Every function takes a result object, draws on ``ax`` (a new figure when None) and returns the
``Axes``, so plots can be combined and saved with ``ax.figure.savefig(...)``. Install matplotlib
with ``pip install pyterrier-boot[plots]``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._deprecation import keyword_only
from .._figures import axes as _axes
from .._figures import grid as _grid
from .._figures import legend_below

if TYPE_CHECKING:
    from typing import Any

    from matplotlib.axes import Axes

    from .._typing import MeasuresLike
    from ..experiment.result import ExperimentResult
    from .design.user_variance import UserVarianceResult
    from .meta_analysis import MetaAnalysisResult
    from .pools.shallow_pools import ShallowPoolResult
    from .quality.discriminative_power import DiscriminativePowerResult
    from .quality.stability import StabilityResult
    from .quality.swap import SwapResult


__all__ = ["plot_asl_curves", "plot_swap_rates", "plot_mr_pt", "plot_forest", "plot_user_variance",
           "plot_pool_pvalues", "plot_pool_differences"]


@keyword_only("ax")
def plot_asl_curves(result: DiscriminativePowerResult, *, ax: Axes | None = None, log: bool = False,
                    title: str | None = None) -> Axes:
    """Sakai's ASL curves (Fig. 10-13): each measure's ASLs sorted, one line per measure.

    Args:
        result: a :class:`~pyterrier_boot.meta.quality.discriminative_power.DiscriminativePowerResult`.
        ax: matplotlib Axes to draw on (default: a new figure).
        log: logarithmic ASL axis (spreads out the small ASLs).
        title: plot title (default: the test and alpha).

    The dashed line is ``alpha``: where a curve crosses it is the measure's sensitivity; curves
    further right/lower discriminate more pairs.
    """
    ax = _axes(ax)
    curves = result.asl_curves()
    x = curves.index.to_numpy()
    for measure in curves.columns:
        ax.plot(x, curves[measure].to_numpy(), label=str(measure), linewidth=1.5)
    ax.axhline(result.alpha, color="grey", linestyle="--", linewidth=1, label=f"alpha = {result.alpha:g}")
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("system pairs sorted by ASL")
    ax.set_ylabel("achieved significance level (ASL)")
    ax.set_xlim(1, max(2, len(x)))
    ax.set_title(title or f"ASL curves ({result.test}, {result.n_pairs} pairs, {result.n_topics} topics)")
    ax.legend(fontsize="small")
    return ax


@keyword_only("ax")
def plot_swap_rates(result: SwapResult, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """Swap rate per difference bin (Sakai Fig. 19 output), one line per measure, with the threshold."""
    ax = _axes(ax)
    lows = result.bin_edges[:-1]
    for m, measure in enumerate(result.measures):
        ax.plot(lows, result.swap_rate[m], marker="o", markersize=3, label=str(measure))
    ax.axhline(result.threshold, color="grey", linestyle="--", linewidth=1,
               label=f"threshold = {result.threshold:g}")
    ax.set_xlabel(f"difference bin (lower edge; last bin >= {lows[-1]:g})")
    ax.set_ylabel("swap rate")
    ax.set_title(title or f"Swap rates ({result.n_resamples} trials x {result.n_pairs} pairs)")
    ax.legend(fontsize="small")
    return ax


@keyword_only("ax")
def plot_mr_pt(result: StabilityResult, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """MR-PT curves (Sakai Fig. 17-18): minority rate against proportion of ties over fuzziness."""
    ax = _axes(ax)
    for m, measure in enumerate(result.measures):
        ax.plot(result.proportion_ties[m], result.minority_rate[m], marker="o", markersize=3, label=str(measure))
    ax.set_xlabel("proportion of ties (PT)")
    ax.set_ylabel("minority rate (MR)")
    f = result.fuzziness
    ax.set_title(title or f"MR-PT curves (f = {f.min():g} .. {f.max():g})")
    ax.legend(fontsize="small")
    return ax


@keyword_only("ax")
def plot_forest(result: MetaAnalysisResult | ExperimentResult | Any, *, ax: Axes | None = None, max_rows: int = 60,
                title: str | None = None, **kwargs: Any) -> Any:
    """Forest plot: one row per study (topic, collection) with its interval, then the pooled
    diamonds and the prediction interval of a new study; or an experiment's differences from its
    baseline.

    Args:
        result: a :class:`~pyterrier_boot.meta.meta_analysis.MetaAnalysisResult` (topics, then the
            fixed- and random-effects diamonds); an
            :class:`~pyterrier_boot.across.result.AcrossCollections` with ``system=`` (its
            ``forest_table(system)``: collections, the average over them, the pooled diamond and the
            prediction interval); or an :class:`~pyterrier_boot.ExperimentResult` run with a baseline:
            then this is :func:`pyterrier_boot.plotting.plot_differences` (``measure=``, ``baseline=``
            as keywords) and returns its Figure.
        ax: Axes (default: a new figure sized to the number of rows).
        max_rows: show at most this many studies (the most precise ones, i.e. with the largest
            weight), to keep the plot readable; the pooled rows use every study.
        title: plot title.

    The prediction interval is the thin line through the random-effects diamond.
    """
    from ..experiment.result import ExperimentResult

    if isinstance(result, ExperimentResult):
        from ..plotting import plot_differences

        return plot_differences(result, ax=ax, title=title, **kwargs)
    if hasattr(result, "forest_table"):
        system = kwargs.pop("system", None)
        if kwargs or system is None:
            raise TypeError("plot_forest of an analysis across collections takes system= (one of its systems)"
                            + (f", not {sorted(kwargs)}" if kwargs else ""))
        table = result.forest_table(system)
        return _draw_forest(table, ax=ax, max_rows=max_rows, xlabel=f"{table.attrs['what']}",
                            title=title or (f"{system}: {table.attrs['k']} collections, tau² = "
                                            f"{table.attrs['tau2']:.3g}, I² = {100 * table.attrs['i2']:.0f}%"),
                            level=table.attrs["confidence_level"])
    if kwargs:
        raise TypeError(f"plot_forest of a meta-analysis got unexpected arguments {sorted(kwargs)}")
    if not hasattr(result, "to_frame") or not hasattr(result, "tau2"):
        raise TypeError("'result' must be a MetaAnalysisResult, an AcrossCollections or an ExperimentResult, got "
                        f"{type(result).__name__}")
    return _draw_forest(_topic_table(result), ax=ax, max_rows=max_rows, xlabel="effect",
                        title=title or f"Meta-analysis over {result.n_topics} topics: tau² = {result.tau2:.3g}, "
                                       f"I² = {100 * result.i2:.0f}%", level=result.confidence_level)


def _topic_table(result: MetaAnalysisResult) -> Any:
    """A meta-analysis as the rows of :func:`_draw_forest`: topics, the fixed and random diamonds,
    the prediction interval."""
    import pandas as pd

    table = result.to_frame()
    kinds = ["study"] * (len(table) - 2) + ["fixed", "pooled"]
    rows = pd.DataFrame({"label": table["label"], "effect": table["effect"], "ci_low": table["ci_low"],
                         "ci_high": table["ci_high"], "weight": table["weight_random"], "kind": kinds})
    if result.prediction_interval is not None:
        rows.loc[len(rows)] = {"label": "prediction", "effect": result.random.estimate,
                               "ci_low": result.prediction_interval.low, "ci_high": result.prediction_interval.high,
                               "weight": np.nan, "kind": "prediction"}
    return rows


_DIAMONDS = {"fixed": "tab:blue", "average": "tab:blue", "pooled": "tab:red"}


def _draw_forest(table: Any, *, ax: Axes | None, max_rows: int, xlabel: str, title: str, level: float) -> Axes:
    """Studies as squares sized by weight with their intervals; ``fixed``/``average``/``pooled``
    rows as diamonds; the ``prediction`` row as a line through the pooled diamond."""
    studies = table[~table["kind"].isin([*_DIAMONDS, "prediction"])]
    diamonds = table[table["kind"].isin(list(_DIAMONDS))]
    if len(studies) > max_rows:
        studies = studies.sort_values("weight", ascending=False).head(max_rows).sort_index()
    rows = len(studies) + len(diamonds)
    ax = _axes(ax, figsize=(6.4, max(3.0, 0.22 * rows + 1.2)))
    y = np.arange(rows)[::-1]
    yt = y[:len(studies)]
    weight = studies["weight"].to_numpy(float)
    sizes = 10 + 90 * np.nan_to_num(weight) / max(np.nanmax(weight, initial=0.0), 1e-12)
    ax.errorbar(studies["effect"], yt, xerr=[studies["effect"] - studies["ci_low"], studies["ci_high"] - studies["effect"]],
                fmt="none", ecolor="black", elinewidth=1)
    ax.scatter(studies["effect"], yt, s=sizes, marker="s", color="black", zorder=3)
    prediction = table[table["kind"] == "prediction"]
    for (_, row), yy in zip(diamonds.iterrows(), y[len(studies):], strict=True):
        lo, mid, hi = row["ci_low"], row["effect"], row["ci_high"]
        ax.fill([lo, mid, hi, mid], [yy, yy + 0.35, yy, yy - 0.35], color=_DIAMONDS[row["kind"]], zorder=3)
        if row["kind"] == "pooled" and len(prediction):
            ax.plot([prediction["ci_low"].iloc[0], prediction["ci_high"].iloc[0]], [yy, yy], color="tab:red",
                    linewidth=1.2, zorder=2, label=f"{round(100 * level)}% prediction interval")
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels([str(v) for v in studies["label"]] + list(diamonds["label"]), fontsize="small")
    ax.set_ylim(-1, rows)
    ax.set_xlabel(f"{xlabel} ({round(100 * level)}% interval)")
    if len(prediction):
        legend_below(ax, fontsize="small")
    ax.set_title(title, fontsize="medium")
    return ax


@keyword_only("ax")
def plot_user_variance(result: UserVarianceResult, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """Each system's mean score over users (box plot per system), with the score at the mean
    parameter as a red dot; systems sorted by their mean over users."""
    ax = _axes(ax)
    order = np.argsort(-result.statistic)
    data = [result.distribution[i] for i in order]
    import matplotlib

    whis = (100 * (1 - result.confidence_level) / 2, 100 * (1 + result.confidence_level) / 2)
    major, minor = (int(v) for v in matplotlib.__version__.split(".")[:2])
    horizontal = {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}
    ax.boxplot(data, whis=whis, showfliers=False, **horizontal)
    ax.scatter(result.at_mean[order], np.arange(1, len(order) + 1), color="tab:red", zorder=3, s=12,
               label="at the mean parameter")
    ax.set_yticks(np.arange(1, len(order) + 1))
    ax.set_yticklabels([str(result.systems[i]) for i in order], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel(f"{result.measure}: mean over topics, per user")
    ax.set_title(title or f"User variance ({result.distribution.shape[1]} users)")
    ax.legend(fontsize="small")
    return ax


def _pool_measures(result, measures):
    if measures is None:
        return list(range(len(result.measures)))
    measures = [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in measures if m not in result.measures]
    if unknown:
        raise ValueError(f"'measures': {unknown} not in the result, whose measures are {list(result.measures)}")
    return [result.measures.index(m) for m in measures]


def _depth_label(depth):
    return "full qrels" if depth == "full" else f"pool depth {depth}"


@keyword_only("axes")
def plot_pool_pvalues(result: ShallowPoolResult, *, axes: Any = None, measures: MeasuresLike | None = None,
                      log: bool = False, title: str | None = None) -> Any:
    """Zobel & Rashidi's Fig. 6: per image, the paired t-test p-value against the score difference.

    Args:
        result: a :class:`~pyterrier_boot.meta.pools.shallow_pools.ShallowPoolResult`.
        axes: a 2-D array of Axes, one row per measure and one column per depth (default: a new
            figure).
        measures: labels to draw (default all).
        log: logarithmic p-value axis.
        title: figure title (default: the two systems).

    One dot per image; the red lines are the difference and the t-test p-value on the full corpus,
    the dashed grey line is ``1 - confidence_level``. Returns the array of Axes.
    """
    rows = _pool_measures(result, measures)
    if axes is None:
        axes = _grid(len(rows), len(result.depths), sharey=True)
    axes = np.asarray(axes, dtype=object).reshape(len(rows), len(result.depths))
    alpha = 1 - result.confidence_level
    for i, m in enumerate(rows):
        for j, depth in enumerate(result.depths):
            ax = axes[i, j]
            d = result.differences[depth]
            ax.scatter(d.bootstrap_distribution[:, m], d.image_ttest_pvalues[:, m], s=8, color="black", alpha=0.6)
            ax.axvline(d.statistic[m], color="tab:red", linewidth=1)
            ax.axhline(d.ttest_pvalue[m], color="tab:red", linewidth=1)
            ax.axhline(alpha, color="grey", linestyle="--", linewidth=0.8)
            if log:
                ax.set_yscale("log")
            ax.set_title(f"{result.measures[m]}, {_depth_label(depth)}", fontsize="small")
            if i == len(rows) - 1:
                ax.set_xlabel("difference of means on the image", fontsize="small")
            if j == 0:
                ax.set_ylabel("paired t-test p-value", fontsize="small")
    a, b = result.systems
    axes[0, 0].figure.suptitle(title or f"{a} - {b} over {result.n_images} corpus images")
    return axes


@keyword_only("axes")
def plot_pool_differences(result: ShallowPoolResult, *, axes: Any = None, measures: MeasuresLike | None = None,
                          title: str | None = None) -> Any:
    """Zobel & Rashidi's Fig. 7: the per-topic differences over images, one box per pool depth.

    Each box holds every (image, topic) difference ``x_a - x_b``; one panel per measure. Returns the
    array of Axes (one row).
    """
    rows = _pool_measures(result, measures)
    if axes is None:
        axes = _grid(1, len(rows), panel=(3.2, 3.0))
    axes = np.asarray(axes, dtype=object).reshape(-1)
    for ax, m in zip(axes, rows, strict=False):
        data = [result.differences[depth].topic_bootstrap_distribution[..., m].ravel() for depth in result.depths]
        ax.boxplot(data, whis=(2.5, 97.5), showfliers=False)
        ax.set_xticks(np.arange(1, len(result.depths) + 1))
        ax.set_xticklabels([str(depth) for depth in result.depths])
        ax.axhline(0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlabel("pool depth")
        ax.set_ylabel("per-topic difference on an image")
        ax.set_title(str(result.measures[m]), fontsize="small")
    a, b = result.systems
    axes[0].figure.suptitle(title or f"{a} - {b}: per-topic differences (boxes 25-75%, whiskers 2.5-97.5%)")
    return axes
