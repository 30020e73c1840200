"""Plots of an experiment (matplotlib, imported only when a plot is drawn).

Each function takes an :class:`~pyterrier_boot.ExperimentResult` (``experiment_result(...)``),
draws one picture and returns its ``Axes`` (an array of them for
:func:`plot_pvalues`; the ``Figure`` for the three figures for papers below); save with
``ax.figure.savefig("plot.png")``. The same plots are methods of
the result (``result.plot_means()``, ...) and are what ``pyterrier-boot evaluate --out`` puts in
its HTML report (:mod:`pyterrier_boot.report`).

* :func:`plot_means`: each system's mean with its interval, sorted (a forest plot);
* :func:`plot_pairwise`: the matrix of mean differences between systems, significant pairs marked;
* :func:`plot_topics`: one system's per-topic scores, with their spread over corpus images
  (Zobel & Rashidi 2020, Fig. 2);
* :func:`plot_ranks`: each system's rank over bootstrap replicates (Zobel & Rashidi 2020, Fig. 5);
* :func:`plot_pvalues`: the paired t-test p-value against the score difference on each corpus
  image (Zobel & Rashidi 2020, Fig. 6);
* :func:`plot_differences`: each system's difference from the baseline with the interval its test
  inverts (a forest plot of differences; also ``plot_forest(result)``);
* :func:`plot_topic_differences`: per-topic differences from the baseline, sorted;
* :func:`plot_rank_intervals`: each system's rank with its rank interval.

The first five return their ``Axes``; the last three, figures made for papers, return the
``Figure`` (``fig.savefig("plot.pdf")``). All take ``ax=`` to draw into an existing Axes.

Install matplotlib with ``pip install 'pyterrier-boot[plots]'``. The figure conventions (a new
figure with constrained layout when ``ax`` is None) are those of :mod:`pyterrier_boot.meta.plots`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._figures import axes as _axes
from ._figures import grid as _grid
from .stats.registry import test_label

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ._typing import MeasureLike, MeasuresLike
    from .experiment.result import ExperimentResult


__all__ = ["plot_means", "plot_pairwise", "plot_topics", "plot_ranks", "plot_pvalues", "plot_differences",
           "plot_topic_differences", "plot_rank_intervals", "baseline_differences", "topic_differences"]

_BEST = "tab:blue"
_COLLECTION = "tab:red"


# ---------------------------------------------------------------- helpers


def _measure(result, measure):
    """Index of ``measure`` (default: the first) among the result's measures."""
    if measure is None:
        return 0
    if measure not in result.measures:
        raise ValueError(f"unknown measure {measure!r}: the result has {list(result.measures)}")
    return result.measures.index(measure)


def _system(result, name, argument):
    if name not in result.names:
        shown = ", ".join(repr(n) for n in result.names[:8]) + (", ..." if len(result.names) > 8 else "")
        raise ValueError(f"unknown system {name!r} for {argument!r}: the result has [{shown}]")
    return result.names.index(name)


def _tick_size(n):
    """Font size of tick labels for ``n`` labels (smaller when crowded)."""
    return "small" if n <= 25 else 7


def _level(result):
    return f"{100 * result.confidence_level:g}%"


def _baselines(result):
    if result.comparisons is None:
        return []
    return list(dict.fromkeys(result.names[b] for b in result.comparisons.baseline_index))


def _replicates(result):
    """What one bootstrap replicate is, for titles."""
    n = result.distribution_.shape[0]
    kind = {"topic": "topic resamples", "corpus": "corpus images", "both": "topic resamples on corpus images"}
    draws = " with seed draws (seeds random)" if getattr(result, "seeds", None) == "random" else ""
    return f"{n:,} {kind.get(result.bootstrap, 'replicates')}{draws}"


def _seeds_words(result):
    """For titles: whether the seed variance is in the figures (systems given as several runs)."""
    return {"random": "; seeds random: a new seed", "fixed": "; seeds fixed: these runs' average"}.get(
        getattr(result, "seeds", None), "")


# ---------------------------------------------------------------- means


def _means_title(result, n):
    """What the means' intervals are, for the title of :func:`plot_means`."""
    if result.intervals is not None and result.distribution_ is not None:
        if getattr(result, "seeds", None) == "random":
            return f"with {_level(result)} {result.interval} intervals with a seed term{_seeds_words(result)}"
        return f"with {_level(result)} {result.bootstrap}-bootstrap intervals ({result.interval}{_seeds_words(result)})"
    if result.bootstrap is not None:
        return f"(no intervals: {n} topic, at least 2 are needed)"
    return "(no bootstrap: means only)"


