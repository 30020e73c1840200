"""A self-contained HTML report of an experiment: tables and plots in one file.

:func:`html_report` returns the page as a string and :func:`write_report` writes it; the plots
(:mod:`pyterrier_boot.plotting`) are inline SVG, each with its PNG as a ``data:`` download link,
the style is inline, and the only script is the inline one that sorts tables, so the file can be
mailed, archived or opened offline. :func:`summary_table` is the
readable table both the report and ``pyterrier-boot evaluate`` print: ``0.412 [0.381, 0.444]``
cells, systems sorted by the first measure, and the comparisons in a few characters.

Example:
    >>> import pyterrier_boot as pb
    >>> res = pb.experiment_result(runs, None, qrels, ["AP", "nDCG@10"])            # doctest: +SKIP
    >>> pb.write_report(res, "report.html", title="My runs")                        # doctest: +SKIP
"""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._atomic import atomic_file
from .experiment.display import SEED_TEST, describe_intervals
from .experiment.pairwise import tested_pairs, untested_phrase
from .stats.letters import DEFAULT_METHOD as DEFAULT_LETTERS
from .stats.letters import check_method, compact_letter_display, letters_label
from .stats.registry import test_label

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ._typing import PathLike
    from .experiment.result import ExperimentResult


__all__ = ["summary_table", "html_report", "write_report", "describe_intervals"]


# ---------------------------------------------------------------- text pieces


def _number(value, digits):
    """A figure as text: never blank (an unbounded interval end is ``inf``, a missing one ``–``)."""
    if value is None or np.isnan(value):
        return "–"
    return f"{value:.{digits}f}" if np.isfinite(value) else ("inf" if value > 0 else "-inf")


