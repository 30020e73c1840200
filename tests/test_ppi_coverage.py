"""The measured coverage table behind the flags (issue 36, item 3): written by
benchmarks/ppi_budget_coverage.py, read by pyterrier_boot.ppi.coverage."""
import itertools
from pathlib import Path

import pytest

from pyterrier_boot.measures.lowering import lower
from pyterrier_boot.measures.parsing import parse_measures
from pyterrier_boot.ppi.coverage import HOLDS, coverage_flag, family, measured_coverage
from pyterrier_boot.ppi.measured_coverage import TABLE

FAMILIES = ("nDCG@10", "P@10", "RR", "AP")
BUDGETS = (10, 20, 50, 100)


def _km(measure):
    return lower(parse_measures([measure])[0].measure)


def test_the_table_has_every_cell_the_benchmark_measures():
    keys = {(row[0], row[1], row[2], row[3], row[4]) for row in TABLE}
    expected = set(itertools.product(FAMILIES, (True, False), ("population", "topics"), ("mean", "difference"), BUDGETS))
    assert keys == expected and len(TABLE) == len(expected)
    for row in TABLE:
        assert 0 <= row[5] <= 100 and 0 < row[6] < 5 and row[7] >= 100 and row[8].startswith("DL 20")
    assert all(row[7] >= 500 for row in TABLE if row[1])  # at least 500 plans per cell of measure-aware plans


@pytest.mark.parametrize(("measure", "expected"), [("nDCG@10", "nDCG@10"), ("nDCG@5", "nDCG@10"), ("ndcg", "nDCG@10"),
                                                   ("P(rel=2)@10", "P@10"), ("R@100", "P@10"), ("RR", "RR"),
                                                   ("Success@10", "RR"), ("AP", "AP"), ("Rprec", "AP")])
def test_each_measure_reads_its_family(measure, expected):
    assert family(_km(measure)) == expected


def test_the_row_is_the_largest_measured_budget_not_above_the_plan():
    km = _km("AP(rel=2)")
    assert measured_coverage(km, True, 9.9, "topics", "mean") is None
    assert coverage_flag(km, "AP(rel=2)", True, 9.9, "topics", "mean") == "not measured below 10 labels per topic"
    for labels, budget in ((10, 10), (19.9, 10), (20, 20), (49, 20), (75, 50), (100, 100), (5000, 100)):
        found = measured_coverage(km, True, labels, "topics", "mean")
        row = next(r for r in TABLE if r[:5] == ("AP", True, "topics", "mean", budget))
        assert found.labels_per_topic == budget and found.coverage == row[5] and found.holds == (row[5] >= HOLDS)
        flag = coverage_flag(km, "AP(rel=2)", True, labels, "topics", "mean")
        assert (flag == "") == found.holds
        if flag:
            assert flag.startswith(f"measured {row[5]:.1f}% at {budget} labels per topic (topics estimand; a plan "
                                   f"made for it; lowest in {row[8]})") and "," not in flag


def _docs_table(planned: bool) -> str:
    """The markdown table ppi.md shows, rendered from the measured table."""
    budgets = sorted({row[4] for row in TABLE})
    lines = ["| measure | column | estimand | " + " | ".join(f"{b}/topic" for b in budgets) + " |",
             "|---|---|---|" + "---|" * len(budgets)]
    for fam, column, estimand in itertools.product(FAMILIES, ("mean", "difference"), ("population", "topics")):
        cells = {row[4]: f"{row[5]:.1f} ({row[6]:.1f})" for row in TABLE
                 if row[:4] == (fam, planned, estimand, column)}
        lines.append(f"| {fam} | {column} | {estimand} | " + " | ".join(cells[b] for b in budgets) + " |")
    return "\n".join(lines)


def test_ppi_md_shows_the_measured_table():
    """The coverage table of ppi.md is the one the flags read (issue 33, item 4: docs show what the code has)."""
    page = (Path(__file__).resolve().parents[1] / "pyterrier_boot" / "pt_docs" / "ppi.md").read_text()
    assert _docs_table(True) in page
