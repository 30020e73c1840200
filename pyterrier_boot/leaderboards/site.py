"""The leaderboard as a static web site: publishable as it is (relative links only, no script or
style from elsewhere, no server).

Files written into the site folder:

* ``index.html``: the sortable leaderboard, its caption, the settings, links to the plots;
* ``runs/<run>.html``: one page per run: its line of the leaderboard, its per-topic scores beside
  the median and best of all runs on each topic, and with a baseline the per-topic difference and
  the test against it;
* ``figures/means-<i>.svg``, ``figures/ranks-<i>.svg``: per measure ``i``, the forest plot of the
  means (:func:`~pyterrier_boot.plot_means`) and the rank intervals (:func:`~pyterrier_boot.plot_ranks`);
* ``leaderboard.csv``, ``perquery.csv``, ``pairwise.csv``: the numbers behind the pages.

With qrels judging one topic the site shows the means ranked with no intervals, no rank intervals,
no letters, no rank plot and no ``pairwise.csv`` (no pair is tested), and its caption says so.

The site reads a leaderboard through :class:`SiteBoard` (what it shows of one) and does not import
``board``: ``Leaderboard.write`` calls :func:`write_site`, so the import graph reads board -> site.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .._html import escape, page, sortable_table, svg_figure

__all__ = ["write_site", "run_file_names", "SiteBoard"]


class SiteBoard(Protocol):
    """What the site shows of a leaderboard (a :class:`~pyterrier_boot.leaderboards.Leaderboard`)."""

    @property
    def result(self) -> Any: ...
    @property
    def pairwise(self) -> pd.DataFrame: ...
    @property
    def baseline(self) -> str | None: ...
    @property
    def measures(self) -> tuple[str, ...]: ...
    @property
    def tested(self) -> bool: ...
    @property
    def sequential(self) -> bool: ...
    @property
    def mean_intervals(self) -> Any: ...
    def display_frame(self, digits: int = 3) -> pd.DataFrame: ...
    def to_frame(self) -> pd.DataFrame: ...
    def caption(self) -> str: ...
    def n_groups(self, measure: str | None = None) -> int: ...


def run_file_names(names: list[str]) -> dict[str, str]:
    """A distinct, safe file name (``runs/<name>.html``) for each run name."""
    out, used = {}, set()
    for name in names:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._") or "run"
        candidate, k = base, 2
        while candidate.lower() in used:
            candidate, k = f"{base}-{k}", k + 1
        used.add(candidate.lower())
        out[name] = f"{candidate}.html"
    return out


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _setting(value: Any, paths: bool) -> str:
    """A setting as shown: a path (``os.PathLike``) as its file name unless ``paths``; a list or
    tuple item by item; anything else as ``str``."""
    if isinstance(value, os.PathLike):
        return str(value) if paths else (Path(value).name or str(value))
    if isinstance(value, list | tuple):
        return ", ".join(_setting(v, paths) for v in value)
    return str(value)


def _settings_table(settings: Mapping[str, Any], paths: bool) -> str:
    rows = "".join(f"<tr><td>{escape(k)}</td><td>{escape(_setting(v, paths))}</td></tr>" for k, v in settings.items())
    return f'<table class="kv">{rows}</table>'


def _figures(board, folder: Path) -> list[str]:
    """Draw the plots into ``folder/figures`` and return the HTML that shows them."""
    import matplotlib

    matplotlib.use("Agg")
    from ..plotting import plot_means, plot_ranks

    res = board.result
    if board.sequential:  # the means' plot draws the sequences; no replicates to rank
        from dataclasses import replace

        res = replace(res, intervals=board.mean_intervals)
    parts = []
    for i, m in enumerate(board.measures, start=1):
        shown = []
        kinds = [("means", plot_means, "mean and interval of each run" if board.tested else
                  f"mean of each run (no intervals: {len(res.qids)} topic)"),
                 ("ranks", plot_ranks, "rank of each run over the bootstrap replicates")]
        if board.sequential:
            kinds = [("means", plot_means, f"mean and {100 * res.confidence_level:g}% confidence sequence "
                                           "(anytime-valid) of each run")]
        for kind, draw, what in kinds if board.tested else kinds[:1]:  # untested: no replicates to rank
            ax = draw(res, m, title=f"{m}: {what}") if board.sequential else draw(res, m)
            name = f"figures/{kind}-{i}.svg"
            _write(folder / name, svg_figure(ax.figure, alt=f"{m}: {what}") + "\n")
            shown.append(f'<figure><a href="{name}"><img src="{name}" alt="{escape(m)}: {escape(what)}">'
                         f'</a><figcaption>{escape(m)}: {escape(what)}.</figcaption></figure>')
        parts.append(f'<h3>{escape(m)}</h3><div class="figs">{"".join(shown)}</div>')
    return parts


def _index(board, files: dict[str, str], title: str, settings: Mapping[str, Any] | None, figures: list[str],
           paths: bool) -> str:
    from .. import __version__

    table = board.display_frame()
    table["run"] = [f'<a href="runs/{escape(files[r])}">{escape(r)}</a>' for r in table["run"]]
    for column in table.columns:
        if column != "run" and table[column].dtype == object:
            table[column] = table[column].map(escape)
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="muted">Written by pyterrier-boot {escape(__version__)}. Click a column header '
            "to sort; click a run for its per-topic scores.</p>"]
    if settings:
        body.append(_settings_table(settings, paths))
    groups = ", ".join(f"{escape(m)}: {board.n_groups(m)}" for m in board.measures)
    body += ["<h2>Ranking</h2>", f"<p>{escape(board.caption())}</p>"]
    if board.tested:
        body.append(f'<p class="muted">Letter groups per measure: {groups}.</p>')
    body += [f'<div class="scroll">{sortable_table(table, table_id="leaderboard", escape_cells=False)}</div>',
             '<p class="muted">The numbers: <a href="leaderboard.csv">leaderboard.csv</a>, '
             '<a href="perquery.csv">perquery.csv</a> (every run on every topic)'
             + (', <a href="pairwise.csv">pairwise.csv</a> (every pair of runs, with its interval and p-value)'
                if board.tested else "") + ".</p>"]
    if figures:
        body += ["<h2>Plots</h2>"] + figures
    return page(title, "\n".join(body))


def _run_page(board, name: str, title: str) -> str:
    res = board.result
    s = res.names.index(name)
    line = board.display_frame()
    line = line[line["run"] == name]
    topics = pd.DataFrame({"qid": list(res.qids)})
    b = res.names.index(board.baseline) if board.baseline is not None else None
    for j, m in enumerate(board.measures):
        values = res.values[:, :, j]
        topics[m] = values[s]
        topics[f"{m} median of runs"] = np.median(values, axis=0)
        topics[f"{m} best of runs"] = values.max(axis=0)
        if b is not None and b != s:
            topics[f"{m} diff vs {board.baseline}"] = values[s] - values[b]
    body = [f'<p><a href="../index.html">&larr; {escape(title)}</a></p>', f"<h1>{escape(name)}</h1>",
            sortable_table(line, caption="Its line of the leaderboard (see the leaderboard for what the columns mean)"),
            ]
    if b is not None and b != s and board.sequential:
        body += _sequential_baseline(board, name)
    elif b is not None and b != s and res.comparisons is not None:
        frame = res.comparisons.frame
        rows = frame[(frame["name"] == name) & (frame["baseline"] == board.baseline)]
        keep = [c for c in ("measure", "diff", "ci_low", "ci_high", "+", "-", "p-value", "p-value corrected", "reject")
                if c in rows.columns]
        body += [f"<h2>Against the baseline {escape(board.baseline)}</h2>",
                 sortable_table(rows[keep], digits=4, caption=(
                     "Mean difference (this run minus the baseline) with the interval its test inverts; "
                     "+/-: topics where this run is better/worse."))]
    body += ["<h2>Per topic</h2>",
             sortable_table(topics, table_id="topics", digits=4, caption=(
                 f"Score on each of the {len(res.qids)} judged topics, beside the median and the best of all "
                 f"{len(res.names)} runs on that topic" + (", and the difference to the baseline" if b is not None
                                                           and b != s else "") + "."))]
    return page(f"{name}: {title}", "\n".join(body))


def _sequential_baseline(board, name: str) -> list[str]:
    """A sequential board's rows of the pair (run, baseline), as the all-pairs table holds them."""
    frame = board.pairwise
    rows = frame[frame["system_a"].isin([name, board.baseline]) & frame["system_b"].isin([name, board.baseline])]
    keep = ["measure", "system_a", "system_b", "estimate", "ci_low", "ci_high", "pvalue", "decision",
            "topics_needed"]
    return [f"<h2>Against the baseline {escape(board.baseline)}</h2>",
            sortable_table(rows[keep], digits=4, caption=(
                "The pair's row of the all-pairs table (pairwise.csv): mean difference system_a minus system_b "
                "with its anytime-valid interval (Bonferroni: the confidence sequence at level alpha / pairs; e-BH: "
                "the e-BY interval at the last topic), the anytime p-value, "
                "the decision and a rough projection of the topics still needed."))]


