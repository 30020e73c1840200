"""What was measured: the coverage of the 95% intervals estimated from a judging plan, by measure,
labels per topic, estimand and column (means or differences), and the flag that follows from it.

The figures (:data:`~pyterrier_boot.ppi.measured_coverage.TABLE`) come from
``benchmarks/ppi_budget_coverage.py``: TREC DL 2019 and 2020, two real LLM judges and a simulated
one, 500 plans per cell (``pt_docs/ppi.md``, "Which budgets support which measures"). Each row
holds the *lowest* coverage over the collections and judges, and where it was measured. An
interval is flagged when that lowest coverage, at the largest measured budget not above the
plan's labels per topic, is under :data:`HOLDS`; below the smallest measured budget, it is
flagged as not measured. A measure the table does not hold reads the row of its family: nDCG at
any cutoff that of nDCG@10, P@k and R@k that of P@10, RR and Success that of RR, AP and Rprec that
of AP.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..measures.lowering import AP, NDCG, RPREC, RR, SUCCESS, KernelMeasure, P, R
from .measured_coverage import TABLE

__all__ = ["HOLDS", "Measured", "coverage_flag", "family", "measured_coverage"]

#: an interval holds when its measured coverage is at least this (95% less 2 points)
HOLDS = 93.0
#: the measure each family was measured on
_FAMILIES = {NDCG: "nDCG@10", P: "P@10", R: "P@10", RR: "RR", SUCCESS: "RR", AP: "AP", RPREC: "AP"}


@dataclass(frozen=True)
class Measured:
    """One row of the table: the lowest coverage (%) over the collections and judges, its Monte
    Carlo standard error, the plans behind it, and where (collection and judge) it was measured."""

    family: str
    labels_per_topic: int
    coverage: float
    standard_error: float
    plans: int
    where: str

    @property
    def holds(self) -> bool:
        """Whether the interval kept its level there (coverage at least :data:`HOLDS`)."""
        return self.coverage >= HOLDS


def family(km: KernelMeasure) -> str:
    """The measured measure whose row ``km`` reads."""
    return _FAMILIES[km.kind]


def measured_coverage(km: KernelMeasure, planned: bool, labels_per_topic: float, estimand: str,
                      column: str) -> Measured | None:
    """The row for a measure from a plan made for it (``planned``) or not, at the largest measured
    budget not above ``labels_per_topic``; None below the smallest. ``column``: ``"mean"`` or
    ``"difference"``."""
    rows = [row for row in TABLE if row[0] == family(km) and row[1] == planned and row[2] == estimand
            and row[3] == column and row[4] <= labels_per_topic + 1e-9]
    if not rows:
        return None
    row = max(rows, key=lambda r: r[4])
    return Measured(row[0], row[4], row[5], row[6], row[7], row[8])


def coverage_flag(km: KernelMeasure, label: str, planned: bool, labels_per_topic: float, estimand: str,
                  column: str) -> str:
    """"" when the measured coverage holds, else what was measured, in words (no commas: flags are
    joined by them)."""
    if not TABLE:
        return ""
    found = measured_coverage(km, planned, labels_per_topic, estimand, column)
    plan = "a plan made for it" if planned else "a plan not made for it"
    if found is None:
        smallest = min((row[4] for row in TABLE), default=0)
        return f"not measured below {smallest} labels per topic"
    if found.holds:
        return ""
    proxy = "" if found.family in (label, label.replace("(rel=2)", "")) else f" as {found.family}"
    return (f"measured {found.coverage:.1f}% at {found.labels_per_topic} labels per topic ({estimand} estimand; "
            f"{plan}{proxy}; lowest in {found.where})")