def _rank(value):
    """A rank as text: whole ranks without decimals, tied (average) ranks with one."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def _pvalue(p):
    if not np.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _tested(frame, measure):
    """``(a, b, diff, p)`` rows of one measure from a pairwise or Comparisons table (p corrected
    when a correction was made)."""
    rows = frame[frame["measure"] == measure]
    if "system_a" in rows:
        a, b, diff = rows["system_a"], rows["system_b"], rows["difference"]
    else:
        a, b, diff = rows["name"], rows["baseline"], rows["diff"]
    p = rows["p-value"].to_numpy(float)
    if "p-value corrected" in rows and rows["p-value corrected"].notna().any():
        p = rows["p-value corrected"].to_numpy(float)
    return list(a), list(b), diff.to_numpy(float), p


def summary_table(result: ExperimentResult, *, pairwise: Any = None, alpha: float = 0.05, digits: int = 3,
                  sort: bool = True, ranks: bool = False, letters: bool = False,
                  letters_method: str = DEFAULT_LETTERS) -> pd.DataFrame:
    """The readable table of an experiment: one row per system, strings.

    Columns: ``name``; for each measure, the mean and its interval (``0.412 [0.381, 0.444]``,
    or the mean alone without a bootstrap); then the comparisons:

    * with baselines (``result.comparisons``): for each measure and baseline, ``"<m> vs <b>"``
      with the difference and its p-value (corrected when the experiment corrected), ``*`` when it
      is below ``alpha`` (e.g. ``+0.031 p=0.004 *``; the baseline's own cell reads ``baseline``);
    * with an all-pairs table ``pairwise`` (``result.pairwise()``): for each measure ``"<m> >/<"``,
      the number of systems this one is significantly better / worse than (e.g. ``12 / 3``).

    Args:
        result: an :class:`~pyterrier_boot.ExperimentResult`.
        pairwise: an all-pairs table from ``result.pairwise(...)`` (ignored with baselines).
        alpha: significance level of the marks.
        digits: decimals of the scores.
        sort: order systems by the first measure, best first (else the experiment's order).
        ranks: add per measure ``"<m> rank"``: the rank on the collection and its interval over
            the bootstrap replicates (``3 [2, 5]``; needs a bootstrap).
        letters: add per measure ``"<m> group"``: the compact letter display of ``pairwise``
            (systems sharing a letter are not significantly different; needs ``pairwise``).
        letters_method: how the letter groups are found, ``"cover"`` (default, as every door) or
            ``"insert-absorb"`` (:func:`~pyterrier_boot.compact_letter_display`).

    Pairs that were not tested (fewer than 2 topics) give no letters and no counts: with no pair
    tested, the group and ``>/<`` columns are left out.
    """
    if pairwise is not None:
        pairwise = tested_pairs(pairwise)
    means = result.means
    order = np.argsort(-means[:, 0], kind="stable") if sort else np.arange(len(result.names))
    out = {"name": [result.names[s] for s in order]}
    for j, m in enumerate(result.measures):
        if result.intervals is None or np.isnan(result.intervals).all():  # no bootstrap, or fewer than 2 topics
            out[m] = [_number(means[s, j], digits) for s in order]
        else:
            out[m] = [f"{_number(means[s, j], digits)} [{_number(result.intervals[s, j, 0], digits)}, "
                      f"{_number(result.intervals[s, j, 1], digits)}]" for s in order]
        if ranks and result.distribution_ is not None:
            table = result.ranks()
            table = table[table["measure"] == m].set_index("name")
            out[f"{m} rank"] = [f"{_rank(table.loc[result.names[s], 'rank'])} [{_rank(table.loc[result.names[s], 'ci_low'])}, "
                                f"{_rank(table.loc[result.names[s], 'ci_high'])}]" for s in order]
        if letters and pairwise is not None and len(pairwise) and result.comparisons is None:
            best_first = [result.names[s] for s in np.argsort(-means[:, j], kind="stable")]
            groups = compact_letter_display(pairwise, measure=m, order=best_first, method=letters_method)
            out[f"{m} group"] = [groups.get(result.names[s], "") for s in order]
    if result.comparisons is not None:
        out.update(_baseline_columns(result, order, alpha, digits))
    elif pairwise is not None and len(pairwise):
        out.update(_win_loss_columns(result, pairwise, order, alpha))
    return pd.DataFrame(out)


def _baseline_columns(result, order, alpha, digits):
    """Per measure and baseline, ``"<m> vs <b>"``: the difference, its p-value and ``*`` below ``alpha``."""
    frame = result.comparisons.frame
    baselines = list(dict.fromkeys(result.names[b] for b in result.comparisons.baseline_index))
    out = {}
    for b in baselines:
        for m in result.measures:
            a_names, b_names, diff, p = _tested(frame, m)
            cells = {a: (d, pv) for a, bb, d, pv in zip(a_names, b_names, diff, p, strict=True) if bb == b}
            column = []
            for s in order:
                name = result.names[s]
                if name == b:
                    column.append("baseline")
                elif name in cells:
                    d, pv = cells[name]
                    shown = _pvalue(pv)
                    shown = shown if shown.startswith("<") else f"={shown}"
                    column.append(f"{d:+.{digits}f} p{shown}{' *' if pv < alpha else ''}")
                else:
                    column.append("")
            out[f"{m} vs {b}"] = column
    return out


def _win_loss_columns(result, pairwise, order, alpha):
    """Per measure, ``"<m> >/<"``: how many systems each is significantly better / worse than."""
    out = {}
    for m in result.measures:
        a_names, b_names, diff, p = _tested(pairwise, m)
        better = dict.fromkeys(result.names, 0)
        worse = dict.fromkeys(result.names, 0)
        for a, b, d, pv in zip(a_names, b_names, diff, p, strict=True):
            if pv < alpha and d != 0:
                winner, loser = (a, b) if d > 0 else (b, a)
                better[winner] += 1
                worse[loser] += 1
        out[f"{m} >/<"] = [f"{better[result.names[s]]} / {worse[result.names[s]]}" for s in order]
    return out


def comparison_note(result: ExperimentResult, *, pairwise: Any = None, test: str = "t",
                    correction: str | None = "holm", alpha: float = 0.05) -> str:
    """One sentence explaining the comparison columns of :func:`summary_table` (empty without any)."""
    if result.bootstrap in ("corpus", "both"):  # the verdicts are the replicate test of the intervals
        test_text = f"{result.bootstrap}-bootstrap test over the same replicates as the intervals"
    elif result.seeds == "random":
        test_text = SEED_TEST
    else:
        test_text = test_label(test)
    if result.comparisons is not None:
        corrected = result.comparisons.correction
        how = test_text + (f", {corrected}-corrected per measure" if corrected else ", not corrected")
        return (f"'<m> vs <b>': difference from the baseline b and its p-value ({how}); "
                f"* marks p < {alpha:g}.")
    if pairwise is not None and len(pairwise) and not len(tested_pairs(pairwise)):
        return f"Comparisons: {untested_phrase(len(result.qids))}."
    if pairwise is not None and len(pairwise):
        how = test_text + (f", {correction}-corrected per measure" if correction else ", not corrected")
        return (f"'<m> >/<': number of systems this one is significantly better / worse than, over all "
                f"pairs ({how}, p < {alpha:g}).")
    return ""


# ---------------------------------------------------------------- HTML

# columns of the comparisons table in the report (all of them are in pairwise.csv)
_PAIR_COLUMNS = ("measure", "system_a", "system_b", "name", "baseline", "difference", "diff", "ci_low", "ci_high",
                 "p-value", "p-value corrected", "corpus p-value", "reject")
#: above this many systems the report shows letter groups and rank intervals instead of the
#: systems x systems matrices and rank boxes (too dense to read)
MATRIX_LIMIT = 15
#: at most this many panels of per-topic differences per measure (the best systems)
TOPIC_PANELS = 60


def _escape(text):
    return html.escape(str(text), quote=True)


def _table_html(frame, *, digits=None, caption=None):
    """A sortable table (click a header) in a horizontal scroll box, so that a wide table scrolls
    by itself and the page never scrolls sideways; p-values keep their small values (``.4g``)."""
    from ._html import scroll_box, sortable_table

    frame = frame.copy()
    for column in frame.columns:
        if "p-value" in str(column) and pd.api.types.is_float_dtype(frame[column]):
            frame[column] = frame[column].map(lambda v: "" if pd.isna(v) else f"{v:.4g}")
    return scroll_box(sortable_table(frame, digits=digits, caption=caption))


def _figure_html(fig, caption, alt, name):
    """The figure inline as SVG, with the same figure as a PNG to download (a ``data:`` link,
    nothing fetched)."""
    import matplotlib.pyplot as plt

    from ._html import svg_figure

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=100)
        # the layout the PNG's drawing computed stays for the SVG's two drawings (its tight box,
        # then the picture), which would each compute it again
        fig.set_layout_engine("none")
        svg = svg_figure(fig, alt=alt, close=False)
    finally:
        plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f"<figure>{svg}<figcaption>{_escape(caption)} "
            f'<a download="{_escape(name)}.png" href="data:image/png;base64,{data}">PNG</a></figcaption></figure>')


def _plot(draw, caption, alt, bar=None):
    """Draw one plot into HTML; a plot that cannot be drawn becomes a note, not a failed report."""
    try:
        drawn = draw()
    except ValueError as error:
        return f'<p class="muted">({_escape(alt)} not drawn: {_escape(error)})</p>'
    finally:
        if bar is not None:
            bar.update()
    first = np.asarray(drawn, dtype=object).reshape(-1)[0]
    fig = first if hasattr(first, "savefig") else first.figure
    name = "".join(c if c.isalnum() else "-" for c in alt).strip("-")[:60] or "figure"
    return _figure_html(fig, caption, alt, name)


def _n_plots(result):
    S, M = len(result.names), len(result.measures)
    several = S > 1
    ranked = several and result.distribution_ is not None
    return M * (1 + (several and S <= MATRIX_LIMIT) + (ranked and S <= MATRIX_LIMIT) + ranked + several
                + (result.comparisons is not None and several) + (result.corpus is not None)
                ) + (several and result.corpus is not None)


def _reference(result, baseline):
    """The system the per-topic differences are taken from: ``baseline``, the experiment's first
    baseline, or the best on the first measure."""
    if baseline is not None:
        if baseline not in result.names:
            raise ValueError(f"'baseline' {baseline!r} is not among the systems {list(result.names)[:8]}")
        return baseline, "the baseline"
    if result.comparisons is not None:
        return result.names[int(result.comparisons.baseline_index[0])], "the baseline"
    return result.names[int(np.argmax(result.means[:, 0]))], f"the best system on {result.measures[0]}"


def _topic_panels(result, measure, reference):
    """Small multiples: sorted per-topic differences of each system from ``reference`` (one
    panel per system, best first; thin bars drawn as one line collection per panel, so 60
    panels of 50 topics draw in about a second)."""
    import matplotlib.pyplot as plt

    from .plotting import topic_differences

    j = result.measures.index(measure)
    others = [result.names[s] for s in np.argsort(-result.means[:, j], kind="stable")
              if result.names[s] != reference][:TOPIC_PANELS]
    n_cols = min(6, len(others))
    n_rows = int(np.ceil(len(others) / n_cols))
    # one y range set on every panel rather than sharey, and titles at a fixed height: matplotlib
    # otherwise lines up shared axes and places each title against all the others (quadratic in panels)
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(2.3 * n_cols + 0.4, 1.45 * n_rows + 0.7), squeeze=False)
    axes = axes.reshape(-1)
    deltas = [topic_differences(result, name, reference, measure).to_numpy() for name in others]
    limit = max(float(np.nanmax(np.abs(d))) for d in deltas) * 1.05 or 1.0
    for ax, name, delta in zip(axes, others, deltas, strict=False):
        x = np.arange(len(delta))
        colors = np.where(delta > 0, "tab:blue", np.where(delta < 0, "tab:red", "grey"))
        ax.vlines(x, 0, delta, colors=colors, linewidth=max(0.6, 120 / max(len(delta), 1)))
        ax.axhline(0, color="black", linewidth=0.5)
        ax.axhline(float(delta.mean()), color="black", linestyle="--", linewidth=0.7)
        wins, losses = int((delta > 0).sum()), int((delta < 0).sum())
        ax.set_title(f"{name} (+{wins} / −{losses})", fontsize="x-small", y=1.0)
        ax.set_xticks([])
        ax.set_xlim(-0.8, len(delta) - 0.2)
        ax.set_ylim(-limit, limit)
        ax.tick_params(labelsize="x-small", labelleft=ax.get_subplotspec().is_first_col())
    for ax in axes[len(others):]:
        ax.set_visible(False)
    fig.suptitle(f"{measure}: per-topic difference from {reference} (topics sorted in each panel; blue: better, "
                 "red: worse; dashed: mean; +wins / −losses)", fontsize="small", y=1 - 0.12 / (1.45 * n_rows + 0.7),
                 va="top")
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.02, top=1 - 0.75 / (1.45 * n_rows + 0.7),
                        hspace=0.45, wspace=0.08)
    return fig


def _section(result, *, pairwise, test, correction, alpha, digits, plots, truth, heading, bar, baseline,
             letters_method):
    """One experiment's part of the report: its summary, then its figures and tables, in reading order."""
    parts = [f"<h2>{_escape(heading)}</h2>"] if heading else []
    S = len(result.names)
    if result.comparisons is None and pairwise is None and S > 1:
        pairwise = result.pairwise(test=test, correction=correction, alpha=alpha)
    summary = summary_table(result, pairwise=pairwise, alpha=alpha, digits=digits, ranks=True, letters=True,
                            letters_method=letters_method)
    parts += _summary_part(result, summary, pairwise=pairwise, test=test, correction=correction, alpha=alpha,
                           letters_method=letters_method)
    if plots:
        parts += _mean_figures(result, pairwise=pairwise, test=test, correction=correction, alpha=alpha,
                               truth=truth, bar=bar)
    frame = pairwise if result.comparisons is None else result.comparisons.frame
    if frame is not None and len(frame):
        frame = frame[[c for c in frame.columns if c in _PAIR_COLUMNS]]
        parts.append(f"<details><summary>All {len(frame):,} comparisons (table)</summary>"
                     f"{_table_html(frame, digits=4)}</details>")
    if plots:
        parts += _rank_figures(result, summary, bar)
        parts += _topic_figures(result, baseline, bar)
        parts += _corpus_figures(result, alpha, bar)
    parts.append("<details><summary>Full table (pt.Experiment columns)</summary>"
                 f"{_table_html(result.table(), digits=4)}</details>")
    return "\n".join(parts)


def _summary_part(result, summary, *, pairwise, test, correction, alpha, letters_method):
    """What was measured, the summary table and the note saying what its cells mean."""
    S, Q = len(result.names), len(result.qids)
    parts = [f"<p>{S} systems × {Q} topics; measures {', '.join(map(_escape, result.measures))}; "
             f"{_escape(describe_intervals(result))}.</p>", "<h3>Summary</h3>"]
    cells = (f"Cells: mean over topics [{describe_intervals(result)}]. " if result.intervals is not None
             else "Cells: mean over topics (no bootstrap, no intervals). ")
    ranks_note = (f"'<m> rank': rank on the collection [{100 * result.confidence_level:g}% rank interval over the "
                  "bootstrap replicates]. " if result.distribution_ is not None and S > 1 else "")
    groups_note = ("'<m> group': systems sharing a letter are not significantly different (all-pairs tests; "
                   f"{letters_label(letters_method)}). " if any(c.endswith(" group") for c in summary.columns)
                   else "")
    parts.append(f'<p class="muted">Systems sorted by {_escape(result.measures[0])}; click a column header to '
                 f"sort by it. {_escape(cells)}{_escape(ranks_note)}{_escape(groups_note)}"
                 f"{_escape(comparison_note(result, pairwise=pairwise, test=test, correction=correction, alpha=alpha))}"
                 "</p>")
    parts.append(_table_html(summary))
    return parts


def _mean_figures(result, *, pairwise, test, correction, alpha, truth, bar):
    """Forest plots of the means, of the differences from the baseline, and the pairwise matrices."""
    from . import plotting

    S = len(result.names)
    parts = ["<h3>Means and intervals</h3><div class='figs'>"]
    for m in result.measures:
        values = None if truth is None or m not in truth else truth[m]
        parts.append(_plot(lambda m=m, values=values: plotting.plot_means(result, m, truth=values),
                           f"Each system's mean {m} (dot) with its interval (line), best at the top. "
                           "Overlapping intervals do not by themselves mean 'no significant difference': "
                           "see the comparisons.", f"forest plot of mean {m}", bar))
    parts.append("</div>")
    if result.comparisons is not None and S > 1:
        parts.append("<h3>Differences from the baseline</h3><div class='figs'>")
        for m in result.measures:
            parts.append(_plot(lambda m=m: plotting.plot_differences(result, m),
                               f"Each system's difference in mean {m} from the baseline with the interval its "
                               "test inverts; filled: significant.", f"differences from the baseline in {m}",
                               bar))
        parts.append("</div>")
    if S > 1 and not S > MATRIX_LIMIT:
        parts.append("<h3>Pairwise comparisons</h3><div class='figs'>")
        for m in result.measures:
            parts.append(_plot(
                lambda m=m: plotting.plot_pairwise(result, m, pairwise=pairwise, test=test, correction=correction,
                                                   alpha=alpha),
                f"Difference of mean {m} between the row and the column system (blue: row better). "
                "A dot marks a significant difference.", f"pairwise difference matrix of {m}", bar))
        parts.append("</div>")
    return parts


def _rank_figures(result, summary, bar):
    """Rank intervals (with the letter groups) and, when not too many systems, rank boxes."""
    from . import plotting

    S = len(result.names)
    many = S > MATRIX_LIMIT
    if result.distribution_ is None or S <= 1:
        return []
    parts = ["<h3>Rank variability</h3><div class='figs'>"]
    for m in result.measures:
        letters = None
        if f"{m} group" in summary.columns:
            letters = dict(zip(summary["name"], summary[f"{m} group"], strict=True))
        parts.append(_plot(lambda m=m, letters=letters: plotting.plot_rank_intervals(result, m, letters=letters),
                           f"Rank of each system by mean {m} (dot) and its rank interval over the bootstrap "
                           "replicates (line)" + ("; letters: groups of systems not significantly different."
                                                  if letters else "."), f"rank intervals for {m}", bar))
        if not many:
            parts.append(_plot(lambda m=m: plotting.plot_ranks(result, m),
                               f"Rank of each system by mean {m} on every bootstrap replicate (Zobel & Rashidi "
                               "2020, Fig. 5): a long box means the system's place in the ranking is uncertain.",
                               f"rank boxplots for {m}", bar))
    parts.append("</div>")
    if many:
        parts.append(f'<p class="muted">With more than {MATRIX_LIMIT} systems the systems × systems matrices '
                     "and rank boxes are left out (too dense to read): the letter groups and rank intervals "
                     "say the same at a glance.</p>")
    return parts


def _topic_figures(result, baseline, bar):
    """Per-topic differences of each system from the reference system, one panel per system."""
    S = len(result.names)
    if S <= 1:
        return []
    reference, why = _reference(result, baseline)
    shown = min(S - 1, TOPIC_PANELS)
    parts = [f"<h3>Per-topic differences from {_escape(reference)}</h3>",
             f'<p class="muted">Reference: {_escape(reference)} ({_escape(why)}). One panel per system'
             + (f" (the {shown} best of {S - 1})" if shown < S - 1 else "")
             + ", best first: its per-topic difference from the reference, topics sorted; panels share "
             "the y axis.</p>"]
    for m in result.measures:
        parts.append(_plot(lambda m=m: _topic_panels(result, m, reference),
                           f"{m}: per-topic differences from {reference}.",
                           f"per-topic differences in {m} from {reference}", bar))
    return parts


def _corpus_figures(result, alpha, bar):
    """With the corpus bootstrap: per-topic spread over corpus images and p-values across images."""
    from . import plotting

    if result.corpus is None:
        return []
    parts = ["<h3>Per-topic scores over corpus images</h3><div class='figs'>"]
    for m in result.measures:
        best = result.names[int(np.argmax(result.means[:, result.measures.index(m)]))]
        parts.append(_plot(lambda m=m, best=best: plotting.plot_topics(result, best, m),
                           f"{best} (best on {m}): its score on each topic, with the spread over corpus images "
                           "(Zobel & Rashidi 2020, Fig. 2).", f"per-topic {m} of {best}", bar))
    parts.append("</div>")
    if len(result.names) > 1:
        parts.append("<h3>Significance across corpus images</h3>")
        parts.append(_plot(lambda: plotting.plot_pvalues(result, alpha=alpha),
                           "For the best two systems on the first measure: on every corpus image, the paired "
                           "t-test p-value against the difference of their means (Zobel & Rashidi 2020, Fig. 6). "
                           "Red: the collection itself.", "p-value against difference over corpus images", bar))
    return parts


def html_report(results: Any, *, title: str | None = "pyterrier-boot report",
                settings: Mapping[str, Any] | None = None, pairwise: Any = None,
                tables: Mapping[str, pd.DataFrame] | None = None, truth: Any = None,
                test: str = "t", correction: str | None = "holm", alpha: float = 0.05,
                digits: int = 3, plots: bool = True, verbose: bool = False,
                baseline: str | None = None, letters_method: str = DEFAULT_LETTERS) -> str:
    """The report of one or several experiments as one self-contained HTML page.

    Args:
        results: an :class:`~pyterrier_boot.ExperimentResult`, or a dict ``heading -> result``
            (one section each, e.g. the topic and the corpus bootstrap of the same runs).
        title: page title. settings: ``label -> value`` listed under the title (command, seed, ...).
        pairwise: the all-pairs table of a result without baselines (``result.pairwise(...)``), or
            a dict ``heading -> table``; when not given, computed with ``test``, ``correction``, ``alpha``.
        tables: extra tables, a dict ``caption -> DataFrame``, shown at the end.
        truth: known values to mark on the means plots (index systems, one column per measure, e.g.
            a simulated collection's ``truth()``), or a dict ``heading -> frame``.
        test, correction, alpha: of the all-pairs comparisons.
        digits, plots, verbose: decimals of the summary; draw the plots (else tables only); a progress bar.
        baseline: the reference system of the per-topic differences (default: the experiment's
            first baseline, else the best system on the first measure).
        letters_method: how the letter groups are found, ``"cover"`` (default, as every door) or
            ``"insert-absorb"`` (:func:`~pyterrier_boot.compact_letter_display`); the note names it.

    Each section has a summary table, forest plots of the means (and differences from the
    baseline), rank intervals and per-topic differences; up to :data:`MATRIX_LIMIT` systems also
    the pairwise matrix and rank boxes. Returns the page (str): inline SVG plots with PNG download
    links, sortable tables, nothing fetched, so it opens offline (``pt_docs/cli.md`` shows one).
    """
    check_method(letters_method, "letters_method")
    sections = results if isinstance(results, dict) else {"": results}
    if not sections:
        raise ValueError("'results' is empty: give an ExperimentResult or a dict of them")
    for result in sections.values() if baseline is not None else ():
        _reference(result, baseline)  # a baseline that is not a system is an error before any plot
    from . import __version__
    from ._html import page, scroll_box

    parts = [f"<h1>{_escape(title)}</h1>",
             f'<p class="muted">Written by pyterrier-boot {_escape(__version__)}.</p>']
    rows = "".join(f"<tr><td>{_escape(k)}</td><td>{_escape(v)}</td></tr>" for k, v in (settings or {}).items())
    parts += [scroll_box(f'<table class="kv">{rows}</table>')] if rows else []
    bar = None
    if plots and verbose:
        import pyterrier as pt

        bar = pt.tqdm(total=sum(_n_plots(r) for r in sections.values()), desc="report", unit="plot")
    try:
        for heading, result in sections.items():
            table = pairwise.get(heading) if isinstance(pairwise, dict) else pairwise
            known = truth.get(heading) if isinstance(truth, dict) else truth
            parts.append(_section(result, pairwise=table, test=test, correction=correction, alpha=alpha,
                                  digits=digits, plots=plots, truth=known, heading=heading, bar=bar,
                                  baseline=baseline, letters_method=letters_method))
    finally:
        if bar is not None:
            bar.close()
    for caption, frame in (tables or {}).items():
        parts.append(f"<h2>{_escape(caption)}</h2>{_table_html(frame, digits=4)}")
    return page(title or "pyterrier-boot report", "\n".join(parts))


def write_report(results: Any, path: PathLike, **kwargs: Any) -> Path:
    """Write :func:`html_report` to ``path`` (a file; parent folders are created) and return its
    :class:`~pathlib.Path`. Keyword arguments go to :func:`html_report`. The page is written to a
    temporary file beside ``path`` and renamed, so ``path`` is never left half-written.

    Example:
        >>> write_report(res, "out/report.html", title="TREC DL 2020")             # doctest: +SKIP
    """
    path = Path(path)
    page = html_report(results, **kwargs)
    with atomic_file(path, "write the report to") as file:  # an interrupted write never leaves half a report
        file.write(page)
    return path
