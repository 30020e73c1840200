"""One warning per kind per call, counting the cases, naming the first few, all of them in
``warning.cases``, and pointing at the caller's line."""
import warnings

import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as pb
from pyterrier_boot._warnings import SHOWN_CASES, BootWarning, one_warning_per_kind, report

QRELS = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["a", "b", "c", "d"], "label": [1, 0, 2, 0]})


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, BootWarning)]


def _run(extra):
    return pd.DataFrame({"qid": ["1", "1", "2", "2", *extra], "docno": ["b", "a", "c", "d", *("x" * len(extra))],
                         "score": [2.0, 1.0, 3.0, 1.0, *([0.5] * len(extra))]})


def test_unknown_topics_of_many_runs_give_one_warning():
    runs = {f"r{i}": _run([str(10 + i), "9"]) for i in range(12)}
    _, caught = _caught(lambda: pb.evaluate(runs, QRELS, ["AP", "nDCG@10"]))
    assert len(caught) == 1 and caught[0].category is pb.InputWarning
    message = str(caught[0].message)
    assert message.startswith("12 of 12 run(s) have results for topics that are not in the qrels (at most 2 per "
                              "run, e.g. '10', '9'): those topics are ignored, as trec_eval does; runs (topics "
                              "ignored): r0 (2), r1 (2), r2 (2), r3 (2), r4 (2), ...")
    assert "(12 in all; the warning's .cases lists every one)" in message
    assert caught[0].message.cases == tuple(f"r{i} (2)" for i in range(12))
    assert caught[0].filename == __file__


def test_degenerate_pairs_over_many_measures_give_one_warning_per_kind():
    rng = np.random.default_rng(0)
    base = np.round(rng.random(12) * 64) / 64  # on a grid, so that base + 0.125 - base is exact
    same = np.vstack([base] * 6 + [base + 0.125])  # 15 identical pairs, 6 pairs with constant differences
    _, caught = _caught(lambda: pb.compare({"AP": same, "nDCG": same, "RR": same}, test="t"))
    assert [w.category for w in caught] == [pb.DegenerateWarning, pb.DegenerateWarning]
    zero, constant = caught
    assert str(zero.message).startswith("all paired differences are 0 for 45 pair(s): AP: 0 vs 1, AP: 0 vs 2")
    assert len(zero.message.cases) == 45 and zero.message.cases[-1] == "RR: 4 vs 5"
    assert str(constant.message).startswith("all paired differences are equal (zero variance) for 18 pair(s)")
    assert len(constant.message.cases) == 18
    assert zero.filename == constant.filename == __file__


def test_experiment_pools_its_warnings():
    runs = [_run(["7"]) for _ in range(6)]
    _, caught = _caught(lambda: pb.Experiment(runs, None, QRELS, ["AP", "P@1", "RR"], baseline=0, rng=0,
                                              n_resamples=200))
    kinds = [(w.category.__name__, str(w.message).split(":")[0]) for w in caught]
    assert len(kinds) == len(set(kinds)), kinds
    degenerate = [w for w in caught if w.category is pb.DegenerateWarning and "paired" in str(w.message)]
    assert len(degenerate) == 1 and len(degenerate[0].message.cases) == 15  # 5 pairs x 3 measures
    assert all(w.filename == __file__ for w in caught)


def test_corpus_bootstrap_warns_once_about_a_fallback_measure():
    boot = pb.CorpusBootstrap(QRELS, n_images=6, corpus_size=100, rng=0, verbose=False, max_memory=10_000)
    _, caught = _caught(lambda: boot.evaluate({"a": _run([]), "b": _run([])}, ["AP", "SetP"]))
    fallback = [w for w in caught if w.category is pb.FallbackWarning]
    assert len(fallback) == 1 and fallback[0].message.cases == ("'SetP'",)


def test_nested_calls_pool_into_the_outer_one_and_errors_emit_nothing():
    @one_warning_per_kind()
    def inner(i):
        report(pb.InputWarning, "{n} thing(s) adjusted: {cases}", [f"t{i}"])

    @one_warning_per_kind()
    def outer(fail=False):
        for i in range(8):
            inner(i)
        if fail:
            raise ValueError("bad")

    _, caught = _caught(outer)
    assert len(caught) == 1 and caught[0].message.cases == tuple(f"t{i}" for i in range(8))
    assert str(caught[0].message).count(", ") == SHOWN_CASES  # five named, then "... (8 in all ...)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="bad"):
            outer(fail=True)
    assert caught == []


def test_outside_a_decorated_call_each_report_warns_at_once():
    _, caught = _caught(lambda: [report(pb.FitWarning, "{n} fit(s) failed: {cases}", ["m"]) for _ in range(2)])
    assert len(caught) == 2 and str(caught[0].message) == "1 fit(s) failed: m"


def test_warnings_can_still_be_filtered_and_raised():
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.DegenerateWarning)
        with pytest.raises(pb.DegenerateWarning) as raised:
            pb.t_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    assert raised.value.cases == ("x vs y",)


def _constant_runs():
    qids = [str(q) for q in range(10)]
    qrels = pd.DataFrame({"qid": qids, "docno": ["d1"] * 10, "label": [1] * 10})
    rng = np.random.default_rng(0)
    mixed = pd.DataFrame({"qid": qids * 2, "docno": ["d1"] * 10 + ["x"] * 10, "score": rng.random(20)})
    top = pd.DataFrame({"qid": qids, "docno": ["d1"] * 10, "score": 1.0})  # AP 1 on every topic
    return {"mixed": mixed, "same": mixed.copy(), "top": top}, qrels


def test_degenerate_intervals_name_the_system_and_the_measure_in_one_warning():
    runs, qrels = _constant_runs()
    _, caught = _caught(lambda: pb.experiment_result(runs, None, qrels, ["AP", "P@1"], n_resamples=200, rng=0))
    assert [str(w.message) for w in caught] == [
        "a system's scores are the same on every topic for 2 interval(s), so each is the single point of that "
        "score: AP: top [1, 1], P@1: top [1, 1]"]
    assert caught[0].message.cases == ("AP: top [1, 1]", "P@1: top [1, 1]")


def test_identical_systems_get_one_warning_about_their_paired_differences():
    """Two identical systems against a baseline: one warning, about the pair's differences (it said
    "all topic scores are equal for 1 system(s) ... 0 [0, 0]" beside the test's warning)."""
    runs, qrels = _constant_runs()
    runs.pop("top")
    _, caught = _caught(lambda: pb.Experiment(list(runs.values()), None, qrels, ["map", "P@1"], names=list(runs),
                                              baseline=0, n_resamples=200, rng=0))
    assert [str(w.message) for w in caught] == [
        "all paired differences are 0 for 2 pair(s): map: same vs mixed, P@1: same vs mixed; the test statistic "
        "is undefined; returning pvalue=1.0"]
