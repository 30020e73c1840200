"""The readable table of an experiment: ``0.305 [0.254, 0.356]`` cells with marks, as HTML,
LaTeX (booktabs) and Markdown.

One :class:`ResultTable` holds what every format shows: per system and measure the mean and its
interval, the best mean of each measure (bold), a mark where a system differs significantly from
a baseline (``†``, then ``‡``, ``§``, ``¶`` for further baselines), and, from an all-pairs
comparison, compact-letter-display letters (by default a clique cover, Gramm et al. 2007, as
every door; :mod:`pyterrier_boot.stats.letters`): systems that share a letter are not
significantly different. The caption says what the marks mean, which test and correction at
which level, and which variance the intervals include (topics, corpus or both).
"""
from __future__ import annotations

import html
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..stats.letters import DEFAULT_METHOD, check_method, compact_letter_display, letters_label
from .pairwise import tested_pairs, untested_phrase

__all__ = ["ResultTable", "result_table", "booktabs", "latex_escape", "markdown_table", "describe_intervals"]

MARKS = ("†", "‡", "§", "¶")
_LATEX_MARKS = {"†": r"\dagger", "‡": r"\ddagger", "§": r"\S", "¶": r"\P"}
VARIANCE = {"topic": "topics", "corpus": "corpus (documents)", "both": "topics and corpus"}
#: the test of every pair under ``seeds="random"``, in captions
SEED_TEST = "t test with seed variance (Satterthwaite df)"
_INTERVAL_NAMES = {"bca": "BCa", "percentile": "percentile", "basic": "basic", "studentized": "studentized",
                   "normal": "normal", "t": "t", "logit": "logit"}