def plot_means(result: ExperimentResult, measure: MeasureLike | None = None, *, ax: Axes | None = None,
               truth: Any = None, title: str | None = None) -> Axes:
    """Each system's mean with its bootstrap interval, best at the top (a sorted forest plot).

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult`.
        measure: measure label (default: the first measure).
        ax: Axes to draw on (default: a new figure, taller with more systems).
        truth: optional mapping ``system -> value`` drawn as open diamonds (e.g. the population
            values of a simulated collection, :meth:`SimulatedCollection.truth`).
        title: plot title (default: the measure and how the intervals were made).

    Baselines are drawn in red with a dashed line at their mean. Without a bootstrap only the
    means are drawn. E.g. ``res.plot_means().figure.savefig("means.png")``.
    """
    j = _measure(result, measure)
    label = result.measures[j]
    means = result.means[:, j]
    S = len(result.names)
    ax = _axes(ax, figsize=(6.4, max(2.6, 0.24 * S + 1.3)))
    order = np.argsort(-means, kind="stable")
    y = np.arange(S)[::-1]
    baselines = set(_baselines(result))
    colors = [_COLLECTION if result.names[s] in baselines else "black" for s in order]
    if result.intervals is not None:
        low, high = result.intervals[order, j, 0], result.intervals[order, j, 1]
        ax.hlines(y, low, high, colors=colors, linewidth=1.6, label=f"{_level(result)} interval")
    ax.scatter(means[order], y, color=colors, s=18, zorder=3, label="mean")
    for name in baselines:
        ax.axvline(means[result.names.index(name)], color=_COLLECTION, linestyle="--", linewidth=0.8)
    if truth is not None:
        values = [truth.get(result.names[s], np.nan) if hasattr(truth, "get") else np.nan for s in order]
        ax.scatter(values, y, marker="D", facecolors="none", edgecolors=_BEST, s=26, zorder=4,
                   label="true (population) mean")
    ax.set_yticks(y)
    ax.set_yticklabels([result.names[s] for s in order], fontsize=_tick_size(S))
    for tick, s in zip(ax.get_yticklabels(), order, strict=True):
        if result.names[s] in baselines:
            tick.set_color(_COLLECTION)
            tick.set_fontweight("bold")
    ax.set_ylim(-0.7, S - 0.3)
    ax.grid(axis="x", linewidth=0.4, alpha=0.5)
    n = len(result.qids)
    ax.set_xlabel(f"{label}: mean over {n} topic{'s' if n != 1 else ''}")
    ax.set_title(title or f"{label}: mean of each system {_means_title(result, n)}", fontsize="medium")
    if truth is not None or baselines:
        handles, names = ax.get_legend_handles_labels()
        if baselines:
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], color=_COLLECTION, linestyle="--", linewidth=0.8))
            names.append("baseline")
        ax.legend(handles, names, fontsize="small", loc="lower right")
    return ax


# ---------------------------------------------------------------- pairwise


def _pair_table(result, measure, pairwise, test, correction, alpha):
    """``(a, b, p)`` of every tested pair of ``measure``: from ``pairwise`` (a :func:`compare` or
    ``result.pairwise()`` table, or a ``Comparisons.frame``), the result's baseline comparisons, or
    ``result.pairwise(test, correction)``; also the correction used."""
    if pairwise is None:
        if result.comparisons is not None:
            pairwise = result.comparisons.frame
            correction = result.comparisons.correction
        else:
            pairwise = result.pairwise(test=test, correction=correction, alpha=alpha)
    rows = pairwise[pairwise["measure"] == measure]
    if "system_a" in rows:
        a, b = rows["system_a"], rows["system_b"]
    else:
        a, b = rows["name"], rows["baseline"]
    p = rows["p-value"].to_numpy(float)
    if "p-value corrected" in rows and rows["p-value corrected"].notna().any():
        p = rows["p-value corrected"].to_numpy(float)
    else:
        correction = None
    return list(a), list(b), p, correction


