"""A self-contained HTML report of an experiment: tables and plots in one file.

:func:`html_report` returns the page as a string and :func:`write_report` writes it; the plots
(:mod:`pyterrier_boot.plotting`) are embedded as base64 PNG images, the style is inline, and there
is no script, so the file can be mailed, archived or opened offline. :func:`summary_table` is the
readable table both the report and ``pyterrier-boot evaluate`` print: ``0.412 [0.381, 0.444]``
cells, systems sorted by the first measure, and the comparisons in a few characters.

Example:
    >>> import pyterrier_boot as pb
    >>> res = pb.experiment_result(runs, None, qrels, ["AP", "nDCG@10"])            # doctest: +SKIP
    >>> pb.write_report(res, "report.html", title="My runs")                        # doctest: +SKIP
"""
from __future__ import annotations

import base64
import datetime
import html
import io
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .stats.registry import test_label

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ._typing import PathLike
    from .experiment.result import ExperimentResult


__all__ = ["summary_table", "html_report", "write_report", "describe_intervals"]

_INTERVAL_NAMES = {"bca": "BCa", "percentile": "percentile", "basic": "basic", "studentized": "studentized",
                   "normal": "normal", "t": "t", "logit": "logit"}


# ---------------------------------------------------------------- text pieces


def describe_intervals(result: ExperimentResult) -> str:
    """One phrase saying how the result's intervals were made, e.g. ``"95% topic-bootstrap BCa
    intervals (10,000 topic resamples)"``."""
    if result.bootstrap is None or result.distribution_ is None:
        return "no intervals (no bootstrap)"
    n = result.distribution_.shape[0]
    unit = {"topic": "topic resamples", "corpus": "corpus images", "both": "replicates (topics and corpus)"}
    method = _INTERVAL_NAMES.get(result.interval, result.interval)  # type: ignore[arg-type]  # set with a bootstrap
    return (f"{100 * result.confidence_level:g}% {result.bootstrap}-bootstrap {method} intervals "
            f"({n:,} {unit[result.bootstrap]})")


def _number(value, digits):
    return "" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


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
                  sort: bool = True) -> pd.DataFrame:
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

    Example:
        >>> summary_table(res, pairwise=res.pairwise(correction="holm"))           # doctest: +SKIP
    """
    means = result.means
    order = np.argsort(-means[:, 0], kind="stable") if sort else np.arange(len(result.names))
    out = {"name": [result.names[s] for s in order]}
    for j, m in enumerate(result.measures):
        if result.intervals is None:
            out[m] = [_number(means[s, j], digits) for s in order]
        else:
            out[m] = [f"{_number(means[s, j], digits)} [{_number(result.intervals[s, j, 0], digits)}, "
                      f"{_number(result.intervals[s, j, 1], digits)}]" for s in order]
    if result.comparisons is not None:
        frame = result.comparisons.frame
        baselines = list(dict.fromkeys(result.names[b] for b in result.comparisons.baseline_index))
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
    elif pairwise is not None and len(pairwise):
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
    return pd.DataFrame(out)


def comparison_note(result: ExperimentResult, *, pairwise: Any = None, test: str = "t",
                    correction: str | None = "holm", alpha: float = 0.05) -> str:
    """One sentence explaining the comparison columns of :func:`summary_table` (empty without any)."""
    if result.bootstrap in ("corpus", "both"):  # the verdicts are the replicate test of the intervals
        test_text = f"{result.bootstrap}-bootstrap test over the same replicates as the intervals"
    else:
        test_text = test_label(test)
    if result.comparisons is not None:
        corrected = result.comparisons.correction
        how = test_text + (f", {corrected}-corrected per measure" if corrected else ", not corrected")
        return (f"'<m> vs <b>': difference from the baseline b and its p-value ({how}); "
                f"* marks p < {alpha:g}.")
    if pairwise is not None and len(pairwise):
        how = test_text + (f", {correction}-corrected per measure" if correction else ", not corrected")
        return (f"'<m> >/<': number of systems this one is significantly better / worse than, over all "
                f"pairs ({how}, p < {alpha:g}).")
    return ""


# ---------------------------------------------------------------- HTML

# columns of the comparisons table in the report (all of them are in pairwise.csv)
_PAIR_COLUMNS = ("measure", "system_a", "system_b", "name", "baseline", "difference", "diff", "ci_low", "ci_high",
                 "p-value", "p-value corrected", "corpus p-value", "reject")

_STYLE = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.5em; } .muted { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; position: sticky; top: 0; } td:first-child, th:first-child { text-align: left; }
table.kv td { text-align: left; white-space: normal; } table.kv td:first-child { font-weight: 600; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.85em; max-width: 900px; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
details { margin: 0.8em 0; } summary { cursor: pointer; color: #1f4e9a; }
code { background: #f4f4f4; padding: 0 3px; }
"""


