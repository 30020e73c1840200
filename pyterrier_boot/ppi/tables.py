"""The doors every prediction-powered evaluation shares: one interval, the wide table, every pair.

A subclass holds ``names``, ``measures``, ``estimand`` and computes ``_intervals(m, weights)``: the
``"ppi"``, ``"human-only"`` and ``"auto-only"`` intervals of the linear combinations ``weights``
(runs x columns) of the runs' means for measure ``m``; ``_flags(m, weights)`` names, per column,
the reasons its PPI interval cannot be trusted (``pt_docs/ppi.md``, "Flags").
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .._results import ConfidenceInterval
from .intervals import PPIResult

__all__ = ["IntervalTables", "KINDS", "MOSTLY_ZERO", "column_flags"]

#: interval kinds, in table order
KINDS = ("ppi", "human-only", "auto-only")
#: a run scoring 0 on more than this share of the topics (by the automatic labels) is flagged "mostly 0"
MOSTLY_ZERO = 0.5


def column_flags(weights: np.ndarray, reasons: dict[str, np.ndarray]) -> list[str]:
    """Per column of ``weights`` (runs x columns), the reasons (``name -> boolean per run``) that
    hold for any run the column involves, comma-separated ("" for none)."""
    involved = np.abs(weights) > 0
    return [", ".join(name for name, flagged in reasons.items() if flagged[involved[:, c]].any())
            for c in range(weights.shape[1])]


class IntervalTables:
    """Mixin: :meth:`intervals`, :meth:`table`, :meth:`pairwise` and :meth:`flags` from ``_intervals``."""

    names: tuple[str, ...]
    measures: tuple[str, ...]
    estimand: str

    def _intervals(self, m: int, weights: np.ndarray) -> dict[str, PPIResult]:
        raise NotImplementedError

    def _flags(self, m: int, weights: np.ndarray) -> list[str]:
        """Per column of ``weights``: "" or the reasons (comma-separated) not to trust its interval."""
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return f"<p>{self!r}</p>" + self.table().to_html(index=False, float_format=lambda v: f"{v:.4f}")

    def _index(self, name) -> int:
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool) and 0 <= name < len(self.names):
            return int(name)
        if isinstance(name, str) and name in self.names:
            return self.names.index(name)
        raise ValueError(f"baseline {name!r} is not among the runs: give a position 0..{len(self.names) - 1} or "
                         f"one of the names {list(self.names)}")

    def intervals(self, measure: str, difference: tuple | None = None) -> dict[str, PPIResult]:
        """The three intervals for one measure: ``{"ppi", "human-only", "auto-only"} -> PPIResult``.

        Without ``difference``, one entry per run (in ``names`` order); with
        ``difference=(a, b)`` (names or positions) the mean of ``a - b``.
        """
        if measure not in self.measures:
            raise ValueError(f"unknown measure {measure!r}: expected one of {list(self.measures)}")
        m = self.measures.index(measure)
        if difference is None:
            return self._intervals(m, np.eye(len(self.names)))
        a, b = (self._index(x) for x in difference)
        weights = np.zeros((len(self.names), 1))
        weights[a, 0] += 1
        weights[b, 0] -= 1
        return {k: _first(r) for k, r in self._intervals(m, weights).items()}

    def table(self, baseline: int | str | None = None) -> pd.DataFrame:
        """One row per run: ``name`` and, for each measure ``m``, ``m`` (the PPI estimate),
        ``m ci_low``, ``m ci_high``, ``m lambda``, then ``m human-only`` and ``m auto-only`` with
        their ``ci_low`` / ``ci_high``. With a ``baseline`` (name or position) also ``m diff``,
        ``m diff ci_low``, ``m diff ci_high``, ``m diff lambda``, ``m p-value`` (the PPI z-test of
        no difference, from the same standard error as the interval) and the human-only and
        auto-only differences with their intervals; the baseline's own row holds NaN there. The
        last column, ``estimand``, says what every interval is about (``"population"`` or ``"topics"``).
        ``m flag`` (and ``m diff flag``) is empty, or says why the PPI interval of that run (or
        difference) under-covered in our measurements (``pt_docs/ppi.md``, "Flags"): ``"mostly 0"``,
        ``"few labels in top ranks"``.
        """
        b = None if baseline is None else self._index(baseline)
        columns: dict[str, object] = {"name": list(self.names)}
        n_runs = len(self.names)
        for m, label in enumerate(self.measures):
            means = self._intervals(m, np.eye(n_runs))
            _put(columns, label, means, diff=False)
            columns[f"{label} flag"] = self._flags(m, np.eye(n_runs))
            if b is not None:
                weights = np.eye(n_runs)
                weights[b, :] -= 1  # column i: run i minus the baseline (zero for the baseline)
                diffs = self._intervals(m, weights)
                _put(columns, label, diffs, diff=True, blank=b)
                flags = self._flags(m, weights)
                flags[b] = ""
                columns[f"{label} diff flag"] = flags
        columns["estimand"] = self.estimand
        return pd.DataFrame(columns)

    def pairwise(self) -> pd.DataFrame:
        """Every pair of runs ``(name, vs)`` with ``name`` before ``vs``, for each measure: the
        difference ``name - vs`` by PPI (``diff``, ``ci_low``, ``ci_high``, ``lambda``,
        ``p-value``) and the human-only and auto-only differences with their intervals; ``flag`` and
        ``estimand`` as in :meth:`table`."""
        pairs = [(i, j) for i in range(len(self.names)) for j in range(i + 1, len(self.names))]
        if not pairs:
            raise ValueError("pairwise differences need at least 2 runs")
        weights = np.zeros((len(self.names), len(pairs)))
        for c, (i, j) in enumerate(pairs):
            weights[i, c], weights[j, c] = 1, -1
        frames = []
        for m, label in enumerate(self.measures):
            res = self._intervals(m, weights)
            ppi, human, auto = res["ppi"], res["human-only"], res["auto-only"]
            frames.append(pd.DataFrame({
                "name": [self.names[i] for i, _ in pairs], "vs": [self.names[j] for _, j in pairs],
                "measure": label, "diff": ppi.statistic, "ci_low": ppi.confidence_interval.low,
                "ci_high": ppi.confidence_interval.high, "lambda": ppi.lam, "p-value": ppi.pvalue,
                "human-only diff": human.statistic, "human-only ci_low": human.confidence_interval.low,
                "human-only ci_high": human.confidence_interval.high, "auto-only diff": auto.statistic,
                "auto-only ci_low": auto.confidence_interval.low, "auto-only ci_high": auto.confidence_interval.high,
                "flag": self._flags(m, weights), "estimand": self.estimand,
            }))
        return pd.concat(frames, ignore_index=True)


def _first(result: PPIResult) -> PPIResult:
    """A one-column result as scalars."""
    ci = result.confidence_interval
    return replace(result, statistic=float(result.statistic[0]), standard_error=float(result.standard_error[0]),
                   pvalue=float(result.pvalue[0]), lam=float(result.lam[0]), df=float(result.df[0]),
                   confidence_interval=ConfidenceInterval(float(ci.low[0]), float(ci.high[0])))


def _put(columns: dict, label: str, results: dict[str, PPIResult], *, diff: bool, blank: int | None = None):
    def values(a):
        a = np.array(a, dtype=float)
        if blank is not None:
            a[blank] = np.nan
        return a

    ppi = results["ppi"]
    head = f"{label} diff" if diff else label
    columns[head] = values(ppi.statistic)
    columns[f"{head} ci_low"] = values(ppi.confidence_interval.low)
    columns[f"{head} ci_high"] = values(ppi.confidence_interval.high)
    columns[f"{head} lambda"] = values(ppi.lam)
    if diff:
        columns[f"{label} p-value"] = values(ppi.pvalue)
    for kind in ("human-only", "auto-only"):
        res = results[kind]
        name = f"{label} {kind} diff" if diff else f"{label} {kind}"
        columns[name] = values(res.statistic)
        columns[f"{name} ci_low"] = values(res.confidence_interval.low)
        columns[f"{name} ci_high"] = values(res.confidence_interval.high)
