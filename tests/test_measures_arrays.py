"""Interning (``JudgedRuns.build``) against a plain per-topic Python version of trec_eval's ranking."""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyterrier_boot._warnings import InputWarning
from pyterrier_boot.measures.arrays import UNJUDGED, JudgedRuns, JudgedRunsBuilder, natural_order

# short, 8/9/24 characters (one, two and three packed words), long (beyond the fixed-width sort),
# non-ASCII, prefix-sharing and NUL-ending docnos
DOCS = ["d1", "d10", "d2", "D2", "é", "e", "d1" + "x" * 6, "d1" + "x" * 7, "d1" + "x" * 22, "d1" + "x" * 70,
        "d1" + "x" * 69, "zz", "a", "d2\x00"]
SCORES = [0.0, -0.0, 1.0, 1.0 + 1e-9, -2.5, 3e38, 1e39, -1e39, 7.0]


@st.composite
def cases(draw):
    qids = draw(st.lists(st.sampled_from(["1", "2", "10", "x"]), min_size=1, max_size=4, unique=True))
    qrels_rows = draw(st.lists(st.tuples(st.sampled_from(qids), st.sampled_from(DOCS), st.integers(-1, 3)),
                               min_size=1, max_size=15, unique_by=lambda r: r[:2]))
    runs = {}
    for name in draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True)):
        rows = draw(st.lists(st.tuples(st.sampled_from(qids + ["99"]), st.sampled_from(DOCS),
                                       st.sampled_from(SCORES)), min_size=1, max_size=20, unique_by=lambda r: r[:2]))
        judged = (qrels_rows[0][0], draw(st.sampled_from(DOCS)), draw(st.sampled_from(SCORES)))
        rows = [judged] + [r for r in rows if r[:2] != judged[:2]]  # a run without a judged topic is refused
        runs[name] = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    return runs, pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"])


def reference(runs, qrels):
    """Each (run, topic) ranking as lists of (docno, grade), sorted one topic at a time."""
    qids = natural_order(pd.unique(qrels["qid"]))
    grades = {(q, d): g for q, d, g in zip(qrels["qid"], qrels["docno"], qrels["label"], strict=True)}
    out = {}
    for name, run in runs.items():
        for q in qids:
            rows = run[run["qid"] == q]
            with np.errstate(over="ignore"):
                scores = rows["score"].to_numpy().astype(np.float32) + np.float32(0)
            ranked = sorted(zip(rows["docno"], scores, strict=True), key=lambda r: (r[1], r[0]), reverse=True)
            out[name, q] = [(d, grades.get((q, d), UNJUDGED)) for d, _ in ranked]
    return qids, out


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_build_ranks_every_topic_as_trec_eval(case, compiled):
    from pyterrier_boot.measures import arrays as arrays_module

    runs, qrels = case
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch:
        warnings.simplefilter("ignore", InputWarning)
        patch.setattr(arrays_module, "COMPILED_RANKING_ROWS", 0 if compiled else 10**9)
        arrays = JudgedRuns.build(runs, qrels)
        builder = JudgedRunsBuilder(qrels)
        for name, run in runs.items():
            builder.add(name, run)
        streamed = builder.build()
    for field in ("systems", "qids", "docnos", "qrels_offsets", "qrels_docs", "qrels_codes", "run_offsets",
                  "run_docs", "run_codes", "run_stops", "grade_values"):  # one run at a time, the same arrays
        np.testing.assert_array_equal(getattr(streamed, field), getattr(arrays, field), err_msg=field)
        assert np.asarray(getattr(streamed, field)).dtype == np.asarray(getattr(arrays, field)).dtype, field
    qids, expected = reference(runs, qrels)
    assert list(arrays.qids) == qids
    assert list(arrays.docnos) == sorted(set(qrels["docno"]).union(*(set(r["docno"]) for r in runs.values())))
    for s, name in enumerate(arrays.systems):
        for t, q in enumerate(qids):
            docs, grades = arrays.ranking(s, t)
            assert list(zip(arrays.docnos[docs], grades.tolist(), strict=True)) == expected[name, q]
            judged = np.flatnonzero(grades != UNJUDGED)
            stop = arrays.run_stops[s * len(qids) + t] - arrays.run_offsets[s * len(qids) + t]
            assert stop == (judged[-1] + 1 if len(judged) else 0)
    for t, q in enumerate(qids):
        docs, grades = arrays.judged(t)
        rows = qrels[qrels["qid"] == q]
        assert sorted(zip(arrays.docnos[docs], grades.tolist(), strict=True)) == sorted(
            zip(rows["docno"], rows["label"], strict=True))
        assert list(grades) == sorted(grades, reverse=True)


