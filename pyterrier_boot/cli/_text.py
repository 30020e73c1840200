"""Tables as text: aligned blocks that fit the terminal, Markdown, and JSON-ready records."""
import json
import math

import numpy as np
import pandas as pd

WIDTH = 100  # the widest the terminal output gets (narrower terminals get narrower blocks)
_MAX_NAME = 40


def terminal_width():
    """The terminal's width, at most :data:`WIDTH` (``WIDTH`` when unknown, e.g. in a pipe)."""
    import shutil

    return max(40, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))


def _clip(text, limit):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render_table(frame, *, width=WIDTH, key_columns=1, gap=2):
    """An aligned text table of a frame of strings; when it is wider than ``width`` the columns are
    split into blocks, each repeating the first ``key_columns`` columns (the system names).

    The first column is left-aligned, the others right-aligned; names longer than 40 characters
    are shortened with ``...``.
    """
    headers = [str(c) for c in frame.columns]
    cells = [[str(v) for v in frame[c]] for c in frame.columns]
    if cells and key_columns:
        cells[0] = [_clip(v, _MAX_NAME) for v in cells[0]]
    widths = [max([len(h)] + [len(v) for v in col]) for h, col in zip(headers, cells, strict=True)]
    keys = list(range(min(key_columns, len(headers))))
    rest = list(range(len(keys), len(headers)))
    key_width = sum(widths[k] + gap for k in keys)
    blocks, current, used = [], [], key_width
    for c in rest:
        if current and used + widths[c] > width:
            blocks.append(current)
            current, used = [], key_width
        current.append(c)
        used += widths[c] + gap
    if current or not blocks:
        blocks.append(current)
    n_rows = len(frame)
    out = []
    for block in blocks:
        columns = keys + block

        def line(values, columns=columns):
            parts = [v.ljust(widths[c]) if c == 0 else v.rjust(widths[c]) for c, v in zip(columns, values, strict=True)]
            return (" " * gap).join(parts).rstrip()

        out.append(line([headers[c] for c in columns]))
        out.append(line(["-" * widths[c] for c in columns]))
        out.extend(line([cells[c][r] for c in columns]) for r in range(n_rows))
        out.append("")
    return "\n".join(out).rstrip("\n")


def wrap(text, width=WIDTH, indent=""):
    """Wrap a paragraph to ``width`` columns."""
    import textwrap

    return textwrap.fill(text, width=width, subsequent_indent=indent, break_on_hyphens=False)


def markdown_table(frame):
    """A GitHub-flavoured Markdown table (first column left-aligned, others right-aligned)."""
    def cell(value):
        return str(value).replace("|", "\\|")

    headers = [cell(c) for c in frame.columns]
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join([":---"] + ["---:"] * (len(headers) - 1)) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


def markdown_text(text):
    """A sentence for Markdown: the column names it quotes (``'<m> >/<'``) as code spans, so that
    ``<m>`` is not read as an HTML tag."""
    import re

    return re.sub(r"'(<[^']*)'", r"`\1`", text)


def _plain(value):
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(value) else float(value)
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return value if isinstance(value, (str, int)) else str(value)


def records(frame):
    """A frame as a list of dicts of plain JSON values (NaN becomes null)."""
    if frame is None:
        return None
    return [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def dumps(obj):
    """JSON text, strict (no NaN)."""
    return json.dumps(obj, indent=2, allow_nan=False, ensure_ascii=False)
