"""A :class:`~.result.TestAudit` shown in a notebook (HTML) or a paper (LaTeX).

The table is ``TestAudit.table()`` with rates to ``digits`` decimals, a Type I error that exceeds
``alpha`` plus two standard errors marked (bold in HTML, ``\\textbf`` in LaTeX), the recommendation
above it and the goodness-of-fit summary below (HTML).
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from .sentence import kept

if TYPE_CHECKING:
    import pandas as pd

    from .result import TestAudit

__all__ = ["audit_html", "audit_latex"]

_SHOWN = ("test", "correction", "alternative", "n_topics", "systems", "type_i", "type_i_se", "type_iii")


def _columns(table: pd.DataFrame) -> list[str]:
    extra = [c for c in table.columns if c.startswith(("power@", "fdr@"))]
    return [c for c in _SHOWN if c in table.columns] + extra


def _cell(value, digits, missing="–"):
    if isinstance(value, (float, np.floating)):
        return missing if not np.isfinite(value) else f"{value:.{digits}f}"
    return str(value)


def audit_html(audit: TestAudit, digits: int = 3) -> str:
    """The recommendation, the table (exceeded Type I errors in bold) and the fit summary."""
    table = audit.table()
    columns = _columns(table)
    ok = kept(table).to_numpy()
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for i, (_, row) in enumerate(table.iterrows()):
        cells = []
        for c in columns:
            text = html.escape(_cell(row[c], digits))
            cells.append(f"<td><b>{text}</b></td>" if c == "type_i" and not ok[i] else f"<td>{text}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    fit = audit.goodness.summary().to_html(index=False, float_format=lambda v: f"{v:.3f}")
    return (f"<p>{html.escape(audit.recommendation())}</p><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
            f"<p>Type I errors in bold exceed alpha = {audit.alpha:g} plus two Monte Carlo standard errors. "
            "Rows with more than 2 systems: family-wise error rate and false discovery rate of the "
            f"correction over families of {audit.family_size} systems.</p><p>Goodness of fit of the model:</p>{fit}")


def _tex(text: str) -> str:
    return text.replace("_", r"\_").replace("%", r"\%").replace("&", r"\&").replace("@", "@")


def audit_latex(audit: TestAudit, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
    """A booktabs ``table``: one row per table row; the settings in the caption."""
    table = audit.table()
    columns = _columns(table)
    ok = kept(table).to_numpy()
    lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{" + "l" * 3 + "r" * (len(columns) - 3) + "}",
             r"\toprule", " & ".join(_tex(c) for c in columns) + r" \\", r"\midrule"]
    for i, (_, row) in enumerate(table.iterrows()):
        cells = []
        for c in columns:
            text = _tex(_cell(row[c], digits, missing="--"))
            cells.append(rf"\textbf{{{text}}}" if c == "type_i" and not ok[i] else text)
        lines.append(" & ".join(cells) + r" \\")
    text = caption if caption is not None else (
        f"Type I error (bold: above $\\alpha = {audit.alpha:g}$ plus two standard errors), Type III error and "
        f"power from {audit.n_simulations:,} simulated topic sets per topic count "
        f"({audit.measure or 'scores'}, {len(audit.systems)} systems; Urbano, Lima \\& Hanjalic 2019).")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{text}}}"]
    if label:
        lines.append(rf"\label{{{label}}}")
    return "\n".join(lines + [r"\end{table}"]) + "\n"
