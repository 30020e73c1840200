"""``pyterrier-boot across``: several qrels/runs pairs give the figures of ``across_collections`` on
the same files, in every format; the output folder; the bad inputs named the command-line way."""
import io

import numpy as np
import pandas as pd
import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot.cli import main

pytestmark = pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Three simulated collections as files: ``<c>/runs/<name>.txt`` and ``<c>/qrels.txt``."""
    out = {}
    for c in range(3):
        sim = ptb.simulate_collection(n_topics=15, effectiveness={"bm25": 1.0, "mono": 1.2 + 0.3 * c, "duo": 1.5},
                                      depth=40, pool_depth=10, corpus_size=3000, matching=200, rng=40 + c)
        out[f"c{c}"] = write_trec(sim.runs, sim.qrels, tmp_path_factory.mktemp(f"c{c}"))
    return out


def _argv(folders, *extra, names=None):
    argv = ["across", "--quiet", "--n", "300", "-m", "AP"]
    for name, folder in folders.items():
        argv += ["-c", names.get(name, name) if names else name, folder / "qrels.txt", folder / "runs"]
    return [str(a) for a in argv + list(extra)]


def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_figures_equal_across_collections_on_the_same_files(capsys, folders):
    code, out, err = _run(capsys, _argv(folders, "-b", "bm25", "-f", "csv"))
    assert code == 0, err
    printed = pd.read_csv(io.StringIO(out))
    collections = {name: (ptb.read_runs(folder / "runs"), ptb.read_qrels(folder / "qrels.txt"))
                   for name, folder in folders.items()}
    expected = ptb.across_collections(collections, "AP", baseline="bm25", n_resamples=300).per_collection()
    np.testing.assert_allclose(printed["estimate"], expected["estimate"], rtol=1e-12)
    np.testing.assert_allclose(printed["ci_high"], expected["ci_high"], rtol=1e-12)


def test_table_says_which_question_each_figure_answers(capsys, folders):
    code, out, _ = _run(capsys, _argv(folders, "-b", "bm25", "--board", "pooled"))
    assert code == 0
    out = " ".join(out.split())  # captions are wrapped to the terminal's width
    for phrase in ("average", "pooled", "prediction", "I²", "Average (these collections)", "a new collection",
                   "ranked by their random-effects mean AP", "Seed 42"):
        assert phrase in out


def test_out_folder_holds_tables_plots_and_the_saved_analysis(capsys, folders, tmp_path):
    code, _, err = _run(capsys, _argv(folders, "-b", "bm25", "--standardize", "--tau2", "DL", "--out", tmp_path / "o"))
    assert code == 0, err
    names = {p.name for p in (tmp_path / "o").iterdir()}
    assert {"across.zip", "per_collection.csv", "average.csv", "pooled.csv", "table.md", "table.tex",
            "leaderboard.csv", "figures"} <= names
    assert {p.name for p in (tmp_path / "o" / "figures").iterdir()} == {"forest-mono.svg", "forest-duo.svg"}
    back = ptb.AcrossCollections.load(tmp_path / "o" / "across.zip")
    assert back.standardize and back.tau2_method == "DL"
    pd.testing.assert_frame_equal(back.pooled(), pd.read_csv(tmp_path / "o" / "pooled.csv"), check_dtype=False,
                                  check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_markdown_and_latex(capsys, folders, fmt):
    code, out, _ = _run(capsys, _argv(folders, "-f", fmt))
    assert code == 0
    assert ("| system |" in out) if fmt == "markdown" else out.count(r"\begin{tabular}") == 2


def test_one_collection_has_nothing_to_pool(capsys, folders):
    code, _, err = _run(capsys, _argv({"c0": folders["c0"]}))
    assert code == 2 and "give two or more collections, one --collection (-c) each" in err and "Traceback" not in err


def test_a_collection_named_twice_is_refused(capsys, folders):
    code, _, err = _run(capsys, _argv(folders, names={"c1": "c0"}))
    assert code == 1 and "--collection names 'c0' more than once" in err


def test_a_run_missing_from_a_collection_is_named(capsys, folders, tmp_path):
    partial = tmp_path / "partial"
    (partial / "runs").mkdir(parents=True)
    (partial / "qrels.txt").write_text((folders["c2"] / "qrels.txt").read_text())
    for name in ("bm25", "duo"):
        (partial / "runs" / f"{name}.txt").write_text((folders["c2"] / "runs" / f"{name}.txt").read_text())
    code, _, err = _run(capsys, _argv({**folders, "c2": partial}))
    assert code == 1 and "system 'mono' is missing from 'c2'" in err and "--systems NAME" in err
    code, _, err = _run(capsys, _argv({**folders, "c2": partial}, "--systems", "bm25", "duo"))
    assert code == 0, err


@pytest.mark.parametrize("extra", [["--standardize"], ["--confidence", "95"], ["--tau2", "ML"]])
def test_usage_errors_exit_2(capsys, folders, extra):
    code, _, err = _run(capsys, _argv(folders, *extra))
    assert code == 2 and "usage:" in err


def test_a_collection_needs_its_qrels_and_a_run(capsys):
    code, _, err = _run(capsys, ["across", "-c", "x", "qrels.txt", "-c", "y", "q.txt", "r.txt"])
    assert code == 2 and "give a name, the qrels and at least one run" in err
