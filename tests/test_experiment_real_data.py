"""Experiment end to end on real data: Vaswani retrieved with PISA, and the TREC DL 2020 runs."""
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from conftest import real_collection, shared_path

import pyterrier_boot as ptb

pytestmark = [pytest.mark.integration,  # pyterrier 1.1's Vaswani readers use inplace=, deprecated in pandas 3.1
              pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:DeprecationWarning")]
MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]


@pytest.fixture(scope="module")
def vaswani(irds_home, tmp_path_factory):
    pisa = pytest.importorskip("pyterrier_pisa")
    dataset = pt.get_dataset("irds:vaswani")
    index = pisa.PisaIndex(str(tmp_path_factory.mktemp("pisa") / "vaswani.pisa"), text_field="text", threads=1)
    index.index(dataset.get_corpus_iter(verbose=False))
    systems = {"BM25": index.bm25(), "DPH": index.dph(), "PL2": index.pl2(), "QLD": index.qld()}
    return systems, dataset.get_topics(), dataset.get_qrels()


def test_vaswani_topic_and_corpus_bootstrap_match_pt_experiment(vaswani):
    systems, topics, qrels = vaswani
    names = list(systems)
    reference = pt.Experiment(list(systems.values()), topics, qrels, MEASURES, names=names, baseline=0)
    for bootstrap in ("topic", "corpus"):
        ours = pt.boot.Experiment(list(systems.values()), topics, qrels, MEASURES, names=names, baseline=0,
                                  bootstrap=bootstrap, n_resamples=300, rng=42)
        for column in reference.columns[1:]:
            if bootstrap == "corpus" and "p-value" in column:
                # issue 11: with the corpus bootstrap the p-value is the replicate test of the interval
                # beside it (it includes corpus variance), no longer pt's topic t-test
                continue
            np.testing.assert_allclose(ours[column].to_numpy(float), reference[column].to_numpy(float),
                                       rtol=0, atol=1e-12, err_msg=f"{bootstrap}: {column}")
        for m in MEASURES:
            assert (ours[f"{m} ci_low"] <= ours[m]).all() and (ours[m] <= ours[f"{m} ci_high"]).all()
        again = pt.boot.Experiment(list(systems.values()), topics, qrels, MEASURES, names=names, baseline=0,
                                   bootstrap=bootstrap, n_resamples=300, rng=42)
        pd.testing.assert_frame_equal(ours, again)


def test_vaswani_readme_headline_table_agrees_with_itself(vaswani):
    # the README's example: BM25/DPH/QLD, bootstrap="both", Holm; DPH vs BM25 on ndcg_cut_10 printed
    # reject = True beside a difference interval holding 0 before issue 11
    systems, topics, qrels = vaswani
    table = pt.boot.Experiment([systems["BM25"], systems["DPH"], systems["QLD"]], topics, qrels,
                               ["map", "ndcg_cut_10"], names=["BM25", "DPH", "QLD"], baseline=0,
                               correction="holm", bootstrap="both", rng=42).set_index("name")
    for m in ("map", "ndcg_cut_10"):
        rows = table.drop(index="BM25")
        excluded = (rows[f"{m} diff ci_low"] > 0) | (rows[f"{m} diff ci_high"] < 0)
        assert ((rows[f"{m} p-value"] < 0.05) == excluded).all()
        assert not (rows[f"{m} reject"] & ~excluded).any()
    dph = table.loc["DPH"]
    assert dph["ndcg_cut_10 diff ci_low"] < 0 < dph["ndcg_cut_10 diff ci_high"]
    assert not dph["ndcg_cut_10 reject"]


def test_vaswani_corpus_size_comes_from_ir_datasets(vaswani):
    systems, topics, _ = vaswani
    res = ptb.experiment_result({"BM25": systems["BM25"]}, topics, "irds:vaswani", ["map"], bootstrap="corpus",
                                model="multinomial", n_resamples=50, rng=1)
    assert res.corpus.corpus_size == 11429


@pytest.mark.slow  # 8 s: Experiment on all 59 runs (evaluate and the command match NIST in the default run)
def test_dl2020_runs_reproduce_nist_means():
    """NIST's trec_eval means, binary relevance at grade >= 2 (grade 1 mapped to 0, data README)."""
    folder = shared_path("trec-dl-2020-passage")
    runs, qrels = real_collection("dl2020")
    qrels = qrels.assign(label=qrels["label"].where(qrels["label"] != 1, 0))
    table = ptb.Experiment(runs, None, qrels, ["map", "recip_rank", "P_10", "ndcg_cut_10"], n_resamples=200,
                           rng=0).set_index("name")
    nist = pd.read_csv(folder / "nist_official_summaries.tsv", sep="\t", dtype={"run_id": str})
    nist = nist[(nist["summary_kind"] == "trec_eval") & nist["measure"].isin(table.columns)]
    assert len(nist) == 59 * 4
    for row in nist.itertuples():
        assert table.loc[row.run_id, row.measure] == pytest.approx(row.value, abs=1e-4), (row.run_id, row.measure)
        assert table.loc[row.run_id, f"{row.measure} ci_low"] <= table.loc[row.run_id, row.measure]