def _escape(text):
    return html.escape(str(text), quote=True)


def _table_html(frame, *, digits=None):
    frame = frame.copy()
    if digits is not None:
        for column in frame.columns:
            if pd.api.types.is_float_dtype(frame[column]):
                fmt = f".{digits}g" if "p-value" in str(column) else f".{digits}f"  # small p-values stay visible
                frame[column] = frame[column].map(lambda v, fmt=fmt: "" if pd.isna(v) else f"{v:{fmt}}")
    return frame.to_html(index=False, escape=True, na_rep="", border=0)


def _figure_html(fig, caption, alt):
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=100)
    finally:
        plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_escape(alt)}">'
            f"<figcaption>{_escape(caption)}</figcaption></figure>")


def _plot(draw, caption, alt, bar=None):
    """Draw one plot into HTML; a plot that cannot be drawn becomes a note, not a failed report."""
    try:
        drawn = draw()
    except ValueError as error:
        return f'<p class="muted">({_escape(alt)} not drawn: {_escape(error)})</p>'
    finally:
        if bar is not None:
            bar.update()
    fig = np.asarray(drawn, dtype=object).reshape(-1)[0].figure
    return _figure_html(fig, caption, alt)


def _n_plots(result):
    S, M = len(result.names), len(result.measures)
    several = S > 1
    return M * (2 + several + (several and result.distribution_ is not None)) + (several and result.corpus is not None)


def _section(result, *, pairwise, test, correction, alpha, digits, plots, truth, heading, bar):
    from . import plotting

    parts = []
    if heading:
        parts.append(f"<h2>{_escape(heading)}</h2>")
    S, Q = len(result.names), len(result.qids)
    parts.append(f"<p>{S} systems × {Q} topics; measures {', '.join(map(_escape, result.measures))}; "
                 f"{_escape(describe_intervals(result))}.</p>")
    if result.comparisons is None and pairwise is None and S > 1:
        pairwise = result.pairwise(test=test, correction=correction, alpha=alpha)
    summary = summary_table(result, pairwise=pairwise, alpha=alpha, digits=digits)
    parts.append("<h3>Summary</h3>")
    cells = (f"Cells: mean over topics [{describe_intervals(result)}]. " if result.intervals is not None
             else "Cells: mean over topics (no bootstrap, no intervals). ")
    parts.append(f'<p class="muted">Systems sorted by {_escape(result.measures[0])}. {_escape(cells)}'
                 f"{_escape(comparison_note(result, pairwise=pairwise, test=test, correction=correction, alpha=alpha))}"
                 "</p>")
    parts.append(_table_html(summary))

    if plots:
        parts.append("<h3>Means and intervals</h3><div class='figs'>")
        for m in result.measures:
            values = None if truth is None or m not in truth else truth[m]
            parts.append(_plot(lambda m=m, values=values: plotting.plot_means(result, m, truth=values),
                               f"Each system's mean {m} (dot) with its interval (line), best at the top. "
                               "Overlapping intervals do not by themselves mean 'no significant difference': "
                               "see the pairwise comparisons.", f"forest plot of mean {m}", bar))
        parts.append("</div>")
        if S > 1:
            parts.append("<h3>Pairwise comparisons</h3><div class='figs'>")
            for m in result.measures:
                parts.append(_plot(
                    lambda m=m: plotting.plot_pairwise(result, m, pairwise=pairwise, test=test, correction=correction,
                                                       alpha=alpha),
                    f"Difference of mean {m} between the row and the column system (blue: row better). "
                    "A dot marks a significant difference.", f"pairwise difference matrix of {m}", bar))
            parts.append("</div>")
    frame = pairwise if result.comparisons is None else result.comparisons.frame
    if frame is not None and len(frame):
        frame = frame[[c for c in frame.columns if c in _PAIR_COLUMNS]]
        parts.append(f"<details><summary>All {len(frame):,} comparisons (table)</summary>"
                     f"{_table_html(frame, digits=4)}</details>")
    if plots:
        parts += _later_figures(result, alpha, bar)
    parts.append("<details><summary>Full table (pt.Experiment columns)</summary>"
                 f"{_table_html(result.table(), digits=4)}</details>")
    return "\n".join(parts)


