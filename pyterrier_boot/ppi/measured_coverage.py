"""The measured coverage table read by :mod:`pyterrier_boot.ppi.coverage` (written by
``benchmarks/ppi_budget_coverage.py --write-table``; do not edit by hand).

Rows: ``(family, plan made for the measure, estimand, column, labels per topic, lowest coverage %,
its standard error, plans per cell, where the lowest was measured)``.
"""
TABLE: tuple[tuple[str, bool, str, str, int, float, float, int, str], ...] = ()
