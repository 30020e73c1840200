"""Relevance labels of any int64 size: exact, and costing memory by their number of distinct values.

trec_eval reads a label as a ``long``; ir_measures (pytrec_eval) cannot score labels beyond about
2**31 (it sizes arrays by the largest label and scores 0 when that fails), so the references here
see each huge label mapped to a small one of the same order: binary measures (AP, P, R, RR, Rprec,
Bpref, ``rel=``) only see that order, and nDCG, whose gain is the label, is unchanged when every
label is scaled by the same power of two (exact in floating point).
"""
import tracemalloc

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import small_collection

from pyterrier_boot import CorpusBootstrap, evaluate, experiment_result
from pyterrier_boot.measures.arrays import JudgedRuns, grade_codes
from pyterrier_boot.measures.lowering import kernel_tables, lower
from pyterrier_boot.measures.parsing import parse_measures

BINARY = ["AP", "P@5", "R@20", "RR", "Rprec", "Bpref", "Success@3", "AP(judged_only=True)"]
# rel=2**40: grade 2 and above on the huge labels, as rel=2 on the small ones
REL = {"AP(rel=1099511627776)": "AP(rel=2)", "P(rel=1099511627776)@10": "P(rel=2)@10"}
HUGE = {-1: -(2**62), 0: 0, 1: 2**40 - 1, 2: 2**40, 3: 2**62}  # the same order as -1 < 0 < 1 < 2 < 3
SCALE = 2**61  # nDCG's gains scaled by a power of two: the same values


def _collection():
    runs, qrels = small_collection(seed=3, n_topics=6, systems="ab")
    labels = qrels["label"].to_numpy().copy()
    labels[::7] = -1  # some negative grades, which trec_eval reads as unjudged
    return runs, qrels.assign(label=labels)


def _reference(runs, qrels, measures):
    """ir_measures' values ``{(system, qid, measure): value}``."""
    ir_qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    out = {}
    for name, run in runs.items():
        ir_run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
        for m in ir_measures.iter_calc([ir_measures.parse_measure(x) for x in measures], ir_qrels, ir_run):
            out[name, m.query_id, str(m.measure)] = m.value
    return out


def _ours(runs, qrels, measures, labels):
    frame = evaluate(runs, qrels, measures)
    frame["measure"] = frame["measure"].map(dict(zip(measures, labels, strict=True)))
    return {(n, q, m): v for n, q, m, v in frame[["name", "qid", "measure", "value"]].itertuples(index=False)}


def _assert_equal(ours, reference):
    assert set(reference) <= set(ours)
    for key, value in reference.items():
        assert ours[key] == pytest.approx(value, abs=1e-12), key


def test_huge_labels_score_binary_measures_as_the_same_order_of_small_labels():
    runs, qrels = _collection()
    huge = qrels.assign(label=qrels["label"].map(HUGE))
    small = BINARY + list(REL.values())
    names = [str(ir_measures.parse_measure(m)) for m in small]
    _assert_equal(_ours(runs, huge, BINARY + list(REL), names), _reference(runs, qrels, small))


def test_huge_graded_labels_are_exact_gains():
    runs, qrels = _collection()
    measures = ["nDCG@10", "nDCG", "nDCG(judged_only=True)@5"]
    names = [str(ir_measures.parse_measure(m)) for m in measures]
    scaled = qrels.assign(label=qrels["label"] * SCALE)  # up to 3 * 2**61: beyond 32 bits, within int64
    _assert_equal(_ours(runs, scaled, measures, names), _reference(runs, qrels, measures))


def test_gains_are_the_labels_exactly_and_sized_by_distinct_labels():
    grades = [0, 1, 2**40 + 1, 2**53 + 1, 2**63 - 1]
    gains, order, _ = kernel_tables([lower(parse_measures("nDCG@10")[0].measure)], grades)
    assert gains.shape == (1, len(grades))
    assert gains[0].tolist() == [float(g) for g in grades]  # the nearest double, as trec_eval's (double) rel
    assert gains[0, 2] == 2**40 + 1
    assert order[0].tolist() == [4, 3, 2, 1, 0]
    mapped = lower(parse_measures("nDCG(gains={1099511627777: 5, 1: 7})@10")[0].measure)  # gains= keys: exact grades
    assert kernel_tables([mapped], grades)[0][0].tolist() == [0.0, 7.0, 5.0, float(2**53), float(2**63 - 1)]


def test_grade_codes_keep_order_and_sign():
    codes, values = grade_codes([0, 2**62, -5, 3, -(2**40), 3, 0])
    assert values.tolist() == [-(2**40), -5, 0, 3, 2**62]
    assert codes.tolist() == [0, 2, -1, 1, -2, 1, 0]
    codes, values = grade_codes([2, 0, 1, 4, 3])
    assert codes.tolist() == [2, 0, 1, 4, 3]  # grades 0..G are their own codes


def test_judged_runs_keep_exact_grades_and_translate_thresholds():
    qrels = pd.DataFrame({"qid": ["1"] * 4, "docno": list("abcd"), "label": [2**62, -3, 0, 2**40]})
    run = pd.DataFrame({"qid": ["1"] * 5, "docno": list("abcde"), "score": [5.0, 4, 3, 2, 1]})
    arrays = JudgedRuns.build({"r": run}, qrels)
    assert arrays.grade_values.tolist() == [-3, 0, 2**40, 2**62]
    docs, grades = arrays.ranking(0, 0)
    assert grades[:4].tolist() == [2**62, -3, 0, 2**40]
    assert arrays.judged(0)[1].tolist() == [2**62, 2**40, 0, -3]
    codes = arrays.run_codes[:4]
    for threshold in (-4, -3, 0, 1, 2**40, 2**40 + 1, 2**62, 2**62 + 1):
        assert ((codes >= arrays.code_at_least(threshold)) == (grades[:4] >= threshold)).all(), threshold