# the default all-pairs comparison of a result, computed once per result (a notebook asks for
# the HTML and the LaTeX of the same result)
_PAIRWISE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class ResultTable:
    """What the rich display of an experiment shows (build with :func:`result_table`).

    Attributes:
        names, measures: row and column labels, rows in display order.
        mean, low, high: ``[system, measure]`` mean and interval limits (``low``/``high`` None
            without a bootstrap).
        best: ``[system, measure]`` whether the mean is the best of its measure (none with one system).
        marks: ``[system, measure]`` marks of significant differences from the baselines.
        letters: ``[system, measure]`` compact-letter-display letters, or None.
        baselines: names of the baselines (their rows say so).
        caption: what the cells and marks mean (plain text).
        digits: decimals shown.
        summed: per measure, whether it is summed over topics (whole sums shown without decimals).
    """

    names: tuple
    measures: tuple
    mean: np.ndarray
    low: np.ndarray | None
    high: np.ndarray | None
    best: np.ndarray
    marks: np.ndarray
    letters: np.ndarray | None
    baselines: tuple
    caption: str
    digits: int
    summed: tuple = ()

    def _number(self, value: float, j: int | None = None) -> str:
        if np.isnan(value):
            return "–"
        if not np.isfinite(value):  # an unbounded interval end (of a measure without a range)
            return "inf" if value > 0 else "-inf"
        if j is not None and self.summed[j] and float(value).is_integer():
            return f"{value:.0f}"  # a count summed over topics (NumRet, ...)
        return f"{value:.{self.digits}f}"

    def _interval(self, s: int, j: int) -> str:
        if self.low is None or self.high is None:
            return ""
        return f" [{self._number(self.low[s, j])}, {self._number(self.high[s, j])}]"

    def _name(self, s: int) -> str:
        return self.names[s] + (" (baseline)" if self.names[s] in self.baselines else "")

    def to_frame(self) -> pd.DataFrame:
        """The cells as strings: ``0.305 [0.254, 0.356]†`` with letters after a caret (``^ab``)."""
        out = {"name": [self._name(s) for s in range(len(self.names))]}
        for j, m in enumerate(self.measures):
            out[m] = [self._number(self.mean[s, j], j) + self._interval(s, j) + self.marks[s, j]
                      + (f" ^{self.letters[s, j]}" if self.letters is not None else "")
                      for s in range(len(self.names))]
        return pd.DataFrame(out)

    def to_html(self) -> str:
        """An HTML table with the caption (inline style only, no script)."""
        e = html.escape
        head = "".join(f'<th style="text-align:right">{e(str(m))}</th>' for m in self.measures)
        rows = []
        for s in range(len(self.names)):
            cells = []
            for j in range(len(self.measures)):
                number = e(self._number(self.mean[s, j], j))
                number = f"<b>{number}</b>" if self.best[s, j] else number
                extra = f"<sup>{e(self.marks[s, j])}</sup>" if self.marks[s, j] else ""
                if self.letters is not None:
                    extra += f'<sup style="color:#555">{e(self.letters[s, j])}</sup>'
                cells.append(f'<td style="text-align:right;white-space:nowrap">{number}'
                             f"{e(self._interval(s, j))}{extra}</td>")
            rows.append(f'<tr><td style="text-align:left">{e(self._name(s))}</td>{"".join(cells)}</tr>')
        return (f'<table><caption style="caption-side:bottom;text-align:left;font-size:0.85em;color:#444">'
                f'{e(self.caption)}</caption><thead><tr><th style="text-align:left">name</th>{head}</tr>'
                f'</thead><tbody>{"".join(rows)}</tbody></table>')

    def to_markdown(self) -> str:
        """A Markdown (pipe) table: bold best means, marks and ``<sup>`` letters, the caption below."""
        def esc(text: str) -> str:
            return str(text).replace("|", r"\|")

        lines = ["| name | " + " | ".join(esc(m) for m in self.measures) + " |",
                 "|:--" + "|--:" * len(self.measures) + "|"]
        for s in range(len(self.names)):
            cells = []
            for j in range(len(self.measures)):
                number = self._number(self.mean[s, j], j)
                number = f"**{number}**" if self.best[s, j] else number
                cell = number + self._interval(s, j) + self.marks[s, j]
                if self.letters is not None:
                    cell += f"<sup>{self.letters[s, j]}</sup>"
                cells.append(cell)
            lines.append(f"| {esc(self._name(s))} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n\n" + self.caption + "\n"

    def to_latex(self, *, caption: str | None = None, label: str | None = None, float_env: bool = True) -> str:
        """A booktabs table (needs ``\\usepackage{booktabs}``): the same cells and marks, the
        caption (``caption``, default the explanation of the marks) in ``\\caption``."""
        rows = []
        for s in range(len(self.names)):
            cells = []
            for j in range(len(self.measures)):
                number = self._number(self.mean[s, j], j).replace("–", "--")
                cell = rf"\textbf{{{number}}}" if self.best[s, j] else number
                cell += self._interval(s, j).replace("–", "--")
                sup = "".join(_LATEX_MARKS[c] for c in self.marks[s, j])
                if self.letters is not None and self.letters[s, j]:
                    sup += rf"\mathrm{{{self.letters[s, j]}}}"
                if sup:
                    cell += f"$^{{{sup}}}$"
                cells.append(cell)
            rows.append([latex_escape(self._name(s)), *cells])
        header = ["System", *(latex_escape(m) for m in self.measures)]
        return booktabs(header, rows, "l" + "r" * len(self.measures), caption=self.caption if caption is None
                        else caption, label=label, float_env=float_env)

    def _repr_html_(self) -> str:
        return self.to_html()

    def _repr_latex_(self) -> str:
        return self.to_latex(float_env=False)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def describe_intervals(result: Any) -> str:
    """One phrase saying how an :class:`~pyterrier_boot.ExperimentResult`'s intervals were made,
    e.g. ``"95% topic-bootstrap BCa intervals (10,000 topic resamples, seed 42)"`` (the captions of
    the table, the report, the command line and the leaderboard; the seed from the result's
    provenance, ``rng`` None being the fixed seed 42); with systems given as several runs it says
    whether the seed variance is in (``seeds random``) or the runs are taken as they are (``seeds fixed``)."""
    if result.bootstrap is None:
        return "no intervals (no bootstrap)"
    if result.distribution_ is None:
        return f"no intervals ({len(result.qids)} topic: at least 2 are needed)"
    n = result.distribution_.shape[0]
    unit = {"topic": "topic resamples", "corpus": "corpus images", "both": "replicates (topics and corpus)"}
    method = _INTERVAL_NAMES.get(result.interval, result.interval)
    seeds = getattr(result, "seeds", None)
    if seeds == "random":
        method = ("t intervals with seed variance (Satterthwaite df)" if result.interval == "t" else
                  f"{method} intervals with a seed term (topic, seed and topic-by-seed variance)")
        return (f"{100 * result.confidence_level:g}% {method}, seeds random: a new seed ({n:,} "
                f"{unit[result.bootstrap]}{_seed_phrase(result.provenance)}){_two_runs(result)}")
    fixed = ", seeds fixed: these runs' average" if seeds == "fixed" else ""
    return (f"{100 * result.confidence_level:g}% {result.bootstrap}-bootstrap {method} intervals "
            f"({n:,} {unit[result.bootstrap]}{fixed}{_seed_phrase(result.provenance)})")


def _two_runs(result: Any) -> str:
    """A flag for systems given as exactly two runs: their seed variance rests on one degree of freedom."""
    counts = result.run_scores.n_runs
    two = [name for name, k in zip(result.names, counts, strict=True) if k == 2]
    if not two:
        return ""
    return (f"; {', '.join(two[:5])}{', ...' if len(two) > 5 else ''}: 2 runs, a seed variance on 1 degree of "
            "freedom (wide intervals; 3 or more runs are better)")


def variance_label(result: Any) -> str:
    """What a result's intervals vary over, in words: ``"topics"``, ``"topics and seeds"``, ..."""
    label = VARIANCE[result.bootstrap]
    seeds = getattr(result, "seeds", None)
    if seeds == "random":
        return f"{label}, seeds and topic-by-seed"
    return f"{label} (seeds fixed)" if seeds == "fixed" else label


def _seed_phrase(provenance: Any) -> str:
    """``", seed 42"``, ``", a numpy Generator"`` or ``""`` (no provenance) for a result's rng."""
    record = (provenance or {}).get("rng")
    if not record:
        return ""
    return f", seed {record['seed']}" if "seed" in record else ", rng: a numpy Generator (state in the provenance)"


#: characters outside what pdflatex reads without a Unicode set-up, as commands valid in text and math
_LATEX_SYMBOLS = {"τ": r"\ensuremath{\tau}", "μ": r"\ensuremath{\mu}", "σ": r"\ensuremath{\sigma}",
                  "θ": r"\ensuremath{\theta}", "²": r"\textsuperscript{2}", "±": r"\ensuremath{\pm}",
                  "×": r"\ensuremath{\times}", "−": "-", "≤": r"\ensuremath{\le}", "≥": r"\ensuremath{\ge}",
                  "≈": r"\ensuremath{\approx}", "→": r"\ensuremath{\to}"}
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$",
                  "{": r"\{", "}": r"\}", "^": r"\^{}", "~": r"\~{}", **_LATEX_SYMBOLS}


