"""Shared pieces of result objects: frozen dataclasses that also unpack like tuples."""
from dataclasses import dataclass
from typing import Any, ClassVar


class TupleLike:
    """Mixin for frozen dataclasses that unpack like a tuple of their leading fields.

    ``statistic, pvalue = t_test(x, y)`` works, and ``result[1]`` is the p-value, which is what
    ``pt.Experiment(test=...)`` reads. Subclasses list the unpacked fields in ``_tuple_fields``.
    """

    __slots__ = ()
    _tuple_fields: ClassVar[tuple[str, ...]] = ()

    def __iter__(self):
        return iter(tuple(getattr(self, f) for f in self._tuple_fields))

    def __getitem__(self, index):
        return tuple(self)[index]

    def __len__(self):
        return len(self._tuple_fields)


@dataclass(frozen=True, slots=True)
class ConfidenceInterval(TupleLike):
    """A confidence interval; ``low, high = ci`` also works (as scipy's)."""

    low: Any
    high: Any
    _tuple_fields: ClassVar[tuple[str, ...]] = ("low", "high")


def interval_table_html(names, columns, *, caption: str, digits: int = 3, bold_best: bool = True) -> str:
    """A notebook table of ``mean [low, high]`` cells (``digits`` decimals), one row per name.

    ``columns`` maps a column label to ``(mean, low, high)`` arrays, one value per name; with
    ``bold_best`` the largest mean of each column is bold. ``caption`` says what the cells are.
    """
    import html

    import numpy as np

    def number(v):
        return "–" if not np.isfinite(v) else f"{v:.{digits}f}"

    head = "".join(f'<th style="text-align:right">{html.escape(str(c))}</th>' for c in columns)
    rows = []
    for i, name in enumerate(names):
        cells = []
        for mean, low, high in columns.values():
            mean = np.asarray(mean, dtype=float)
            shown = number(mean[i])
            if bold_best and np.isfinite(mean[i]) and mean[i] == np.nanmax(mean):
                shown = f"<b>{shown}</b>"
            cells.append(f'<td style="text-align:right;white-space:nowrap">{shown} '
                         f"[{number(np.asarray(low, dtype=float)[i])}, {number(np.asarray(high, dtype=float)[i])}]</td>")
        rows.append(f'<tr><td style="text-align:left">{html.escape(str(name))}</td>{"".join(cells)}</tr>')
    return (f'<table><caption style="caption-side:bottom;text-align:left;font-size:0.85em;color:#444">'
            f'{html.escape(caption)}</caption><thead><tr><th style="text-align:left">name</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')
