"""The self-contained HTML helpers: sortable tables, pages and inline SVG figures."""
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from pyterrier_boot._html import page, sortable_table, svg_figure


class _Cells(HTMLParser):
    """Collects the headers, cells and their attributes of a table."""

    def __init__(self):
        super().__init__()
        self.headers, self.rows, self.attrs, self._in = [], [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        if tag in ("th", "td"):
            self._in = tag
            self.attrs.append(dict(attrs))
            (self.headers if tag == "th" else self.rows[-1]).append("")

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self._in = None

    def handle_data(self, data):
        if self._in == "th":
            self.headers[-1] += data
        elif self._in == "td":
            self.rows[-1][-1] += data


def _parse(text):
    parser = _Cells()
    parser.feed(text)
    parser.rows = [r for r in parser.rows if r]
    return parser


def test_sortable_table_cells():
    frame = pd.DataFrame({"run": ["a<b", "c"], "AP": [0.123456, np.nan], "n": [3, 4],
                          "ok": [True, False], "interval": ["0.3 [0.2, 0.4]", "3-7"]})
    text = sortable_table(frame, table_id="runs", caption="Runs & scores")
    assert text.startswith('<table class="sortable" id="runs"><caption>Runs &amp; scores</caption>')
    parsed = _parse(text)
    assert parsed.headers == ["run", "AP", "n", "ok", "interval"]
    assert parsed.rows == [["a<b", "0.123", "3", "True", "0.3 [0.2, 0.4]"], ["c", "", "4", "False", "3-7"]]
    cells = {(h, r): parsed.attrs[5 + 5 * r + k] for r in range(2) for k, h in enumerate(parsed.headers)}
    assert cells[("AP", 0)]["data-sort"] == "0.123456"  # the full value sorts, three decimals show
    assert cells[("run", 0)]["class"] == "text" and "class" not in cells[("interval", 0)]


def test_sortable_table_options():
    frame = pd.DataFrame({"x": [1.5]}, index=pd.Index(["r"], name="run"))
    assert _parse(sortable_table(frame, index=True, digits=None)).rows == [["r", "1.5"]]
    assert "<b>1</b>" in sortable_table(pd.DataFrame({"x": ["<b>1</b>"]}), escape_cells=False)
    assert "&lt;b&gt;" in sortable_table(pd.DataFrame({"x": ["<b>1</b>"]}))
    with pytest.raises(TypeError, match="'frame'"):
        sortable_table([[1]])


def test_page_is_self_contained():
    text = page("A <title>", sortable_table(pd.DataFrame({"x": [1]})))
    assert text.startswith("<!DOCTYPE html>") and "<title>A &lt;title&gt;</title>" in text
    assert "<script>" in text and "table.sortable" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)


def test_svg_figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title")
    svg = svg_figure(fig, alt="a line")
    assert svg.startswith('<svg role="img" aria-label="a line"') and svg.endswith("</svg>")
    assert "a title" in svg  # text kept as text
    assert not plt.fignum_exists(fig.number)
    with pytest.raises(TypeError, match="'fig'"):
        svg_figure(ax)