def write_site(board: SiteBoard, site_dir: str | os.PathLike, *, title: str = "Leaderboard",
               settings: Mapping[str, Any] | None = None, plots: bool = True, paths: bool = False) -> Path:
    """Write ``board`` (a :class:`~pyterrier_boot.leaderboards.Leaderboard`) as a static site.

    Args:
        board: the leaderboard.
        site_dir: folder to write into (created; files of the same names are replaced,
            and run pages of an earlier site that this one does not link removed).
        title: page title.
        settings: mapping ``label -> value`` listed under the title (qrels, command, seed, ...).
            A value that is a path (``os.PathLike``, or a list of them) shows as its file name, so
            the site tells nothing of the machine it was built on; strings show as given.
        plots: draw the SVG plots (needs matplotlib).
        paths: show such values as full paths instead.

    Returns:
        the folder's :class:`~pathlib.Path`; open ``index.html``.

    Example:
        >>> board.write("site/", title="TREC DL 2020 passage ranking")       # doctest: +SKIP
    """
    folder = Path(site_dir)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"'site_dir' {str(folder)!r} exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    files = run_file_names(list(board.result.names))
    figures = _figures(board, folder) if plots else []
    _write(folder / "index.html", _index(board, files, title, settings, figures, paths))
    for name, file in files.items():
        _write(folder / "runs" / file, _run_page(board, name, title))
    for stale in set((folder / "runs").glob("*.html")) - {folder / "runs" / f for f in files.values()}:
        stale.unlink()  # an earlier site's run pages, which this index no longer links
    board.to_frame().to_csv(folder / "leaderboard.csv", index=False)
    board.result.per_query().to_csv(folder / "perquery.csv", index=False)
    if board.tested:  # as evaluate --out: no pairwise.csv when no pair is tested
        board.pairwise.to_csv(folder / "pairwise.csv", index=False)
    else:
        (folder / "pairwise.csv").unlink(missing_ok=True)  # an earlier site's, not this board's
    return folder