def latex_escape(text: Any) -> str:
    """``text`` with LaTeX's special characters escaped and the Greek letters and signs of our
    captions (``τ²``, ``±``, ...) as LaTeX commands (``α`` is set in math by :func:`booktabs`)."""
    return "".join(_LATEX_ESCAPES.get(c, c) for c in str(text))


def markdown_table(frame: pd.DataFrame, caption: str | None = None) -> str:
    """``frame`` as a GitHub Markdown (pipe) table, numeric columns right-aligned, ``|`` in cells
    escaped, and the ``caption`` below it."""
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(map(cell, frame.columns)) + " |",
             "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(frame[c]) else "---" for c in frame) + "|"]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + ("" if caption is None else "\n\n" + caption + "\n")


def booktabs(header: list[str], rows: list[list[str]], align: str, *, caption: str | None = None,
             label: str | None = None, float_env: bool = True) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``) of cells already in LaTeX, with
    column alignment ``align`` (``"lrr"``); with ``float_env``, in a ``table`` float with the
    ``caption`` (plain text: escaped here, marks and ``α`` set in math) and ``label``."""
    lines = [r"\begin{table}", r"\centering"] if float_env else []
    lines += [rf"\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if float_env:
        text = latex_escape(caption or "")
        for mark, command in (*_LATEX_MARKS.items(), ("α", r"\alpha")):
            text = text.replace(mark, f"${command}$")
        lines.append(rf"\caption{{{text}}}")
        if label:
            lines.append(rf"\label{{{label}}}")
        lines.append(r"\end{table}")
    return "\n".join(lines)


def _significant(result: Any, alpha: float) -> tuple[list[str], np.ndarray]:
    """The baselines and ``[baseline, system, measure]`` whether each system differs from it."""
    comp = result.comparisons
    S, M = len(result.names), len(result.measures)
    if comp is None:
        return [], np.zeros((0, S, M), dtype=bool)
    baselines = list(dict.fromkeys(result.names[b] for b in comp.baseline_index))
    out = np.zeros((len(baselines), S, M), dtype=bool)
    frame = comp.frame
    verdict = comp.rejects(alpha)
    index = {n: i for i, n in enumerate(result.names)}
    measures = {m: j for j, m in enumerate(result.measures)}
    for name, base, m, v in zip(frame["name"], frame["baseline"], frame["measure"], verdict, strict=True):
        out[baselines.index(base), index[name], measures[m]] = bool(v)
    return baselines, out


def _describe_test(result: Any, test: str, correction: str | None, alpha: float) -> str:
    from ..stats.registry import test_label as test_name

    if result.bootstrap in ("corpus", "both"):
        what = f"{result.bootstrap}-bootstrap test over the intervals' replicates"
    elif getattr(result, "seeds", None) == "random":
        what = SEED_TEST
    else:
        what = test_name(test)
    corrected = f"{correction}-corrected per measure" if correction not in (None, "none") else "not corrected"
    return f"{what}, {corrected}, α = {alpha:g}"


def default_pairwise(result: Any, *, test: str = "t", correction: str = "holm", alpha: float | None = None) -> pd.DataFrame:
    """``result.pairwise(test, correction, alpha)`` (alpha default ``1 - confidence_level``), kept
    for the result's lifetime when the defaults are used."""
    from ..stats.inversion import alpha_of

    alpha = alpha_of(result.confidence_level) if alpha is None else alpha
    key = (test, correction, alpha)
    cached = _PAIRWISE.get(result)
    if cached is not None and cached[0] == key:
        return cached[1]
    table = result.pairwise(test=test, correction=correction, alpha=alpha)
    _PAIRWISE[result] = (key, table)
    return table