def test_a_huge_label_costs_no_memory():
    runs, qrels = _collection()
    evaluate(runs, qrels, ["AP", "nDCG@10"])  # compiled once, outside the measurement
    for label in (4_000_000, 2**40):
        huge = qrels.copy()
        huge.loc[huge["label"] > 0, "label"] = label
        tracemalloc.start()
        try:
            evaluate(runs, huge, ["AP", "nDCG@10"])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 20 * 2**20, (label, peak)  # 440 MiB and 8 s for 4,000,000 when sized by the label


def test_experiment_result_and_corpus_bootstrap_with_huge_labels():
    runs, qrels = _collection()
    huge = qrels.assign(label=qrels["label"].map(HUGE))
    scaled = qrels.assign(label=qrels["label"] * SCALE)
    small = experiment_result(runs, None, qrels, ["AP", "nDCG@10"], n_resamples=50, rng=1)
    big = experiment_result(runs, None, huge, ["AP"], n_resamples=50, rng=1)
    big_gains = experiment_result(runs, None, scaled, ["nDCG@10"], n_resamples=50, rng=1)
    np.testing.assert_allclose(big.means[..., 0], small.means[..., 0], atol=1e-12)
    np.testing.assert_allclose(big_gains.means[..., 0], small.means[..., 1], atol=1e-12)
    corpus = {name: CorpusBootstrap(q, n_images=20, rng=1, verbose=False).evaluate(runs, measures)
              for name, q, measures in [("small", qrels, ["AP", "nDCG@10"]), ("huge", huge, ["AP"]),
                                        ("scaled", scaled, ["nDCG@10"])]}
    small_images = corpus["small"].bootstrap_distribution
    np.testing.assert_allclose(corpus["huge"].bootstrap_distribution[..., 0], small_images[..., 0], atol=1e-12)
    np.testing.assert_allclose(corpus["scaled"].bootstrap_distribution[..., 0], small_images[..., 1], atol=1e-12)
    np.testing.assert_allclose(corpus["huge"].statistic[..., 0], corpus["small"].statistic[..., 0], atol=1e-12)


@pytest.mark.parametrize(("measures", "label", "message"), [
    (["nDCG(dcg='exp-log2')@10"], 2**11, r"grade 2048, whose gain 2\*\*2048 - 1 .* overflows a double"),
    (["AP", "infAP"], 2**40, r"grade 1099511627776, and 'infAP' \(no fast kernel\) .* sizes arrays by the largest"),
    (["infAP"], -(2**63), r"grade -9223372036854775808, and 'infAP' \(no fast kernel\)"),
])
def test_labels_a_measure_cannot_score_exactly_are_refused(measures, label, message):
    runs, qrels = _collection()
    huge = qrels.assign(label=qrels["label"].replace({3: label}))
    with pytest.raises(ValueError, match=message):
        evaluate(runs, huge, measures)


def test_labels_beyond_int64_are_refused_naming_the_qrels_and_value():
    from pyterrier_boot import read_qrels

    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"],
                          "label": np.array([1, 2**64 - 1], dtype=np.uint64)})
    with pytest.raises(ValueError, match=r"qrels frame has 1 label\(s\) beyond int64, e.g. qid .1. docno .b. has label 18446744073709551615"):
        read_qrels(frame)
    assert read_qrels(frame.assign(label=np.array([1, 2**63 - 1], np.uint64))).frame["label"].tolist() == [1, 2**63 - 1]


def test_the_drop_in_refuses_labels_pt_experiment_cannot_score():
    from pyterrier_boot.experiment.experiment import Experiment

    runs, qrels = _collection()
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "q"})
    huge = qrels.assign(label=qrels["label"].map(HUGE))
    # pt.Experiment's own table (map 0.0, ndcg_cut_10 1e13 on such labels) would sit beside our intervals
    with pytest.raises(ValueError, match=r"the qrels \(DataFrame\) hold label 4611686018427387904: "
                                         r"pt.boot.Experiment returns pt.Experiment's own table"):
        Experiment(list(runs.values()), topics, huge, ["map"], names=list(runs))


@pytest.mark.parametrize(("labels", "expected"), [
    (["4611686018427387905", "2.0", "0"], [2**62 + 1, 2, 0]),  # exact, though "2.0" sends it past the fast reader
    (["9223372036854775807", "-9223372036854775808"], [2**63 - 1, -(2**63)]),
    (["9223372036854775808", "1"], r"line 1: label '9223372036854775808' is beyond int64"),
    (["1152921504606846976", "1", "1.5"], r"line 3: label '1.5' is not an integer"),
])
def test_qrels_files_read_labels_exactly_or_refuse_them(tmp_path, labels, expected):
    from pyterrier_boot import read_qrels

    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"1 0 d{i} {label}\n" for i, label in enumerate(labels)))
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=rf"qrels file '.*qrels.txt', {expected}"):
            read_qrels(path)
    else:
        assert read_qrels(path).frame["label"].tolist() == expected