@pytest.mark.parametrize("many", [False, True], ids=["all-at-once", "one-at-a-time"])
def test_a_run_without_a_judged_topic_is_refused(many, monkeypatch):
    from pyterrier_boot.measures import arrays as arrays_module

    monkeypatch.setattr(arrays_module, "ALL_AT_ONCE_ROWS", 0 if many else 10**9)
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "label": [1, 1]})
    runs = {"good": pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]}),
            "other": pd.DataFrame({"qid": ["7", "8"], "docno": ["a", "b"], "score": [1.0, 2.0]})}
    with pytest.raises(ValueError, match=r"run 'other' has no topic in the qrels: its topics are '7', '8', the "
                                         r"qrels' are '1', '2' \(is it the right qrels file\?\)"):
        JudgedRuns.build(runs, qrels, warn_unjudged=False)  # refused whether or not overlaps are warned about


def test_build_names_each_run_with_unjudged_topics_and_huge_scores():
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "label": [1, 1]})
    runs = {"a": pd.DataFrame({"qid": ["1", "7", "1"], "docno": ["a", "a", "b"], "score": [1.0, 2.0, 1e39]}),
            "b": pd.DataFrame({"qid": ["2", "8"], "docno": ["b", "a"], "score": [1.0, 2.0]}),
            "c": pd.DataFrame({"qid": ["2"], "docno": ["a"], "score": [1.0]})}
    with pytest.warns(InputWarning) as caught:
        JudgedRuns.build(runs, qrels)
    messages = [str(w.message) for w in caught]
    assert any("beyond single precision" in m and "'a'" in m and "'b'" not in m for m in messages)
    ignored = [w.message for w in caught if "not in the qrels" in str(w.message)]
    assert len(ignored) == 1 and ignored[0].cases == ("a (1)", "b (1)")
    assert str(ignored[0]).startswith("2 of 3 run(s) have results for topics that are not in the qrels")
    missing = [w.message for w in caught if "score 0" in str(w.message)]
    assert len(missing) == 1 and missing[0].cases == ("a (1)", "b (1)", "c (1)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        arrays = JudgedRuns.build({"c": runs["c"]}, qrels, warn_unjudged=False, warn_missing=False)
    assert arrays.ranking(0, 1)[1].tolist() == [UNJUDGED]


def test_large_inputs_are_interned_one_run_at_a_time_with_the_same_arrays(monkeypatch):
    from pyterrier_boot import simulate_collection
    from pyterrier_boot.measures import arrays as arrays_module

    sim = simulate_collection(n_topics=5, n_systems=3, depth=30, pool_depth=10, corpus_size=2000, matching=300,
                              rng=2)
    at_once = JudgedRuns.build(sim.runs, sim.qrels)
    monkeypatch.setattr(arrays_module, "ALL_AT_ONCE_ROWS", 10)
    monkeypatch.setattr(arrays_module.JudgedRunsBuilder, "add", _counted(arrays_module.JudgedRunsBuilder.add))
    one_by_one = JudgedRuns.build(sim.runs, sim.qrels)
    assert _counted.calls == 3
    for field in ("systems", "docnos", "qrels_docs", "run_offsets", "run_docs", "run_codes", "run_stops", "grade_values"):
        np.testing.assert_array_equal(getattr(one_by_one, field), getattr(at_once, field), err_msg=field)


def _counted(method):
    _counted.calls = 0

    def wrapper(*args, **kwargs):
        _counted.calls += 1
        return method(*args, **kwargs)

    return wrapper


@pytest.mark.parametrize("disorder", ["in order", "tied docs reversed", "shuffled"])
def test_rank_cells_orders_each_cell_as_a_full_sort(disorder):
    """Cells listed in ranking order, nearly so (ties in another order: insertion sort) or far from
    it (merge sort) come out as a lexicographic sort by (cell, score descending, doc descending)."""
    from pyterrier_boot.measures.ranking import rank_cells

    rng = np.random.default_rng(7)
    n_topics, sizes = 3, np.array([400, 250], np.int64)
    n = int(sizes.sum())
    topic = rng.integers(-1, n_topics, n).astype(np.int32)  # -1: a topic the qrels do not have
    score = np.round(rng.normal(size=n), 1).astype(np.float32)  # many ties
    score[::17] = -0.0
    doc = rng.permutation(n).astype(np.int32)
    system = np.repeat(np.arange(len(sizes)), sizes)
    if disorder != "shuffled":  # each run listed by topic, then score descending
        order = np.lexsort((doc if disorder == "in order" else -doc, -score.astype(np.float64), topic, system))
        topic, score, doc = topic[order], score[order], doc[order]
    n_docs = n
    judged = np.flatnonzero(rng.random(n) < 0.3)
    judged_keys = np.sort(rng.integers(0, n_topics, len(judged)) * n_docs + judged)
    judged_grades = rng.integers(0, 3, len(judged_keys)).astype(np.int32)
    judged_docs = np.zeros(n_docs, bool)
    judged_docs[judged_keys % n_docs] = True
    docs, offsets, stops, grades = rank_cells(topic, sizes, (score + np.float32(0)).view(np.int32), doc, n_topics,
                                              judged_keys, judged_grades, judged_docs, n_docs, UNJUDGED)
    kept = topic >= 0
    cell = (system * n_topics + topic)[kept]
    expected = np.lexsort((-doc[kept].astype(np.int64), -(score[kept] + np.float32(0)).astype(np.float64), cell))
    np.testing.assert_array_equal(docs, doc[kept][expected])
    np.testing.assert_array_equal(offsets, np.concatenate([[0], np.cumsum(np.bincount(cell, minlength=6))]))
    grade_of = dict(zip(judged_keys.tolist(), judged_grades.tolist(), strict=True))
    keys = (cell[expected] % n_topics) * n_docs + docs
    np.testing.assert_array_equal(grades, [grade_of.get(k, UNJUDGED) for k in keys.tolist()])
    for c in range(len(offsets) - 1):
        hit = np.flatnonzero(grades[offsets[c]:offsets[c + 1]] != UNJUDGED)
        assert stops[c] == offsets[c] + (hit[-1] + 1 if len(hit) else 0)


@pytest.mark.parametrize(("alphabet", "longest"), [("ascii", 8), ("ascii", 24), ("ascii", 40), ("unicode", 20),
                                                  ("nul", 20), ("ascii", 90)])
def test_string_order_is_python_sort_order(alphabet, longest):
    """Packed words (ASCII up to 24 characters), fixed-width text and objects all give sorted()'s order."""
    from pyterrier_boot.measures.arrays import _string_order

    rng = np.random.default_rng(3)
    chars = {"ascii": list("ab0Z-_ ~"), "unicode": list("abé中"), "nul": list("ab\x00")}[alphabet]
    words = {"".join(rng.choice(chars, size=rng.integers(1, longest + 1))) for _ in range(3000)}
    values = np.array(sorted(words, key=lambda w: rng.random()), dtype=object)
    assert values[_string_order(values)].tolist() == sorted(words)


def test_string_order_with_the_empty_docno():
    from pyterrier_boot.measures.arrays import _string_order

    assert _string_order(np.array([""], dtype=object)).tolist() == [0]
    assert _string_order(np.array(["b", "", "a"], dtype=object)).tolist() == [1, 2, 0]