def result_table(result: Any, *, digits: int = 3, letters: bool | str = "auto", pairwise: pd.DataFrame | None = None,
                 test: str = "t", correction: str = "holm", alpha: float | None = None,
                 sort: bool = False, letters_method: str = DEFAULT_METHOD) -> ResultTable:
    """The rich table of an :class:`~pyterrier_boot.ExperimentResult`.

    Args:
        result: the experiment. digits: decimals of means and intervals (default 3).
        letters: add compact-letter-display letters from all pairs: True, False or ``"auto"``
            (default: when the result has no baseline and at least three systems).
        pairwise: the all-pairs table to take letters from (``result.pairwise(...)``; default:
            ``result.pairwise(test=test, correction=correction, alpha=alpha)``).
        test, correction: of the default all-pairs table.
        alpha: level of the marks (default: the experiment's ``correction_alpha`` when it
            corrected, else ``1 - confidence_level``, the level its verdicts used).
        sort: rows by the first measure, best first (default: the experiment's order).
        letters_method: how the letter groups are found, ``"cover"`` (default) or
            ``"insert-absorb"`` (:func:`~pyterrier_boot.compact_letter_display`); the caption names it.
    """
    from ..stats.inversion import alpha_of

    _check_table_options(digits, letters, letters_method)
    provenance = result.provenance or {}
    comp = result.comparisons
    if alpha is None:
        alpha = (provenance.get("correction_alpha", 0.05) if comp is not None and comp.correction is not None
                 else alpha_of(result.confidence_level))
    means = result.means
    S, M = means.shape
    order = np.argsort(-means[:, 0], kind="stable") if sort and M else np.arange(S)
    best = _best_means(means)
    baselines, significant = _significant(result, alpha)
    marks = _marks(significant, len(baselines), (S, M))
    notes = [f"Cells: mean [{describe_intervals(result)}; variance: {variance_label(result)}]."
             if result.intervals is not None else "Cells: mean over topics (no bootstrap, no intervals)."]
    if S > 1:
        notes.append("Bold: the best mean of each measure.")
    if baselines:
        test = provenance.get("test", "t")
        how = _describe_test(result, test, comp.correction, alpha)
        for k, b in enumerate(baselines):
            notes.append(f"{MARKS[k] if k < len(MARKS) else f'[{k + 1}]'}: significantly different from {b} ({how}).")
    letter_cells = None
    if letters is True or (letters == "auto" and comp is None and S >= 3):
        if pairwise is None:
            pairwise = default_pairwise(result, test=test, correction=correction, alpha=alpha)
        if len(tested_pairs(pairwise)):
            letter_cells = _letters(result, pairwise, letters_method)
            how = _describe_test(result, test, correction, alpha)
            notes.append(f"Letters: systems sharing a letter are not significantly different (all pairs, {how}; "
                         f"{letters_label(letters_method)}).")
        else:
            notes.append(f"No letters: {untested_phrase(len(result.qids))}.")
    return ResultTable(
        names=tuple(result.names[s] for s in order), measures=tuple(result.measures), mean=means[order],
        low=None if result.intervals is None else result.intervals[order, :, 0],
        high=None if result.intervals is None else result.intervals[order, :, 1],
        best=best[order], marks=marks[order], letters=None if letter_cells is None else letter_cells[order],
        baselines=tuple(baselines), caption=" ".join(notes), digits=int(digits), summed=tuple(result.summed))


