"""Small self-contained HTML pieces for reports and leaderboards: sortable tables, inline SVG
figures, and a page with its style and script inline (no external resource, so a page can be
mailed, archived, opened offline or published as it is).

A page (:func:`page`) carries one :data:`SORT_SCRIPT` that makes every ``table.sortable`` sort. An
HTML fragment shown in a notebook has no page around it, so :func:`sortable_fragment` gives the
table its own small inline script, which wires that table alone (found by its unique id, so it
works whether the front end inserts the output with its scripts in place, as JupyterLab and an
``nbconvert`` HTML page do, or runs them elsewhere, as the classic Notebook does)."""
from __future__ import annotations

import html
import io
import math
import re
import uuid
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

_NUMBER = re.compile(r"\s*[-+]?(\d|\.\d)")

__all__ = ["STYLE", "SORT_SCRIPT", "escape", "scroll_box", "sortable_table", "sortable_fragment", "page", "svg_figure"]

STYLE = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.5em; } .muted { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
caption { text-align: left; color: #555; font-size: 0.95em; padding: 0.3em 0; caption-side: top; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; position: sticky; top: 0; } td:first-child, th:first-child { text-align: left; }
td.text, th.text { text-align: left; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \\2195"; color: #bbb; font-size: 0.8em; }
table.sortable th[aria-sort=ascending]::after { content: " \\25B2"; color: #333; }
table.sortable th[aria-sort=descending]::after { content: " \\25BC"; color: #333; }
tbody tr:hover { background: #f7f9fc; }
table.kv td { text-align: left; white-space: normal; overflow-wrap: anywhere; }
table.kv td:first-child { font-weight: 600; overflow-wrap: normal; }
figure { margin: 1em 0; max-width: 100%; min-width: 0; } figcaption { color: #555; font-size: 0.85em; max-width: 900px; }
img, svg { max-width: 100%; height: auto; } img { border: 1px solid #eee; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
details { margin: 0.8em 0; } summary { cursor: pointer; color: #1f4e9a; }
code { background: #f4f4f4; padding: 0 3px; } a { color: #1f4e9a; }
.scroll { overflow-x: auto; max-width: 100%; }
"""

# Click a header to sort by that column (again to reverse). A cell sorts by its data-sort attribute
# if any, else by its text: numerically when both cells start with a number, else as text; empty
# cells go last either way. wire(table) makes one table sort (once: it marks it data-sort-wired).
_SORT_FUNCTIONS = """
  var NUMBER = /^\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?/i;
  function key(cell) {
    var text = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    var match = NUMBER.exec(text);
    return {empty: text.trim() === "" || text.trim() === "NaN", number: match ? parseFloat(match[0]) : NaN,
            text: text.trim().toLowerCase()};
  }
  function compare(a, b) {
    if (a.empty || b.empty) { return a.empty - b.empty; }
    if (!isNaN(a.number) && !isNaN(b.number) && a.number !== b.number) { return a.number - b.number; }
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }
  function sort(table, column, header) {
    var body = table.tBodies[0];
    var descending = header.getAttribute("aria-sort") === "ascending";
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return {row: row, key: key(row.cells[column]), i: i};
    });
    rows.sort(function (x, y) {
      if (x.key.empty || y.key.empty) { return (x.key.empty - y.key.empty) || (x.i - y.i); }
      return (descending ? -compare(x.key, y.key) : compare(x.key, y.key)) || (x.i - y.i);
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  function wire(table) {
    if (!table || !table.tHead || !table.tBodies.length || table.hasAttribute("data-sort-wired")) { return; }
    table.setAttribute("data-sort-wired", "");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.title = "click to sort";
      th.addEventListener("click", function () { sort(table, column, th); });
    });
  }
"""

SORT_SCRIPT = ("\n(function () {" + _SORT_FUNCTIONS + """
  function init() { Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), wire); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
""")

# the sorting cues of a fragment's table, shown only once its script has wired it (a front end
# that does not run the script shows a plain table, not arrows that do nothing)
_FRAGMENT_STYLE = """
#{id}[data-sort-wired] th {{ cursor: pointer; user-select: none; }}
#{id}[data-sort-wired] th::after {{ content: " \\2195"; color: #bbb; font-size: 0.8em; }}
#{id}[data-sort-wired] th[aria-sort=ascending]::after {{ content: " \\25B2"; color: #333; }}
#{id}[data-sort-wired] th[aria-sort=descending]::after {{ content: " \\25BC"; color: #333; }}
"""


def escape(text: Any) -> str:
    """HTML-escape ``str(text)`` (quotes included)."""
    return html.escape(str(text), quote=True)


def _cell(value: Any, digits: int | None, escaped: bool) -> tuple[str, str | None, bool]:
    """(shown HTML, sort key or None, is text) of one cell."""
    import numpy as np
    import pandas as pd

    if isinstance(value, bool | np.bool_):
        return str(bool(value)), None, True
    if isinstance(value, Integral):
        return str(int(value)), None, False
    if isinstance(value, Real):
        number = float(value)
        if math.isnan(number):
            return "", None, False
        shown = f"{number:.{digits}f}" if digits is not None else str(number)
        return shown, repr(number), False
    if value is None or value is pd.NA or value is pd.NaT:
        return "", None, False
    text = str(value)
    return (escape(text) if escaped else text), None, not _NUMBER.match(text)


def scroll_box(content: str) -> str:
    """``content`` (HTML, as given) in a ``<div class="scroll">``: a table wider than the page
    scrolls sideways inside the box (:data:`STYLE`), so the page itself never does.

    Example:
        >>> scroll_box("<table></table>")
        '<div class="scroll"><table></table></div>'
    """
    return f'<div class="scroll">{content}</div>'


def sortable_table(frame: pandas.DataFrame, *, table_id: str | None = None, caption: str | None = None,
                   digits: int | None = 3, escape_cells: bool = True, index: bool = False) -> str:
    """A ``<table class="sortable">``: clicking a header sorts the rows by that column.

    Numbers sort numerically (a float cell keeps its full value as the sort key while showing
    ``digits`` decimals; a text cell that starts with a number, such as ``"0.305 [0.254, 0.356]"``
    or ``"3-7"``, sorts by that number); other cells sort as text; empty cells go last. The
    script is :data:`SORT_SCRIPT`, included by :func:`page`.

    Args:
        frame: the table (column labels as headers).
        table_id: the table's ``id`` attribute.
        caption: a ``<caption>`` text.
        digits: decimals shown for float cells (None: as Python prints them).
        escape_cells: escape the cells' text; False to pass HTML (links, ``<b>``, ``<sup>``) through.
        index: include the frame's index as the first column.

    Example:
        >>> import pandas as pd
        >>> sortable_table(pd.DataFrame({"run": ["x"], "AP": [0.25]}))[:60]
        '<table class="sortable"><thead><tr><th class="text">run</th>'
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"'frame' must be a pandas DataFrame, got {type(frame).__name__}")
    if index:
        frame = frame.reset_index()
    cells = [[_cell(v, digits, escape_cells) for v in column] for _, column in frame.items()]
    textual = [bool(col) and all(text or shown == "" for shown, _, text in col) for col in cells]
    attributes = f' id="{escape(table_id)}"' if table_id is not None else ""
    parts = [f'<table class="sortable"{attributes}>']
    if caption is not None:
        parts.append(f"<caption>{escape(caption)}</caption>")
    parts.append("<thead><tr>")
    text_class = ' class="text"'
    parts += [f"<th{text_class if t else ''}>{escape(c)}</th>" for c, t in zip(frame.columns, textual, strict=True)]
    parts.append("</tr></thead><tbody>")
    for r in range(len(frame)):
        parts.append("<tr>")
        for col, t in zip(cells, textual, strict=True):
            shown, sort_key, _ = col[r]
            attrs = (text_class if t else "") + (f' data-sort="{sort_key}"' if sort_key is not None else "")
            parts.append(f"<td{attrs}>{shown}</td>")
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def sortable_fragment(frame: pandas.DataFrame, *, caption: str | None = None, digits: int | None = 3,
                      escape_cells: bool = True, index: bool = False) -> str:
    """A :func:`sortable_table` that sorts without a page around it (a notebook's output): the
    table, with a fresh unique id, then a ``<style>`` and a ``<script>`` (inline, a few lines) that
    make that table sort when a header is clicked. Where the front end does not run the script
    (an untrusted notebook, a viewer that strips scripts) the table shows unsorted, without arrows.
    Arguments as :func:`sortable_table`.

    Example:
        >>> import pandas as pd
        >>> html = sortable_fragment(pd.DataFrame({"run": ["x"], "AP": [0.25]}))
        >>> html.startswith('<table class="sortable" id="ptb-') and html.endswith("</script>")
        True
    """
    table_id = f"ptb-{uuid.uuid4().hex[:16]}"
    table = sortable_table(frame, table_id=table_id, caption=caption, digits=digits, escape_cells=escape_cells,
                           index=index)
    script = "(function () {" + _SORT_FUNCTIONS + f'  wire(document.getElementById("{table_id}"));\n}})();'
    return f"{table}<style>{_FRAGMENT_STYLE.format(id=table_id)}</style><script>{script}</script>"


def page(title: str, body: str) -> str:
    """A complete HTML document: ``title``, the inline :data:`STYLE` and :data:`SORT_SCRIPT`, and
    ``body`` (HTML, inserted as given).

    Example:
        >>> page("Runs", "<p>hello</p>").startswith("<!DOCTYPE html>")
        True
    """
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
            f"<script>{SORT_SCRIPT}</script>\n</body></html>\n")


def svg_figure(fig: Any, *, alt: str | None = None, close: bool = True) -> str:
    """A matplotlib figure as an inline ``<svg>`` element (text kept as text, so it stays small
    and searchable).

    Args:
        fig: a matplotlib Figure.
        alt: a text alternative (``role="img"`` and ``aria-label``).
        close: close the figure afterwards (``plt.close``).

    Example:
        >>> import matplotlib.pyplot as plt
        >>> fig, ax = plt.subplots()
        >>> svg_figure(fig, alt="empty")[:4]
        '<svg'
    """
    import matplotlib
    import matplotlib.pyplot as plt

    if not isinstance(fig, matplotlib.figure.Figure):
        raise TypeError(f"'fig' must be a matplotlib Figure, got {type(fig).__name__}")
    buffer = io.StringIO()
    try:
        # no date and fixed element ids: the same figure gives the same bytes (a page can be diffed)
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pyterrier-boot"}):
            fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        if close:
            plt.close(fig)
    text = buffer.getvalue()
    start = text.index("<svg")
    svg = text[start:]
    if alt is not None:
        svg = svg.replace("<svg", f'<svg role="img" aria-label="{escape(alt)}"', 1)
    return svg.strip()
