"""evaluate() on real TREC runs: ir_measures, NIST's published scores and pt.Experiment as references."""
import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import real_collection, shared_path

from pyterrier_boot import InputWarning, evaluate
from pyterrier_boot.measures.materialisation import image_qrels, image_run

pytestmark = pytest.mark.integration

# measures ir_measures computes with pytrec_eval (trec_eval's order): compared on the runs as they are
TREC = ["AP(rel=2)", "AP(rel=2)@100", "nDCG@10", "nDCG", "P(rel=2)@10", "R(rel=2)@1000", "RR(rel=2)",
        "Rprec(rel=2)", "Success(rel=2)@10", "Bpref(rel=2)", "nDCG(judged_only=True)@10"]
# other providers break ties their own way: compared on rankings without ties
OTHER = ["RBP(rel=2,p=0.8)", "RBP(rel=1,p=0.95)", "INST(max_rel=3)", "INSQ(T=2.0,max_rel=3)", "Judged@10",
         "RR(rel=2)@10", "ERR@20", "nDCG(dcg='exp-log2')@10"]
GDEVAL = {"ERR@20", "nDCG(dcg='exp-log2')@10"}


@pytest.fixture(scope="module")
def dl2020():
    return real_collection("dl2020")


def _nested(frame, value, kind):
    """A frame as the ``{qid: {docno: value}}`` dicts ir_measures (pytrec_eval) reads natively."""
    out: dict = {}
    for qid, docno, x in zip(frame["qid"], frame["docno"], frame[value].map(kind), strict=True):
        out.setdefault(qid, {})[docno] = x
    return out


def _reference(measures, qrels, run):
    """ir_measures per (qid, label); nDCG variants in separate calls (ir_measures' grouping bug).
    The frames are converted once, not once per measure (ir_measures' frame reading dominates)."""
    out = {}
    iq, ir = _nested(qrels, "label", int), _nested(run, "score", float)
    for label in measures:
        measure = ir_measures.parse_measure(label)
        for metric in ir_measures.iter_calc([measure], iq, ir):
            out[(metric.query_id, label)] = metric.value
    return out


def _assert_equal(ours, reference, gdeval=()):
    ours = ours.set_index(["qid", "measure"])["value"]
    assert len(reference) > 0
    for (qid, label), value in reference.items():
        tolerance = 6e-6 if label in gdeval else 1e-9
        assert ours[(qid, label)] == pytest.approx(value, abs=tolerance), (qid, label)


def test_dl2020_every_run_equals_ir_measures(dl2020):
    runs, qrels = dl2020
    ours = evaluate(runs, qrels, TREC)
    for name in list(runs)[::4]:
        _assert_equal(ours[ours["name"] == name], _reference(TREC, qrels, runs[name]))


@pytest.mark.slow  # 6 s: cwl_eval and gdeval's providers on four runs
def test_dl2020_other_providers_on_rankings_without_ties(dl2020):
    runs, qrels = dl2020
    for name in list(runs)[:4]:
        untied = image_run(runs[name], {})[["qid", "docno", "score"]]
        _assert_equal(evaluate(untied, qrels, OTHER), _reference(OTHER, qrels, untied), GDEVAL)


@pytest.mark.parametrize("model", ["poisson", pytest.param("uniform0to3", marks=pytest.mark.slow)])  # 7 s more
def test_dl2020_materialised_images_equal_ir_measures(dl2020, model):
    runs, qrels = dl2020
    rng = np.random.default_rng(7)
    names = ["bm25_bert_token", "p_d2q_bm25", "TF_IDF_d_2_t_50"]
    docnos = pd.unique(pd.concat([qrels["docno"]] + [runs[n]["docno"] for n in names]))
    k = rng.poisson(1.0, len(docnos)) if model == "poisson" else rng.integers(0, 4, len(docnos))
    multiplicity = dict(zip(docnos, k))
    measures = TREC[:6] + OTHER
    image_q = image_qrels(qrels, multiplicity)
    ours = evaluate({n: runs[n] for n in names}, qrels, measures, multiplicity=multiplicity)
    for name in names:
        reference = _reference(measures, image_q, image_run(runs[name], multiplicity))
        _assert_equal(ours[ours["name"] == name], reference, GDEVAL)