def plot_pairwise(result: ExperimentResult, measure: MeasureLike | None = None, *, pairwise: Any = None,
                  test: str = "t", correction: str | None = "holm", alpha: float = 0.05,
                  ax: Axes | None = None, annotate: bool | None = None, title: str | None = None) -> Axes:
    """The matrix of mean differences (row minus column), systems sorted by mean, significant
    pairs marked with a dot.

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult`.
        measure: measure label (default: the first).
        pairwise: the tests to mark: a ``result.pairwise()`` / :func:`~pyterrier_boot.compare`
            table (all pairs) or a ``result.comparisons.frame`` (against baselines). Default: the
            result's baseline comparisons when it has some, else ``result.pairwise(test=test,
            correction=correction, alpha=alpha)``.
        test, correction: the test and multiple-testing correction of the default all-pairs table
            (and named in the title).
        alpha: a pair is marked when its (corrected, when available) p-value is below ``alpha``.
        ax: Axes (default: a new square figure sized to the number of systems).
        annotate: write the difference in each cell (default: when there are at most 10 systems).
        title: plot title.

    Cells of pairs that were not tested (with baselines: pairs without one) are grey.

    Example:
        >>> res.plot_pairwise("AP", correction="holm")                         # doctest: +SKIP
    """
    j = _measure(result, measure)
    label = result.measures[j]
    means = result.means[:, j]
    S = len(result.names)
    order = np.argsort(-means, kind="stable")
    position = {result.names[s]: k for k, s in enumerate(order)}
    a, b, p, used_correction = _pair_table(result, label, pairwise, test, correction, alpha)
    tested, significant = _pair_marks(position, a, b, p, alpha)
    sorted_means = means[order]
    diff = sorted_means[:, None] - sorted_means[None, :]
    shown = np.where(tested, diff, np.nan)
    np.fill_diagonal(shown, np.nan)
    size = max(4.8, 0.16 * S + 3.0)
    ax = _axes(ax, figsize=(size + 1.0, size))
    import matplotlib

    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#e6e6e6")
    vmax, clipped = _colour_limit(shown)
    image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, vmin=-vmax, vmax=vmax, interpolation="nearest")
    colorbar = ax.figure.colorbar(image, ax=ax, shrink=0.8, extend="both" if clipped else "neither")
    colorbar.set_label(f"difference in mean {label} (row − column)")
    rows, cols = np.nonzero(significant)
    ax.scatter(cols, rows, s=max(3.0, 120.0 / max(S, 1)), color="black")
    if annotate is None:
        annotate = S <= 10
    if annotate:
        _write_differences(ax, shown, vmax)
    _name_axes(ax, [result.names[s] for s in order])
    ax.set_title(title or _pairwise_title(label, tested, significant, alpha, test, used_correction, result),
                 fontsize="medium")
    return ax


