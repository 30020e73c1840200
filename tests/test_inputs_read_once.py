"""Inputs are read and validated once, where they enter: one ``Experiment`` call (with the corpus
bootstrap), one ``evaluate`` call, one ``CorpusBootstrap`` evaluation and one ``pyterrier-boot
evaluate`` command each parse or validate the qrels once and every run once; inner layers take the
typed objects (:class:`Qrels`, :class:`Runs`) and never check the raw frames again."""
import collections

import pandas as pd
import pytest

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.inputs import qrels as qrels_module
from pyterrier_boot.inputs import runs as runs_module

# every function that turns raw input into a validated frame
_READERS = {
    qrels_module: ("_qrels_from_frame", "_read_qrels_file"),
    runs_module: ("_run_from_frame", "_read_run_file"),
}


@pytest.fixture
def reads(monkeypatch):
    """Counts of calls to each validating reader."""
    counts = collections.Counter()
    for module, names in _READERS.items():
        for name in names:
            original = getattr(module, name)

            def counted(*args, _original=original, _name=name, **kwargs):
                counts[_name] += 1
                return _original(*args, **kwargs)

            monkeypatch.setattr(module, name, counted)
    return counts


@pytest.fixture(scope="module")
def collection():
    sim = ptb.simulate_collection(n_topics=6, n_systems=3, depth=30, pool_depth=10, corpus_size=2000,
                                  matching=300, rng=3)
    return sim.runs, sim.qrels


def test_experiment_with_the_corpus_bootstrap_reads_each_input_once(collection, reads):
    runs, qrels = collection
    ptb.Experiment(list(runs.values()), None, qrels, ["map", "P_5"], names=list(runs), baseline=0,
                   bootstrap="corpus", n_resamples=40, rng=1)
    assert dict(reads) == {"_qrels_from_frame": 1, "_run_from_frame": len(runs)}


def test_experiment_result_with_both_bootstraps_reads_each_input_once(collection, reads):
    runs, qrels = collection
    ptb.experiment_result(runs, None, qrels, ["AP"], baseline=0, bootstrap="both", n_resamples=40, rng=1)
    assert dict(reads) == {"_qrels_from_frame": 1, "_run_from_frame": len(runs)}


def test_read_inputs_are_not_read_again(collection, reads):
    runs, qrels = collection
    read_qrels, read_runs = ptb.read_qrels(qrels), ptb.read_runs(runs)
    reads.clear()
    ptb.Experiment(read_runs, None, read_qrels, ["map"], baseline=0, bootstrap="corpus", n_resamples=40, rng=1)
    ptb.evaluate(read_runs, read_qrels, ["AP"])
    ptb.CorpusBootstrap(read_qrels, n_images=5, rng=1, verbose=False).evaluate(read_runs, ["AP"])
    assert dict(reads) == {}


def test_evaluate_and_corpus_bootstrap_read_each_input_once(collection, reads):
    runs, qrels = collection
    ptb.evaluate(runs, qrels, ["AP", "nDCG@10"])
    assert dict(reads) == {"_qrels_from_frame": 1, "_run_from_frame": len(runs)}
    reads.clear()
    ptb.CorpusBootstrap(qrels, n_images=5, rng=1, verbose=False).evaluate(runs, ["AP"])
    assert dict(reads) == {"_qrels_from_frame": 1, "_run_from_frame": len(runs)}


def test_cli_evaluate_reads_each_file_once(collection, reads, tmp_path, capsys):
    runs, qrels = collection
    (tmp_path / "runs").mkdir()
    for name, run in runs.items():
        lines = [f"{q} Q0 {d} 0 {s!r} {name}" for q, d, s in zip(run["qid"], run["docno"], run["score"], strict=True)]
        (tmp_path / "runs" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    pd.DataFrame({"qid": qrels["qid"], "iter": 0, "docno": qrels["docno"], "label": qrels["label"]}).to_csv(
        tmp_path / "qrels.txt", sep=" ", header=False, index=False)
    code = main(["evaluate", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "runs"), "--bootstrap",
                 "corpus", "--n", "40", "--rng", "1", "--quiet", "-b", next(iter(runs))])
    capsys.readouterr()
    assert code == 0
    assert dict(reads) == {"_read_qrels_file": 1, "_read_run_file": len(runs)}


def test_runs_are_read_only_and_a_plain_copy_is_read_again(collection, reads):
    import pickle

    runs, _ = collection
    read = ptb.read_runs(runs)
    assert isinstance(read, dict) and ptb.read_runs(read) is read
    with pytest.raises(TypeError, match="read-only"):
        read["new"] = runs[next(iter(runs))]
    with pytest.raises(TypeError, match="read-only"):
        read.update(runs)
    assert type(pickle.loads(pickle.dumps(read))) is ptb.Runs
    reads.clear()
    again = ptb.read_runs(dict(read))  # a plain dict is read again, frame by frame
    assert again is not read and list(again) == list(read)
    assert dict(reads) == {"_run_from_frame": len(runs)}
    with pytest.raises(TypeError, match="read_runs"):
        ptb.Runs({"raw": pd.DataFrame({"qid": ["1"], "docno": ["a"]})})
