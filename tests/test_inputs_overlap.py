"""Runs against qrels of other topics: every door refuses a run that shares no topic with the qrels
(with the command line's message), and a partial overlap gives one warning per kind, with counts."""
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.inputs.overlap import TopicOverlap, check_topic_overlap

QIDS = [str(q) for q in range(1, 9)]
REFUSED = r"run 'b' has no topic in the qrels: its topics are '101', '102', '103', \.\.\. \(8 in all\), the " \
          r"qrels' are '1', '2', '3', \.\.\. \(8 in all\) \(is it the right qrels file\?\)"


def _run(qids, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"qid": np.repeat(qids, 5), "docno": [f"d{i}" for i in range(5)] * len(qids),
                         "score": rng.random(5 * len(qids))})


QRELS = pd.DataFrame({"qid": np.repeat(QIDS, 2), "docno": ["d1", "d3"] * len(QIDS), "label": [1, 0] * len(QIDS)})
GOOD = _run(QIDS, 1)
OTHER = _run([str(100 + int(q)) for q in QIDS], 2)  # the right runs, qrels of other topics
# a: 2 of its 8 topics unjudged and 2 judged ones missing; b: complete; c: 1 judged topic missing
PARTIAL = {"a": _run(QIDS[:6] + ["98", "99"], 3), "b": _run(QIDS, 4), "c": _run(QIDS[1:], 5)}
IGNORED = ("1 of 3 run(s) have results for topics that are not in the qrels (at most 2 per run, e.g. '98', '99'): "
           "those topics are ignored, as trec_eval does; runs (topics ignored): a (2)")
MISSING = ("2 of 3 run(s) have no results for some of the 8 topics in the qrels (at most 2 per run, e.g. '7', '8'): "
           "they score 0 on those topics, as in trec_eval -c and pt.Experiment; runs (topics missing): a (2), c (1)")