def _pairwise_title(label, tested, significant, alpha, test, correction, result=None):
    S = len(tested)
    n_pairs = int(tested.sum() // 2)
    n_sig = int(significant.sum() // 2)
    correction_text = f", {correction}-corrected" if correction else ""
    name = test_label(test)
    if getattr(result, "seeds", None) == "random":
        name = "t test with seed variance (Satterthwaite df)"
    return (f"{label}: difference of means (row − column)\n"
            f"dots: p < {alpha:g} ({name}{correction_text}{_seeds_words(result)}), {n_sig:,} of {n_pairs:,} pairs"
            + ("; grey: not compared" if n_pairs < S * (S - 1) // 2 else ""))


def _pair_marks(position, a, b, p, alpha):
    """``tested`` and ``significant`` (p < alpha) matrices over the systems in plotting order."""
    S = len(position)
    tested = np.zeros((S, S), dtype=bool)
    significant = np.zeros((S, S), dtype=bool)
    for name_a, name_b, pv in zip(a, b, p, strict=True):
        i, k = position[name_a], position[name_b]
        tested[i, k] = tested[k, i] = True
        significant[i, k] = significant[k, i] = bool(pv < alpha)
    return tested, significant


def _colour_limit(shown):
    """The colour scale's end, ``(vmax, whether larger differences are clipped)``: a few outlying
    systems should not wash out the colours of every other pair."""
    finite = np.abs(shown[np.isfinite(shown)])
    vmax = float(np.quantile(finite, 0.9)) if finite.size else 1.0
    vmax = vmax if vmax > 0 else (float(finite.max()) if finite.size and finite.max() > 0 else 1.0)
    return vmax, finite.size > 0 and finite.max() > vmax


def _write_differences(ax, shown, vmax):
    S = len(shown)
    for i in range(S):
        for k in range(S):
            if np.isfinite(shown[i, k]):
                ax.text(k, i + 0.28, f"{shown[i, k]:+.3f}", ha="center", va="center", fontsize=6,
                        color="white" if abs(shown[i, k]) > 0.6 * vmax else "black")


def _name_axes(ax, names):
    S = len(names)
    ax.set_xticks(np.arange(S))
    ax.set_xticklabels(names, rotation=90, fontsize=_tick_size(S))
    ax.set_yticks(np.arange(S))
    ax.set_yticklabels(names, fontsize=_tick_size(S))
    ax.set_xlabel("column system (sorted by mean, best first)")
    ax.set_ylabel("row system")


# ---------------------------------------------------------------- per topic


def plot_topics(result: ExperimentResult, system: str | int | None = None, measure: MeasureLike | None = None, *,
                ax: Axes | None = None, sort: bool = True, title: str | None = None) -> Axes:
    """One system's score on each topic; with the corpus bootstrap, its spread over corpus images
    (Zobel & Rashidi 2020, Fig. 2).

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult`.
        system: system name (default: the best on ``measure``).
        measure: measure label (default: the first).
        ax: Axes (default: a new figure, wider with more topics).
        sort: order topics by the system's score on the collection (hardest first); else qrels order.
        title: plot title.

    With the corpus bootstrap, each topic gets a box (quartiles over images, whiskers 2.5% to
    97.5%) and a red dot at its score on the collection. Without it, topics have no interval of
    their own: the dots are the scores and the band is the mean's interval.

    Example:
        >>> res.plot_topics("BM25", "AP")                                       # doctest: +SKIP
    """
    j = _measure(result, measure)
    label = result.measures[j]
    s = int(np.argmax(result.means[:, j])) if system is None else _system(result, system, "system")
    name = result.names[s]
    values = result.values[s, :, j]
    Q = len(values)
    order = np.argsort(values, kind="stable") if sort else np.arange(Q)
    x = np.arange(1, Q + 1)
    ax = _axes(ax, figsize=(max(6.4, 0.12 * Q + 2.0), 4.2))
    corpus = result.corpus
    if corpus is not None:
        cs = corpus.systems.index(name)
        cm = corpus.measures.index(label)
        columns = [corpus.qids.index(q) for q in result.qids]
        images = corpus.bootstrap_distribution[:, cs, :, cm][:, columns]
        box = {"widths": 0.6, "whis": (2.5, 97.5), "showfliers": False, "patch_artist": True,
               "boxprops": {"facecolor": "#dbe6f3", "edgecolor": "black", "linewidth": 0.6},
               "medianprops": {"color": "black", "linewidth": 0.8, "gid": "median"},
               "whiskerprops": {"linewidth": 0.6}, "capprops": {"linewidth": 0.6}}
        ax.boxplot([images[:, q] for q in order], positions=x, **box)
        ax.scatter(x, values[order], color=_COLLECTION, s=10, zorder=3, label="score on the collection")
        what = f"over {corpus.n_images:,} corpus images (boxes: quartiles; whiskers: 2.5%-97.5%)"
    else:
        ax.scatter(x, values[order], color="black", s=12, zorder=3, label="score on the topic")
        mean = values.mean()
        ax.axhline(mean, color=_BEST, linewidth=1, label=f"mean = {mean:.3f}")
        if result.intervals is not None:
            low, high = result.intervals[s, j]
            ax.axhspan(low, high, color=_BEST, alpha=0.15, linewidth=0,
                       label=f"{_level(result)} interval of the mean")
        what = "(no per-topic intervals: they need the corpus bootstrap)"
    ax.set_xticks(x)
    ax.set_xticklabels([str(result.qids[q]) for q in order], rotation=90, fontsize=_tick_size(Q))
    ax.set_xlim(0.3, Q + 0.7)
    ax.set_xlabel("topic" + (f" (sorted by {label} on the collection)" if sort else ""))
    ax.set_ylabel(f"{label} on the topic")
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    ax.set_title(title or f"{name}: {label} per topic {what}", fontsize="medium")
    ax.legend(fontsize="small", loc="best")
    return ax


# ---------------------------------------------------------------- ranks


def plot_ranks(result: ExperimentResult, measure: MeasureLike | None = None, *, ax: Axes | None = None,
               title: str | None = None) -> Axes:
    """Each system's rank (1 = best) over bootstrap replicates, as boxes (Zobel & Rashidi 2020, Fig. 5).

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult` with a bootstrap (topic resamples or
            corpus images are the replicates).
        measure: measure label (default: the first).
        ax: Axes (default: a new figure, taller with more systems).
        title: plot title.

    Systems are sorted by their rank on the collection (red dots); boxes are the quartiles of the
    replicate ranks, whiskers the central ``confidence_level`` share (the rank interval of
    :meth:`ExperimentResult.ranks`). Ties share the average rank.

    Example:
        >>> res.plot_ranks("nDCG@10")                                           # doctest: +SKIP
    """
    if result.distribution_ is None:
        raise ValueError("plot_ranks needs a bootstrap: run the experiment with bootstrap='topic', 'corpus' or 'both'")
    from .stats.ranking import rank_intervals

    j = _measure(result, measure)
    label = result.measures[j]
    ranks = rank_intervals(result.means[:, [j]], result.distribution_[:, :, [j]], systems=result.names,
                           measures=(label,), confidence_level=result.confidence_level)
    collection = ranks.statistic[:, 0]
    replicate = ranks.bootstrap_distribution[:, :, 0]
    S = len(result.names)
    order = np.argsort(collection, kind="stable")
    ax = _axes(ax, figsize=(6.4, max(2.6, 0.24 * S + 1.3)))
    tail = 100 * (1 - result.confidence_level) / 2
    import matplotlib

    major, minor = (int(v) for v in matplotlib.__version__.split(".")[:2])
    horizontal = {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}
    y = np.arange(1, S + 1)
    ax.boxplot([replicate[:, s] for s in order], positions=y, whis=(tail, 100 - tail), showfliers=False,
               widths=0.6, patch_artist=True, medianprops={"color": "black", "linewidth": 0.8, "gid": "median"},
               boxprops={"facecolor": "#dbe6f3", "edgecolor": "black", "linewidth": 0.6}, **horizontal)
    ax.scatter(collection[order], y, color=_COLLECTION, s=14, zorder=3, label="rank on the collection")
    # the best systems sit at the top left, the worst at the bottom right: the top right is free
    ax.set_yticks(y)
    ax.set_yticklabels([result.names[s] for s in order], fontsize=_tick_size(S))
    ax.set_ylim(S + 0.7, 0.3)
    ax.set_xlim(0.5, S + 0.5)
    step = max(1, int(np.ceil(S / 15)))
    ax.set_xticks(np.unique(np.r_[1, np.arange(step, S + 1, step)]))
    ax.grid(axis="x", linewidth=0.4, alpha=0.5)
    ax.set_xlabel(f"rank by mean {label} (1 = best)")
    ax.set_title(title or f"{label}: rank over {_replicates(result)}\n(boxes: quartiles; whiskers: central "
                          f"{_level(result)})", fontsize="medium")
    ax.legend(fontsize="small", loc="upper right")
    return ax


# ---------------------------------------------------------------- p-values over images


def plot_pvalues(result: ExperimentResult, a: str | int | None = None, b: str | int | None = None, *,
                 measures: MeasuresLike | None = None, axes: Any = None, alpha: float = 0.05,
                 log: bool = False, title: str | None = None) -> Any:
    """Zobel & Rashidi's Fig. 6: on each corpus image, the paired t-test p-value of ``a`` against
    ``b`` over topics, plotted against the difference of their means on that image.

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult` whose experiment ran the corpus
            bootstrap (``bootstrap="corpus"`` or ``"both"``).
        a, b: the two systems (default: the best two on the first measure).
        measures: labels to draw, one panel each (default: every measure).
        axes: a sequence of Axes, one per measure (default: a new figure).
        alpha: the dashed significance line. log: logarithmic p-value axis. title: figure title.

    One dot per image; the red lines are the difference and the p-value on the collection itself.
    A wide cloud says the significance of the comparison depends on which documents happened to
    be in the corpus. Returns the array of Axes (``res.plot_pvalues()``; ``pt_docs/experiment.md``).
    """
    corpus = result.corpus
    if corpus is None:
        raise ValueError("plot_pvalues needs the corpus bootstrap: run the experiment with bootstrap='corpus' or 'both'")
    if len(result.names) < 2:
        raise ValueError("plot_pvalues needs at least two systems")
    labels = list(result.measures) if measures is None else ([measures] if isinstance(measures, str) else list(measures))
    index = [_measure(result, m) for m in labels]
    if a is None or b is None:
        best = [result.names[s] for s in np.argsort(-result.means[:, index[0]], kind="stable")]
        a = best[0] if a is None else a
        b = next(n for n in best if n != a) if b is None else b
    _system(result, a, "a")
    _system(result, b, "b")
    diff = corpus.difference(a, b, measures=labels)
    if axes is None:
        axes = _grid(1, len(labels), panel=(3.6, 3.2), sharey=True)
    axes = np.asarray(axes, dtype=object).reshape(-1)
    for k, (ax, label) in enumerate(zip(axes, labels, strict=False)):
        ax.scatter(diff.bootstrap_distribution[:, k], diff.image_ttest_pvalues[:, k], s=8, color="black",
                   alpha=0.5, label="one corpus image")
        ax.axvline(diff.statistic[k], color=_COLLECTION, linewidth=1, label="on the collection")
        ax.axhline(diff.ttest_pvalue[k], color=_COLLECTION, linewidth=1)
        ax.axhline(alpha, color="grey", linestyle="--", linewidth=0.8, label=f"p = {alpha:g}")
        if log:
            ax.set_yscale("log")
        ax.set_xlabel(f"difference in mean {label}\n({a} − {b}) on the image", fontsize="small")
        if k == 0:
            ax.set_ylabel("paired t-test p-value on the image", fontsize="small")
            ax.legend(fontsize="x-small", loc="best")
        ax.set_title(label, fontsize="small")
        ax.grid(linewidth=0.4, alpha=0.5)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(5))
    axes[0].figure.suptitle(title or f"{a} vs {b}: p-value against difference over {corpus.n_images:,} corpus images",
                            fontsize="medium")
    return axes


# ---------------------------------------------------------------- against the baseline (figures for papers)


def _figure(ax, figsize):
    """``(figure, axes)``: the given Axes' figure, or a new figure with constrained layout."""
    ax = _axes(ax, figsize=figsize)
    return ax.figure, ax


def _baseline(result, baseline, argument="baseline"):
    """The baseline's name: ``baseline``, or the experiment's first baseline."""
    if baseline is None:
        names = _baselines(result)
        if not names:
            raise ValueError(f"{argument!r} is needed: the experiment has no baseline (run it with baseline=...)")
        return names[0]
    _system(result, baseline, argument)
    return baseline


def _verdict_alpha(result):
    from .stats.inversion import alpha_of

    provenance = result.provenance or {}
    if result.comparisons is not None and result.comparisons.correction is not None:
        return provenance.get("correction_alpha", 0.05)
    return alpha_of(result.confidence_level)


def baseline_differences(result: ExperimentResult, measure: MeasureLike | None = None,
                         baseline: str | int | None = None) -> pd.DataFrame:
    """The experiment's comparisons against ``baseline`` on ``measure`` as a frame ``name, diff,
    ci_low, ci_high, p-value, reject`` (one row per compared system, in the experiment's order):
    the interval beside each verdict is the one its test inverts."""
    import pandas as pd

    j = _measure(result, measure)
    label = result.measures[j]
    if result.comparisons is None:
        raise ValueError("the experiment has no baseline comparisons: run it with baseline=...")
    name = _baseline(result, baseline)
    comp = result.comparisons
    frame = comp.frame
    keep = ((frame["measure"] == label) & (frame["baseline"] == name)).to_numpy()
    if not keep.any():
        raise ValueError(f"'baseline': {name!r} is not a baseline of the experiment (baselines: {_baselines(result)})")
    rows = frame[keep]
    return pd.DataFrame({"name": rows["name"].to_numpy(), "diff": rows["diff"].to_numpy(float),
                         "ci_low": rows["ci_low"].to_numpy(float), "ci_high": rows["ci_high"].to_numpy(float),
                         "p-value": rows["p-value corrected" if "p-value corrected" in rows else "p-value"]
                         .to_numpy(float),
                         "reject": comp.rejects(_verdict_alpha(result))[keep]})


def plot_differences(result: ExperimentResult, measure: MeasureLike | None = None, *,
                     baseline: str | int | None = None, ax: Axes | None = None,
                     title: str | None = None) -> Figure:
    """Forest plot of each system's mean difference from the baseline with its interval.

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult` run with ``baseline=...``.
        measure: measure label (default: the first).
        baseline: which baseline (default: the experiment's first).
        ax: Axes (keyword; default: a new figure, taller with more systems).
        title: plot title.

    Systems are sorted by their difference, largest at the top. The intervals are those of the
    experiment's comparisons (each the interval its test inverts); filled dots are significant
    (corrected when the experiment corrected), open dots are not. Uncorrected, or with Bonferroni
    or Sidak (simultaneous intervals), a dot is filled exactly when its interval excludes 0; with
    a step-wise correction (Holm, ...) the intervals are unadjusted, so a filled dot's interval
    excludes 0 but an open dot's may too. Colour says the direction (blue: higher than the
    baseline, red: lower); the legend lists both colours and both kinds of dot. Returns the Figure.

    Example:
        >>> res = pyterrier_boot.experiment_result(runs, None, qrels, ["AP"], baseline=0)   # doctest: +SKIP
        >>> pyterrier_boot.plot_differences(res).savefig("differences.pdf")                # doctest: +SKIP
    """
    table = baseline_differences(result, measure, baseline)
    label = result.measures[_measure(result, measure)]
    name = _baseline(result, baseline)
    table = table.sort_values("diff", ascending=False, kind="stable").reset_index(drop=True)
    P = len(table)
    fig, ax = _figure(ax, (6.4, max(2.4, 0.24 * P + 1.3)))
    y = np.arange(P)[::-1]
    significant = table["reject"].to_numpy(bool)
    colors = np.where(table["diff"].to_numpy() >= 0, _BEST, _COLLECTION)
    ax.hlines(y, table["ci_low"], table["ci_high"], colors=colors, linewidth=1.6)
    ax.scatter(table["diff"][significant], y[significant], color=colors[significant], s=24, zorder=3,
               gid="significant")
    ax.scatter(table["diff"][~significant], y[~significant], facecolors="white", edgecolors=colors[~significant],
               s=24, zorder=3, gid="not significant")
    ax.axvline(0, color="grey", linestyle="--", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(list(table["name"]), fontsize=_tick_size(P))
    ax.set_ylim(-0.7, P - 0.3)
    ax.grid(axis="x", linewidth=0.4, alpha=0.5)
    ax.set_xlabel(f"difference in mean {label} from {name}")
    from .stats.registry import test_label as test_name

    provenance = result.provenance or {}
    if result.bootstrap in ("corpus", "both"):
        how = f"{result.bootstrap}-bootstrap replicate test"
    else:
        how = test_name(provenance.get("test", "t"))
    correction = result.comparisons.correction if result.comparisons is not None else None
    if getattr(result, "seeds", None) == "random":
        how = "t test with seed variance (Satterthwaite df)"
    how += (f", {correction}-corrected" if correction else "") + _seeds_words(result)
    ax.set_title(title or f"{label}: difference from {name} with the interval each test inverts\n"
                          f"({how}; {int(significant.sum())} of {P} significant)", fontsize="medium")
    ax.legend(handles=_difference_legend(name), fontsize="small", loc="best")
    return fig


def _difference_legend(baseline: str) -> list:
    """The forest plot's key, the same whatever is drawn: colour is the direction of the
    difference, a filled or hollow dot the verdict (both always listed)."""
    from matplotlib.lines import Line2D

    def dot(fill: str, label: str) -> Line2D:
        return Line2D([], [], marker="o", linestyle="none", markersize=5, markeredgecolor="black",
                      markerfacecolor=fill, label=label)

    return [Line2D([], [], color=_BEST, linewidth=1.6, label=f"higher than {baseline}"),
            Line2D([], [], color=_COLLECTION, linewidth=1.6, label=f"lower than {baseline}"),
            dot("black", "significant"), dot("white", "not significant")]


def topic_differences(result: ExperimentResult, system: str | int, baseline: str | int,
                      measure: MeasureLike | None = None) -> pd.Series:
    """Per-topic differences ``system - baseline`` on ``measure``, as a Series indexed by qid,
    largest first (ties in qrels order)."""
    import pandas as pd

    j = _measure(result, measure)
    s = _system(result, system, "system")
    b = _system(result, baseline, "baseline")
    delta = result.values[s, :, j] - result.values[b, :, j]
    order = np.argsort(-delta, kind="stable")
    return pd.Series(delta[order], index=[result.qids[q] for q in order], name=f"{system} - {baseline}")


def plot_topic_differences(result: ExperimentResult, system: str | int | None = None,
                           measure: MeasureLike | None = None, *, baseline: str | int | None = None,
                           ax: Axes | None = None, title: str | None = None,
                           labels: bool | None = None) -> Figure:
    """Per-topic difference from the baseline, sorted (the usual per-topic figure of IR papers).

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult`.
        system: the system (default: the best on ``measure`` other than the baseline).
        measure: measure label (default: the first).
        baseline: the reference system (default: the experiment's first baseline).
        ax: Axes (keyword; default: a new figure, wider with more topics).
        title: plot title.
        labels: write the topic ids under the bars (default: up to 60 topics).

    One bar per topic, ``system - baseline``, largest first: blue bars are topics the system
    improves, red ones it hurts; the dashed line is the mean difference. The title counts wins,
    ties and losses. Returns the Figure.

    Example:
        >>> pyterrier_boot.plot_topic_differences(res, "monoT5", baseline="BM25")   # doctest: +SKIP
    """
    j = _measure(result, measure)
    label = result.measures[j]
    name = _baseline(result, baseline)
    if system is None:
        others = [s for s in np.argsort(-result.means[:, j], kind="stable") if result.names[s] != name]
        if not others:
            raise ValueError("plot_topic_differences needs a system other than the baseline")
        system = result.names[others[0]]
    if system == name:
        raise ValueError(f"'system' {system!r} is the baseline: choose another system")
    delta = topic_differences(result, system, name, label)
    Q = len(delta)
    fig, ax = _figure(ax, (max(6.4, 0.1 * Q + 2.0), 3.8))
    x = np.arange(Q)
    colors = np.where(delta.to_numpy() > 0, _BEST, np.where(delta.to_numpy() < 0, _COLLECTION, "grey"))
    ax.bar(x, delta.to_numpy(), color=colors, width=0.85, linewidth=0)
    ax.axhline(0, color="black", linewidth=0.6)
    mean = float(delta.mean())
    ax.axhline(mean, color="black", linestyle="--", linewidth=0.8, label=f"mean difference {mean:+.3f}")
    if labels is None:
        labels = Q <= 60
    if labels:
        ax.set_xticks(x)
        ax.set_xticklabels([str(q) for q in delta.index], rotation=90, fontsize=_tick_size(Q))
    else:
        ax.set_xticks([])
    ax.set_xlim(-0.7, Q - 0.3)
    ax.set_xlabel(f"topic (sorted by difference; {Q} topics)")
    ax.set_ylabel(f"{label}: {system} − {name}", fontsize="small")
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    wins, losses = int((delta > 0).sum()), int((delta < 0).sum())
    ax.set_title(title or f"{label}: {system} vs {name} per topic ({wins} better, {Q - wins - losses} tied, "
                          f"{losses} worse)", fontsize="medium")
    ax.legend(fontsize="small", loc="upper right")
    return fig


def plot_rank_intervals(result: ExperimentResult, measure: MeasureLike | None = None, *, ax: Axes | None = None,
                        title: str | None = None, letters: Mapping[str, str] | None = None) -> Figure:
    """Each system's rank (1 = best) with its rank interval over bootstrap replicates.

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult` with a bootstrap.
        measure: measure label (default: the first).
        ax: Axes (keyword; default: a new figure, taller with more systems).
        title: plot title.
        letters: optional mapping ``system -> letters`` (a compact letter display) written beside
            each interval.

    Systems are sorted by their rank on the collection (dots); the lines are the rank intervals
    of :meth:`ExperimentResult.ranks` (the central ``confidence_level`` of the replicate ranks).
    Compact where :func:`plot_ranks`' boxes get crowded. Returns the Figure.

    Example:
        >>> pyterrier_boot.plot_rank_intervals(res, "nDCG@10").savefig("ranks.svg")   # doctest: +SKIP
    """
    if result.distribution_ is None:
        raise ValueError("plot_rank_intervals needs a bootstrap: run the experiment with bootstrap='topic', "
                         "'corpus' or 'both'")
    j = _measure(result, measure)
    label = result.measures[j]
    ranks = result.ranks()
    ranks = ranks[ranks["measure"] == label].reset_index(drop=True)  # sorted by rank
    S = len(ranks)
    fig, ax = _figure(ax, (6.4, max(2.6, 0.22 * S + 1.3)))
    y = np.arange(1, S + 1)
    ax.hlines(y, ranks["ci_low"], ranks["ci_high"], color="black", linewidth=1.8)
    ax.scatter(ranks["rank"], y, color=_COLLECTION, s=16, zorder=3, label="rank on the collection")
    if letters is not None:
        for k, name in enumerate(ranks["name"]):
            ax.text(S + 0.8, y[k], str(letters.get(name, "")), va="center", ha="left", fontsize=_tick_size(S))
    ax.set_yticks(y)
    ax.set_yticklabels(list(ranks["name"]), fontsize=_tick_size(S))
    ax.set_ylim(S + 0.7, 0.3)
    ax.set_xlim(0.5, S + (3.5 if letters is not None else 0.5))
    ax.grid(axis="x", linewidth=0.4, alpha=0.5)
    ax.set_xlabel(f"rank by mean {label} (1 = best)")
    ax.set_title(title or f"{label}: rank with its {_level(result)} interval over {_replicates(result)}",
                 fontsize="medium")
    ax.legend(fontsize="small", loc="lower left")
    return fig
