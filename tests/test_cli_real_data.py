"""``pyterrier-boot evaluate`` on real TREC runs: the means equal NIST's published tables and the
report is written (data README: /work/shared/data/README.md)."""
import html.parser
import io

import pandas as pd
import pytest
import scipy.stats
import statsmodels.stats.multitest as multitest
from conftest import shared_path

from pyterrier_boot.cli import main

pytestmark = pytest.mark.integration


def _nist(folder, kind, measure):
    table = pd.read_csv(folder / "nist_official_summaries.tsv", sep="\t", dtype={"run_id": str})
    rows = table[(table["summary_kind"] == kind) & (table["measure"] == measure)]
    return rows.set_index("run_id")["value"]


def _check_report(path):
    page = path.read_text(encoding="utf-8")
    parser = html.parser.HTMLParser()
    parser.feed(page)
    parser.close()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    return page


@pytest.fixture(scope="module")
def dl2020(tmp_path_factory):
    """The DL 2020 command of issue 6: nDCG@10 and AP(rel=2), all pairs with Holm, topic bootstrap."""
    folder = shared_path("trec-dl-2020-passage")
    out = tmp_path_factory.mktemp("dl2020")
    code = main(["evaluate", "--qrels", str(folder / "qrels.dl20-passage.txt"), str(folder / "runs"),
                 "--measures", "nDCG@10", "AP", "--rel", "2", "--correction", "holm", "--bootstrap", "topic",
                 "--n", "200", "--rng", "1", "--out", str(out), "--quiet"])
    assert code == 0
    return folder, out


def test_dl2020_means_match_nist(dl2020):
    folder, out = dl2020
    table = pd.read_csv(out / "table.csv", dtype={"name": str}).set_index("name")
    assert len(table) == 59
    # graded nDCG@10: NIST's 'passages-eval' row; AP at grade >= 2: NIST's trec_eval map (grade 1 -> 0)
    for column, kind, measure in (("nDCG@10", "passages-eval", "ndcg_cut_10"), ("AP(rel=2)", "trec_eval", "map")):
        nist = _nist(folder, kind, measure)
        assert sorted(nist.index) == sorted(table.index)
        for run, value in nist.items():
            assert table.loc[run, column] == pytest.approx(value, abs=5e-5 + 1e-12), (run, column)
        assert (table[f"{column} ci_low"] <= table[column]).all() and (table[column] <= table[f"{column} ci_high"]).all()


def test_dl2020_all_pairs_holm(dl2020):
    _, out = dl2020
    pairwise = pd.read_csv(out / "pairwise.csv", dtype={"system_a": str, "system_b": str})
    assert len(pairwise) == 2 * 59 * 58 // 2
    perquery = pd.read_csv(out / "perquery.csv", dtype={"name": str, "qid": str})
    rows = pairwise[pairwise["measure"] == "AP(rel=2)"]
    values = perquery[perquery["measure"] == "AP(rel=2)"].pivot(index="name", columns="qid", values="value")
    p = [scipy.stats.ttest_rel(values.loc[a], values.loc[b]).pvalue
         for a, b in zip(rows["system_a"], rows["system_b"], strict=True)]
    corrected = multitest.multipletests(p, method="holm")[1]
    assert rows["p-value corrected"].to_numpy() == pytest.approx(corrected, rel=1e-9, abs=1e-15)


def test_dl2020_report(dl2020):
    _, out = dl2020
    page = _check_report(out / "report.html")
    # 59 runs: more than report.MATRIX_LIMIT, so no 59 x 59 matrices or rank boxes: means, rank
    # intervals and per-topic differences for 2 measures, each inline SVG with its PNG download
    assert page.count("<svg ") == 6 and page.count('download="') == 6
    assert "pairwise difference matrix" not in page and "rank intervals for nDCG@10" in page
    assert "nDCG@10 group" in page and "nDCG@10 rank" in page  # letter groups and rank intervals in the summary
    assert "pash_r3" in page
    assert "All 3,422 comparisons" in page  # 1,711 pairs x 2 measures


def test_dl2020_rel_remap_matches_nist_trec_eval_ndcg(capsys):
    folder = shared_path("trec-dl-2020-passage")
    runs = [str(folder / "runs" / f"input.{r}.gz") for r in ("pash_r3", "p_bm25", "bert_6")]
    code = main(["evaluate", "-q", str(folder / "qrels.dl20-passage.txt"), *runs, "-m", "nDCG@10", "AP",
                 "--rel", "2", "--rel-remap", "--bootstrap", "none", "--format", "csv", "--quiet"])
    assert code == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("name")
    # NIST's trec_eval table of DL 2020 maps grade 1 to 0 for every measure, nDCG included
    for column, measure in (("nDCG@10", "ndcg_cut_10"), ("AP(rel=2)", "map")):
        nist = _nist(folder, "trec_eval", measure)
        for run in table.index:
            assert table.loc[run, column] == pytest.approx(nist[run], abs=5e-5 + 1e-12), (run, column)


@pytest.mark.slow  # 9 s: the command end to end on Robust 2003 with 100 corpus images
def test_robust2003_corpus_bootstrap(tmp_path):
    folder = shared_path("trec-robust2003")
    out = tmp_path / "robust"
    code = main(["evaluate", "--qrels", str(folder / "qrels.robust2003.txt.gz"), str(folder / "runs"),
                 "--measures", "map", "P_100", "--bootstrap", "corpus", "--n", "100", "--rng", "1",
                 "--out", str(out), "--quiet"])
    assert code == 0
    table = pd.read_csv(out / "table.csv").set_index("name")
    assert len(table) == 17
    for column, measure in (("map", "map"), ("P_100", "P_100")):
        for run, value in _nist(folder, "trec_eval", measure).items():
            assert table.loc[run, column] == pytest.approx(value, abs=5e-5 + 1e-12), (run, column)
    page = _check_report(out / "report.html")
    assert page.count("data:image/png;base64,") == 9  # the corpus bootstrap adds Zobel & Rashidi's Fig. 6
    assert "corpus images" in page
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert len(pairwise) == 2 * 17 * 16 // 2 and "corpus p-value" in pairwise
