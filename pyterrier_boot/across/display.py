"""Readable tables of an analysis across collections: ``0.412 [0.381, 0.444]`` cells and a caption
saying which question each column answers, as HTML (a notebook), LaTeX (booktabs) and Markdown."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._html import sortable_fragment
from ..experiment.display import booktabs, latex_escape, markdown_table

if TYPE_CHECKING:
    from .result import AcrossCollections

__all__ = ["CaptionedTable", "across_table", "describe_variance", "interval_cells"]

_PREDICTION = {"q-profile": "τ²'s Q-profile confidence distribution",
               "higgins": "Higgins et al.'s t with k - 2 degrees of freedom",
               "hksj": "t with k - 1 degrees of freedom and the HKSJ standard error"}
_VARIANCE = {"topics": "topics resampled within each collection", "corpus": "corpus images of each collection",
             "topics+corpus": "topics and corpus images of each collection",
             "topics+seeds": "topics resampled within each collection, and each system's seed variance; "
                             "seeds random: a new seed"}


@dataclass(frozen=True)
class CaptionedTable:
    """A table of strings and the caption that says what its cells are."""

    frame: pd.DataFrame
    caption: str

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def to_html(self) -> str:
        """A sortable HTML table with its caption (:func:`~pyterrier_boot._html.sortable_fragment`)."""
        return sortable_fragment(self.frame, caption=self.caption, digits=None)

    def to_markdown(self) -> str:
        """A Markdown table, the caption below."""
        return markdown_table(self.frame, self.caption)

    def to_latex(self, *, caption: str | None = None, label: str | None = None, float_env: bool = True) -> str:
        """A booktabs table (``\\usepackage{booktabs}``); ``caption`` goes before the explanation."""
        align = "l" + "r" * (len(self.frame.columns) - 1)
        rows = [[latex_escape(v) for v in row] for row in self.frame.itertuples(index=False)]
        text = self.caption if caption is None else f"{caption} {self.caption}"
        return booktabs([latex_escape(c) for c in self.frame.columns], rows, align, caption=text, label=label,
                        float_env=float_env)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __str__(self) -> str:
        return self.frame.to_string(index=False) + "\n\n" + self.caption


def interval_cells(estimate: np.ndarray, low: np.ndarray, high: np.ndarray, digits: int) -> list[str]:
    """``"0.412 [0.381, 0.444]"`` per value (``–`` for a missing figure)."""
    def number(v: float) -> str:
        return f"{v:.{digits}f}" if np.isfinite(v) else "–"

    return [f"{number(e)} [{number(lo)}, {number(hi)}]" for e, lo, hi in zip(estimate, low, high, strict=True)]


def _cells(frame: pd.DataFrame, interval: str, digits: int) -> list[str]:
    """:func:`interval_cells` of ``frame``'s ``estimate`` and ``<interval>_low/high`` columns."""
    return interval_cells(frame["estimate"].to_numpy(), frame[f"{interval}_low"].to_numpy(),
                          frame[f"{interval}_high"].to_numpy(), digits)


def describe_variance(variance: str, seeds: str | None = None) -> str:
    """What a collection's standard error varies, in words; with ``seeds="fixed"``, that the seed
    variance is not in it (the runs' average), as ``"topics+seeds"`` says it is."""
    text = _VARIANCE.get(variance, variance)
    return f"{text}, not each system's seed variance; seeds fixed: these runs' average" if seeds == "fixed" else text


def _sentence_start(text: str) -> str:
    """``text`` with its first word capitalised, unless that word is a measure's name (``nDCG@10``)."""
    first = text.split(" ", 1)[0]
    return text if not first.isalpha() or first != first.lower() else text[:1].upper() + text[1:]


def _caption(result: AcrossCollections) -> str:
    level = f"{100 * result.confidence_level:g}%"
    model = f"{result.tau2_method} τ², {'Hartung-Knapp-Sidik-Jonkman' if result.hksj else 'normal (Wald)'}"
    return " ".join([
        f"{_sentence_start(result.what)} on {result.k} collections.",
        f"Per collection: the figure with its {level} interval ({describe_variance(result.variance, result.seeds)}).",
        f"Average (these collections): the mean over these {result.k} collections, {level} t interval with "
        "Welch-Satterthwaite degrees of freedom; it varies what each collection's interval varies, never the "
        "collections.",
        f"Pooled (a population of collections): the random-effects mean ({model} {level} interval), which adds "
        "the variance between collections.",
        f"Prediction (a new collection): where the figure of a new collection from the same population should fall "
        f"({level}, {_PREDICTION[result.prediction]}).",
        "I²: the share of a collection's variance that lies between collections; a large I² or a prediction "
        "interval much wider than the pooled interval says the collections disagree.",
    ])


def across_table(result: AcrossCollections, *, digits: int = 3) -> CaptionedTable:
    """One row per system: its figure on each collection, the average, the pooled mean, the
    prediction interval and ``I²``."""
    if not isinstance(digits, int) or isinstance(digits, bool) or not 0 <= digits <= 10:
        raise ValueError(f"'digits' must be an integer from 0 to 10, got {digits!r}")
    per = result.per_collection()
    average, pooled = result.average(), result.pooled()
    rows = list(average["system"])
    frame = pd.DataFrame({"system": rows})
    for name in result.collections:
        part = per[per["collection"] == name]
        frame[name] = interval_cells(part["estimate"].to_numpy(), part["ci_low"].to_numpy(),
                                     part["ci_high"].to_numpy(), digits)
    frame["average"] = _cells(average, "ci", digits)
    frame["pooled"] = _cells(pooled, "ci", digits)
    frame["prediction"] = [cell[cell.index("["):] for cell in _cells(pooled, "pi", digits)]
    frame["I²"] = [f"{100 * v:.0f}%" if np.isfinite(v) else "–" for v in pooled["i2"]]
    return CaptionedTable(frame, _caption(result))