def _later_figures(result, alpha, bar):
    """The report's figures after the comparisons: rank variability, per-topic scores and
    significance across corpus images."""
    from . import plotting

    S, parts = len(result.names), []
    if result.distribution_ is not None and S > 1:
        parts.append("<h3>Rank variability</h3><div class='figs'>")
        for m in result.measures:
            parts.append(_plot(lambda m=m: plotting.plot_ranks(result, m),
                               f"Rank of each system by mean {m} on every bootstrap replicate (Zobel & Rashidi "
                               "2020, Fig. 5): a long box means the system's place in the ranking is uncertain.",
                               f"rank boxplots for {m}", bar))
        parts.append("</div>")
    parts.append("<h3>Per-topic scores</h3><div class='figs'>")
    for m in result.measures:
        best = result.names[int(np.argmax(result.means[:, result.measures.index(m)]))]
        parts.append(_plot(lambda m=m, best=best: plotting.plot_topics(result, best, m),
                           f"{best} (best on {m}): its score on each topic"
                           + (", with the spread over corpus images (Zobel & Rashidi 2020, Fig. 2)."
                              if result.corpus is not None else "."),
                           f"per-topic {m} of {best}", bar))
    parts.append("</div>")
    if result.corpus is not None and S > 1:
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
                digits: int = 3, plots: bool = True, verbose: bool = False) -> str:
    """The report of one or several experiments as one self-contained HTML page.

    Args:
        results: an :class:`~pyterrier_boot.ExperimentResult`, or a dict ``heading -> result``
            (one section each, e.g. the topic and the corpus bootstrap of the same runs).
        title: page title.
        settings: mapping ``label -> value`` listed under the title (command, files, seed, ...).
        pairwise: the all-pairs table of a result without baselines (``result.pairwise(...)``), or
            a dict ``heading -> table``; computed with ``test``, ``correction`` and ``alpha`` when
            not given.
        tables: extra tables, a dict ``caption -> DataFrame``, shown at the end.
        truth: known values to mark on the means plots: a DataFrame (index systems, one column
            per measure), e.g. a simulated collection's ``truth()``, or a dict ``heading -> frame``
            (only the sections whose intervals estimate it).
        test, correction, alpha: of the all-pairs comparisons (their names are only shown when
            ``pairwise`` is given).
        digits: decimals of the scores in the summary.
        plots: draw the plots (needs matplotlib); ``False`` gives tables only.
        verbose: a progress bar over the plots (``pt.tqdm``).

    Returns:
        The HTML page (str). Plots are PNG images inlined as base64; no file is read or linked.

    Example:
        >>> page = html_report({"topic bootstrap": res_topic, "corpus bootstrap": res_corpus})  # doctest: +SKIP
    """
    sections = results if isinstance(results, dict) else {"": results}
    if not sections:
        raise ValueError("'results' is empty: give an ExperimentResult or a dict of them")
    from . import __version__

    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{_escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{_escape(title)}</h1>",
             f'<p class="muted">Written by pyterrier-boot {_escape(__version__)} on {now}.</p>']
    if settings:
        rows = "".join(f"<tr><td>{_escape(k)}</td><td>{_escape(v)}</td></tr>" for k, v in settings.items())
        parts.append(f'<table class="kv">{rows}</table>')
    bar = None
    if plots and verbose:
        import pyterrier as pt

        bar = pt.tqdm(total=sum(_n_plots(r) for r in sections.values()), desc="report", unit="plot")
    try:
        for heading, result in sections.items():
            table = pairwise.get(heading) if isinstance(pairwise, dict) else pairwise
            known = truth.get(heading) if isinstance(truth, dict) else truth
            parts.append(_section(result, pairwise=table, test=test, correction=correction, alpha=alpha,
                                  digits=digits, plots=plots, truth=known, heading=heading, bar=bar))
    finally:
        if bar is not None:
            bar.close()
    for caption, frame in (tables or {}).items():
        parts.append(f"<h2>{_escape(caption)}</h2>{_table_html(frame, digits=4)}")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(results: Any, path: PathLike, **kwargs: Any) -> Path:
    """Write :func:`html_report` to ``path`` (a file; parent folders are created) and return its
    :class:`~pathlib.Path`. Keyword arguments go to :func:`html_report`. The page is written to a
    temporary file beside ``path`` and renamed, so ``path`` is never left half-written.

    Example:
        >>> write_report(res, "out/report.html", title="TREC DL 2020")             # doctest: +SKIP
    """
    path = Path(path)
    page = html_report(results, **kwargs)
    partial = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # written beside it and renamed: an interrupted write never leaves half a report
        handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(page)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(partial, 0o666 & ~umask)
        os.replace(partial, path)
    except OSError as error:
        raise ValueError(f"cannot write the report to '{path}': {error.strerror or error}") from None
    finally:
        if partial is not None and os.path.exists(partial):
            os.unlink(partial)
    return path
