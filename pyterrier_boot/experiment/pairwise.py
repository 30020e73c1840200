"""What ``ExperimentResult.pairwise()`` returns: the all-pairs table, a pandas DataFrame that a
notebook shows readable.

:class:`PairwiseTable` is a ``DataFrame`` with the same columns and the same values as the
table of :func:`pyterrier_boot.compare` (users compute with it, and whatever is derived from it,
a slice, ``head()``, a copy, is a plain ``DataFrame``); only its notebook display differs:
``0.123 [0.045, 0.201]`` differences, p-values as ``<0.001`` or three decimals, wins / ties /
losses in one cell, significant pairs bold with the verdict (``S3 > S1``), and a caption naming
the test, the correction and the level (from the table's ``attrs``).
"""
from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PairwiseTable", "tested_pairs", "untested_phrase"]


def tested_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of an all-pairs table whose pair was tested: all but those on fewer than 2 topics,
    which :meth:`ExperimentResult.pairwise <pyterrier_boot.ExperimentResult.pairwise>` gives
    untested (the difference and wins, NaN p-values, ``reject`` False). Letters and win / loss
    counts are drawn from these rows only: an untested pair is no evidence of "no difference"."""
    if "n_topics" not in frame.columns:
        return frame
    return frame[frame["n_topics"].to_numpy() >= 2]


def untested_phrase(n_topics: int) -> str:
    """Why no pair is tested, in the words of every caption: ``"no pair is tested (1 topic: a test
    needs at least 2)"``."""
    return f"no pair is tested ({n_topics} topic{'s' if n_topics != 1 else ''}: a test needs at least 2)"


class PairwiseTable(pd.DataFrame):
    """The all-pairs table of a result (``system_a``, ``system_b``, ``difference``, ``ci_low``,
    ``ci_high``, ``p-value``, ``reject``, ...): a DataFrame whose notebook display is readable
    (:meth:`readable_html`); everything else is pandas'."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame  # what is derived from the table is a plain DataFrame

    @classmethod
    def of(cls, frame: pd.DataFrame) -> PairwiseTable:
        """``frame`` (a :func:`~pyterrier_boot.compare` table) as a PairwiseTable: same columns,
        values and ``attrs``."""
        table = cls(frame)
        table.attrs = dict(frame.attrs)
        return table

    def readable_html(self, *, digits: int = 3, max_rows: int | None = None) -> str:
        """The readable HTML table a notebook shows (inline style only, no script; ``digits``
        decimals of means and differences; the first ``max_rows`` pairs, default pandas'
        ``display.max_rows``, the caption saying how many are shown). ``to_html()`` is still pandas' own."""
        if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
            raise ValueError(f"'digits' must be an integer >= 0, got {digits!r}")
        if max_rows is None:
            max_rows = pd.get_option("display.max_rows") or max(len(self), 1)
        if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
            raise ValueError(f"'max_rows' must be an integer >= 1, got {max_rows!r}")
        heads = ["measure", "a", "b", "mean a", "mean b", "difference a − b [interval]", *self._pvalue_columns(),
                 "effect size", "wins / ties / losses", "verdict"]
        shown = min(len(self), int(max_rows))
        rows = [self._row(i, int(digits)) for i in range(shown)]
        head = "".join(f'<th style="text-align:{"left" if k < 3 else "right"};padding:0 6px">{html.escape(h)}</th>'
                       for k, h in enumerate(heads))
        more = f"The first {shown} of {len(self):,} pairs. " if shown < len(self) else ""
        caption = html.escape(more + self.caption())
        return (f'<div style="overflow-x:auto"><table><caption style="caption-side:bottom;text-align:left;'
                f'font-size:0.85em;color:#444">{caption}</caption><thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table></div>')

    def _repr_html_(self) -> str:
        return self.readable_html()

    def _pvalue_columns(self) -> list[str]:
        return [c for c in ("p-value", "p-value corrected", "corpus p-value") if c in self.columns]

    def _row(self, i: int, digits: int) -> str:
        e = html.escape
        row = self.iloc[i]
        significant = bool(row["reject"]) if "reject" in self.columns else False

        def number(value: Any) -> str:
            return "–" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"

        difference = f"{number(row['difference'])} [{number(row['ci_low'])}, {number(row['ci_high'])}]"
        if significant:
            difference = f"<b>{e(difference)}</b>"
            higher, lower = ((row["system_a"], row["system_b"]) if row["difference"] >= 0
                             else (row["system_b"], row["system_a"]))
            verdict = f"<b>{e(str(higher))} &gt; {e(str(lower))}</b>"
        else:
            difference, verdict = e(difference), '<span style="color:#777">not significant</span>'
        cells = [e(str(row["measure"])), e(str(row["system_a"])), e(str(row["system_b"])),
                 number(row["mean_a"]), number(row["mean_b"]), difference,
                 *(_pvalue(row[c]) for c in self._pvalue_columns()),
                 "–" if not np.isfinite(row["effect_size"]) else f"{row['effect_size']:.2f}",
                 f"{int(row['wins'])} / {int(row['ties'])} / {int(row['losses'])}", verdict]
        tds = "".join(f'<td style="text-align:{"left" if k < 3 else "right"};white-space:nowrap;padding:0 6px">{c}</td>'
                      for k, c in enumerate(cells))
        return f"<tr>{tds}</tr>"

    def caption(self) -> str:
        """What the display shows: the test, the correction and the level (from ``attrs``)."""
        from ..stats.registry import test_label

        attrs = self.attrs
        alpha = attrs.get("alpha", 0.05)
        correction = attrs.get("correction")
        corrected = f"{correction}-corrected per measure" if correction not in (None, "none") else "not corrected"
        levels = list(self["ci_level"].unique()) if "ci_level" in self.columns else []
        interval = f"{100 * float(levels[0]):g}% interval" if len(levels) == 1 else "interval (level: ci_level)"
        return (f"Each pair of systems: difference in mean (a − b) [{interval}]; "
                f"{test_label(attrs.get('test', 't'))}, {corrected}, α = {alpha:g}; bold: significant (reject). "
                "The values are the DataFrame's (full precision); this is only how a notebook shows it.")


def _pvalue(p: Any) -> str:
    if p is None or not np.isfinite(p):
        return "–"
    return "&lt;0.001" if p < 0.001 else f"{p:.3f}"
