"""Runs read and interned one at a time: ``iter_runs`` reads as ``read_runs`` does, the CLI interns
run files one by one (never holding every frame) with the same results as from frames, and
``experiment_result`` takes interned runs."""
import gc
import io
import warnings
import weakref

import numpy as np
import pandas as pd
import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot.cli import _common, main
from pyterrier_boot.experiment.experiment import experiment_result
from pyterrier_boot.inputs.runs import iter_runs, read_runs
from pyterrier_boot.measures.arrays import JudgedRuns


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    sim = ptb.simulate_collection(n_topics=8, n_systems=3, depth=40, pool_depth=10, corpus_size=2000, matching=300,
                                  rng=5)
    runs = dict(sim.runs)
    extra = runs[next(iter(runs))].copy()
    extra["qid"] = "unjudged"  # a topic the qrels do not have: dropped with one warning
    runs[next(iter(runs))] = pd.concat([runs[next(iter(runs))], extra.head(3)], ignore_index=True)
    return write_trec(runs, sim.qrels, tmp_path_factory.mktemp("streaming")), sim


def test_iter_runs_yields_what_read_runs_reads(files):
    folder, _ = files
    read = read_runs(folder / "runs")
    streamed = list(iter_runs(folder / "runs"))
    assert [name for name, _ in streamed] == list(read)
    for name, frame in streamed:
        pd.testing.assert_frame_equal(frame, read[name])


def test_iter_runs_refuses_two_runs_of_one_name(files):
    folder, _ = files
    path = next((folder / "runs").iterdir())
    with pytest.raises(ValueError, match="two runs are named"):
        list(iter_runs([path, path]))
    with pytest.raises(ValueError, match="batch_size"):
        list(iter_runs(path, batch_size=0))


def test_interned_files_equal_the_frames_interned_together(files):
    folder, _ = files
    qrels = _common.read_qrels(folder / "qrels.txt", corpus_size=None, rel=None, remap=False)
    with pytest.warns(ptb.InputWarning, match="not in the qrels") as streamed_warnings:
        streamed = _common.intern_runs([folder / "runs"], qrels)
    with pytest.warns(ptb.InputWarning, match="not in the qrels") as read_warnings:
        runs = _common.read_runs([folder / "runs"], qrels)
    assert [str(w.message) for w in streamed_warnings] == [str(w.message) for w in read_warnings]
    together = JudgedRuns.build(runs, qrels.frame)
    for field in ("systems", "qids", "docnos", "qrels_offsets", "qrels_docs", "qrels_codes", "run_offsets",
                  "run_docs", "run_codes", "run_stops", "grade_values"):
        np.testing.assert_array_equal(getattr(streamed, field), getattr(together, field), err_msg=field)


def test_each_frame_is_released_before_the_next_run_is_read(files, monkeypatch):
    folder, _ = files
    qrels = _common.read_qrels(folder / "qrels.txt", corpus_size=None, rel=None, remap=False)
    alive = []
    original = iter_runs

    def watched(*args, **kwargs):
        for name, frame in original(*args, **kwargs):
            gc.collect()
            alive.append(sum(ref() is not None for ref in refs))
            refs.append(weakref.ref(frame))
            yield name, frame

    refs: list = []
    monkeypatch.setattr("pyterrier_boot.inputs.runs.iter_runs", watched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptb.InputWarning)
        _common.intern_runs([folder / "runs"], qrels)
    assert alive == [0, 0, 0]


def test_experiment_result_on_interned_runs_equals_on_frames(files):
    folder, _ = files
    qrels = _common.read_qrels(folder / "qrels.txt", corpus_size=None, rel=None, remap=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptb.InputWarning)
        runs = _common.read_runs([folder / "runs"], qrels)
        interned = _common.intern_runs([folder / "runs"], qrels)
    kwargs = dict(bootstrap="both", n_resamples=30, rng=1, baseline=0)
    on_frames = experiment_result(runs, None, qrels, ["AP", "nDCG@10"], **kwargs)
    on_interned = experiment_result(interned, None, qrels, ["AP", "nDCG@10"], **kwargs)
    pd.testing.assert_frame_equal(on_interned.table(), on_frames.table())
    pd.testing.assert_frame_equal(on_interned.comparisons.frame, on_frames.comparisons.frame)
    with pytest.raises(ValueError, match="ir_measures"):
        experiment_result(interned, None, qrels, ["AP", "infAP"], bootstrap=None)


@pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")  # main() prints them as `warning:` lines
def test_cli_without_a_kernel_measure_reads_frames_and_agrees(files, capsys):
    folder, _ = files
    argv = ["evaluate", "-q", str(folder / "qrels.txt"), str(folder / "runs"), "--n", "50", "--rng", "1",
            "--quiet", "--format", "csv"]
    assert main([*argv, "-m", "AP", "nDCG@10"]) == 0  # interned one run at a time
    kernel_only = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert main([*argv, "-m", "AP", "nDCG@10", "infAP"]) == 0  # infAP has no kernel: frames are read
    with_fallback = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert "infAP" in with_fallback.columns
    pd.testing.assert_frame_equal(kernel_only, with_fallback[kernel_only.columns])


@pytest.mark.parametrize("topic", ["judged", "unjudged"])
def test_cli_interning_one_run_at_a_time_refuses_a_repeated_document(tmp_path, topic):
    """The streaming path checks (qid, docno) pairs on integer ids (JudgedRunsBuilder.add), and the
    rows of unjudged topics it drops before interning as they are read: the same error either way."""
    qrels = "1 0 d1 1\n1 0 d2 0\n"
    qid = "1" if topic == "judged" else "9"
    run = f"1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n{qid} Q0 d3 1 1.0 r\n{qid} Q0 d3 2 0.5 r\n"
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "r.run").write_text(run)
    parsed = ptb.read_qrels(tmp_path / "qrels.txt")
    with warnings.catch_warnings(), pytest.raises(ValueError) as raised:
        warnings.simplefilter("ignore")
        _common.intern_runs([tmp_path / "r.run"], parsed)
    message = str(raised.value)
    assert f"run file '{tmp_path / 'r.run'}' has the same docno more than once for a topic" in message, message
    assert f"qid '{qid}' docno 'd3'" in message, message


def test_a_numeric_looking_tag_names_the_run_as_written(tmp_path):
    """Tags are read as text: '007' stays '007' (not 7), '1.50' stays '1.50'."""
    for tag in ("007", "1.50"):
        (tmp_path / f"{tag}.run").write_text(f"1 Q0 d1 1 2.0 {tag}\n1 Q0 d2 2 1.0 {tag}\n")
    assert sorted(name for name, _ in iter_runs(tmp_path)) == ["007", "1.50"]