def test_robust2003_every_run_equals_ir_measures():
    runs, qrels = real_collection("robust2003")
    measures = ["AP", "P@15", "Rprec", "nDCG@20", "Bpref", "R@1000", "RR", "AP(rel=2)"]
    ours = evaluate(runs, qrels, measures)
    for name in list(runs)[::3]:
        _assert_equal(ours[ours["name"] == name], _reference(measures, qrels, runs[name]))


def _nist(path, kind):
    table = pd.read_csv(path, sep="\t", dtype={"run_id": str})
    return table[table["summary_kind"] == kind] if kind else table


def _check_nist(runs, qrels, table, measures):
    """Means over the qrels topics against NIST's table, printed with 4 decimals.

    The tolerance is one unit of the 4th decimal: NIST's tables were not all rounded the same way
    (Robust 2003 shows 0.229552 as 0.2295 and 0.250255 as 0.2503); every value is within 5.3e-5.
    """
    ours = evaluate(runs, qrels, sorted(set(table["measure"]) & set(measures)))
    means = ours.groupby(["name", "measure"])["value"].mean()
    checked = 0
    for row in table.itertuples():
        if row.measure not in measures:
            continue
        assert means[(row.run_id, row.measure)] == pytest.approx(row.value, abs=1e-4), (row.run_id, row.measure)
        checked += 1
    return checked


TREC_EVAL_NAMES = ["map", "P_10", "P_100", "P_1000", "bpref", "recip_rank", "ndcg", "ndcg_cut_10",
                   "ndcg_cut_100", "ndcg_cut_1000", "recall_10", "recall_100", "recall_1000"]


def test_dl2020_reproduces_nist_published_scores(dl2020):
    """NIST's trec_eval summaries use binary relevance at grade >= 2: grade 1 mapped to 0 (data README)."""
    runs, qrels = dl2020
    folder = shared_path("trec-dl-2020-passage")
    table = _nist(folder / "nist_official_summaries.tsv", "trec_eval")
    remapped = qrels.assign(label=qrels["label"].where(qrels["label"] != 1, 0))
    assert _check_nist(runs, remapped, table, TREC_EVAL_NAMES) == 59 * 13
    graded = _nist(folder / "nist_official_summaries.tsv", "passages-eval")
    assert _check_nist(runs, qrels, graded, ["ndcg_cut_10", "ndcg_cut_100", "ndcg_cut_1000"]) == 59 * 3


def test_dl2019_reproduces_nist_published_scores():
    folder = shared_path("trec-dl-2019-passage")
    runs, qrels = real_collection("dl2019")
    table = _nist(folder / "nist_official_summaries.tsv", "trec_eval")
    assert _check_nist(runs, qrels, table, TREC_EVAL_NAMES) == 37 * 13


def test_robust2003_reproduces_nist_published_scores():
    folder = shared_path("trec-robust2003")
    runs, qrels = real_collection("robust2003")
    table = _nist(folder / "nist_official_summaries.tsv", None)
    assert _check_nist(runs, qrels, table, ["map", "Rprec", "P_15", "P_100", "P_1000"]) == 17 * 5


def test_means_equal_pt_experiment(dl2020):
    """pt.Experiment on frames gives the same means (topics of the qrels without results score 0)."""
    import pyterrier as pt

    runs, qrels = dl2020
    names = list(runs)[:8]
    measures = ["map", "ndcg_cut_10", "P_10", "recip_rank", "bpref"]
    # one run loses a topic: both average it in as 0
    runs = {n: runs[n] for n in names}
    runs[names[0]] = runs[names[0]][runs[names[0]]["qid"] != runs[names[0]]["qid"].iloc[0]]
    topics = pd.DataFrame({"qid": qrels["qid"].unique(), "query": "unused"})
    expected = pt.Experiment([runs[n] for n in names], topics, qrels, measures, names=names).set_index("name")
    with pytest.warns(InputWarning, match=rf"1 of 8 run\(s\) have no results for some of the 54 topics in the qrels "
                                          rf"\(at most 1 per run, .*: {names[0]} \(1\)$"):
        ours = evaluate(runs, qrels, measures).groupby(["name", "measure"])["value"].mean()
    for name in names:
        for measure in measures:
            assert ours[(name, measure)] == pytest.approx(expected.loc[name, measure], abs=1e-12), (name, measure)