def _warned(call):
    """The result of ``call`` and the messages of the overlap warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [str(w.message) for w in caught if "the qrels" in str(w.message) and w.category is ptb.InputWarning]


def test_topic_overlap_counts_runs_and_topics():
    overlap = TopicOverlap(QIDS)
    for name, run in PARTIAL.items():
        overlap.add(name, run["qid"].unique())
    with pytest.warns(ptb.InputWarning) as caught:
        overlap.report()
    assert [str(w.message) for w in caught] == [IGNORED, MISSING]
    assert caught[1].message.cases == ("a (2)", "c (1)")
    with pytest.raises(ValueError, match="run 'x' has no topic in the qrels: its topics are '0', the qrels' are"):
        check_topic_overlap({"x": ["0"]}, QIDS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_topic_overlap({"x": QIDS}, QIDS)  # the same topics: nothing to say
        check_topic_overlap({"c": PARTIAL["c"]["qid"].unique()}, QIDS, missing=False)


DOORS = {
    "evaluate": lambda runs: ptb.evaluate(runs, QRELS, ["AP"]),
    "experiment_result": lambda runs: ptb.experiment_result(runs, None, QRELS, ["AP"], n_resamples=200, rng=1),
    "Experiment": lambda runs: ptb.Experiment(list(runs.values()), None, QRELS, ["map"], names=list(runs),
                                             baseline=0, n_resamples=200, rng=1),
    "Experiment(bootstrap=None)": lambda runs: ptb.Experiment(list(runs.values()), None, QRELS, ["map"],
                                                             names=list(runs), bootstrap=None),
    "leaderboard": lambda runs: ptb.leaderboard(runs, QRELS, ["AP"], n_resamples=200, rng=1),
    "CorpusBootstrap.evaluate": lambda runs: ptb.CorpusBootstrap(QRELS, n_images=20, rng=1).evaluate(runs, ["AP"]),
    "split_half_validation": lambda runs: ptb.split_half_validation(runs, QRELS, ["AP"], n_splits=2, n_images=20,
                                                                    rng=1),
    "ppi_evaluate": lambda runs: ptb.ppi_evaluate(runs, QRELS, QRELS[QRELS["qid"].isin(QIDS[:4])], ["AP"]),
    "reproducibility": lambda runs: ptb.reproducibility(runs, runs, QRELS, ["AP"], n_resamples=200, rng=1),
}


@pytest.mark.parametrize("door", list(DOORS))
def test_every_door_refuses_a_run_without_a_judged_topic(door):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. few splits, few topics: not what is tested
        with pytest.raises(ValueError, match=REFUSED if door != "reproducibility" else REFUSED.replace(
                "run 'b'", "run 'original b'")):
            DOORS[door]({"a": GOOD, "b": OTHER})


@pytest.mark.parametrize("door", [d for d in DOORS if d != "reproducibility"])
def test_every_door_counts_a_partial_overlap_in_one_warning_per_kind(door):
    _, messages = _warned(lambda: DOORS[door](PARTIAL))
    assert messages == [IGNORED, MISSING]  # for ppi_evaluate: against the automatic qrels, which judge every topic


def test_reproducibility_leaves_missing_topics_out_and_counts_the_ignored_ones():
    with pytest.warns(ptb.InputWarning) as caught:
        ptb.reproducibility(PARTIAL, PARTIAL, QRELS, ["AP"], n_resamples=200, rng=1)
    messages = [str(w.message) for w in caught if w.category is ptb.InputWarning]
    assert messages[0] == IGNORED.replace("1 of 3", "2 of 6").replace("a (2)", "original a (2), reproduced a (2)")
    assert messages[1] == ("3 judged topic(s) are left out because some original or reproduced run has no results "
                           "for them (all figures use the other topics): 1, 7, 8")
    assert len(messages) == 2


def test_experiment_with_topics_ignores_the_other_topics_as_pt_experiment_does():
    """Given topics, results for other topics (or unjudged topics among them, ``filter_by_qrels=False``)
    are ignored without a warning, as pt.Experiment does; judged topics without results still warn."""
    topics = pd.DataFrame({"qid": QIDS[:6] + ["98"], "query": "q"})
    _, messages = _warned(lambda: ptb.Experiment(list(PARTIAL.values()), topics, QRELS, ["map"], names=list(PARTIAL),
                                                 bootstrap=None))
    assert messages == [MISSING.replace("2 of 3 run(s)", "1 of 3 run(s)").replace("of the 8 topics", "of the 6 topics")
                        .replace("(at most 2 per run, e.g. '7', '8')", "(at most 1 per run, e.g. '1')")
                        .replace("a (2), c (1)", "c (1)")]


def test_pt_experiment_scores_other_topics_as_zeros_where_the_drop_in_refuses():
    topics = pd.DataFrame({"qid": QIDS, "query": "q"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pt.Experiment([GOOD, OTHER], topics, QRELS, ["map"], names=["a", "b"])
    assert theirs["map"].tolist()[1] == 0.0  # a table of zeros, silently: the reason for the refusal
    with pytest.raises(ValueError, match=REFUSED):
        ptb.Experiment([GOOD, OTHER], topics, QRELS, ["map"], names=["a", "b"])


def _write(tmp_path, runs):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS.itertuples(index=False)))
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {i} {s!r} {name}\n"
                                for i, (q, d, s) in enumerate(run.itertuples(index=False))))
        paths.append(str(path))
    return str(qrels), paths


COMMANDS = {
    "evaluate": lambda qrels, runs: ["evaluate", "-q", qrels, *runs, "--n", "50"],
    "evaluate (frames)": lambda qrels, runs: ["evaluate", "-q", qrels, *runs, "--n", "50", "-m", "AP", "SetP"],
    "leaderboard": lambda qrels, runs: ["leaderboard", "-q", qrels, *runs, "--n", "50", "-m", "AP"],
    "topics": lambda qrels, runs: ["topics", "-d", "0.05", "-q", qrels, *runs, "-m", "AP", "--n", "50"],
    "split-half": lambda qrels, runs: ["split-half", "--qrels", qrels, *runs, "-m", "AP", "--splits", "2",
                                       "--n", "20"],
    "ppi": lambda qrels, runs: ["ppi", "--auto-qrels", qrels, "--human-qrels", qrels, *runs, "-m", "AP"],
    "reproduce": lambda qrels, runs: ["reproduce", "--original", *runs, "--reproduced", *runs, "--qrels", qrels,
                                      "-m", "AP", "--out", str(Path(qrels).parent / "out")],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_refuses_a_run_without_a_judged_topic(tmp_path, capsys, command):
    qrels, runs = _write(tmp_path, {"a": GOOD, "b": OTHER})
    assert main(COMMANDS[command](qrels, runs) + ["--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: run '") and REFUSED.replace("\\", "").replace("run 'b'", "") in err, err


@pytest.mark.parametrize("measures", [["AP"], ["AP", "SetP"]], ids=["interned", "frames"])
def test_the_command_line_counts_a_partial_overlap_as_python_does(tmp_path, capsys, measures):
    qrels, runs = _write(tmp_path, PARTIAL)
    assert main(["evaluate", "-q", qrels, *runs, "--n", "50", "--quiet", "-m", *measures]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "the qrels" in line]
    assert warned == [f"warning: {IGNORED}", f"warning: {MISSING}"]



def test_a_printed_frame_as_name_is_shortened():
    """pt.Experiment names an unnamed frame str(frame): the messages show its first line, cut."""
    name = str(pd.DataFrame({"qid": ["1", "2"], "docno": ["d1", "d2"], "score": [1.0, 0.5]}))
    with pytest.warns(ptb.InputWarning) as caught:
        check_topic_overlap({name: ["1", "7"]}, ["1", "2"])
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2 and all("\n" not in m and "qid docno  score..." in m for m in messages), messages
    with pytest.raises(ValueError, match=r"^run 'qid docno  score\.\.\.' has no topic in the qrels"):
        check_topic_overlap({name: ["7"]}, ["1", "2"])
    with pytest.warns(ptb.InputWarning, match=r"runs \(topics ignored\): bm25 \(1\)"):
        check_topic_overlap({"bm25": ["1", "2", "7"]}, ["1", "2"])