def _check_table_options(digits, letters, letters_method) -> None:
    """ValueError naming the option for a bad ``digits``, ``letters`` or ``letters_method``."""
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ValueError(f"'digits' must be an integer >= 0, got {digits!r}")
    if letters not in (True, False, "auto"):
        raise ValueError(f"'letters' must be True, False or 'auto', got {letters!r}")
    check_method(letters_method, "letters_method")


def _best_means(means: np.ndarray) -> np.ndarray:
    """``[system, measure]``: the best finite mean of each measure (none with a single system)."""
    with np.errstate(invalid="ignore"):
        finite = np.where(np.isfinite(means), means, -np.inf)
        return (finite == finite.max(axis=0, keepdims=True)) & np.isfinite(means) & (means.shape[0] > 1)


def _marks(significant: np.ndarray, n_baselines: int, shape: tuple[int, int]) -> np.ndarray:
    """``[system, measure]`` marks: baseline ``k``'s mark where the system differs from it significantly."""
    marks = np.full(shape, "", dtype=object)
    for k in range(n_baselines):
        mark = MARKS[k] if k < len(MARKS) else f"[{k + 1}]"
        marks[significant[k]] = marks[significant[k]] + mark
    return marks


def _letters(result: Any, pairwise: pd.DataFrame, method: str) -> np.ndarray:
    """``[system, measure]`` letters of the compact letter display of ``pairwise`` (best first)."""
    out = np.full((len(result.names), len(result.measures)), "", dtype=object)
    for j, m in enumerate(result.measures):
        order = [result.names[s] for s in np.argsort(-result.means[:, j], kind="stable")]
        series = compact_letter_display(pairwise, measure=m, order=order, method=method)
        for s, name in enumerate(result.names):
            out[s, j] = str(series.get(name, ""))
    return out
