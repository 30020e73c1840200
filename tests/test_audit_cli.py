"""``pyterrier-boot audit-tests``: runs and qrels or a score matrix CSV, every format, --out, usage and
input errors; the score-matrix reader fuzzed with mutated files."""
import json
import random

import numpy as np
import pandas as pd
import pytest
from conftest import write_trec

import pyterrier_boot as pb
from pyterrier_boot.cli import main
from pyterrier_boot.cli.audit_tests import read_score_matrix

pytestmark = pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")
FAST = ["--n", "100", "--families", "20", "--resamples", "50", "--rng", "1", "--quiet"]


@pytest.fixture(scope="module")
def matrix_csv(tmp_path_factory):
    scores, _ = pb.simulate_scores(4, 15, rng=2)
    path = tmp_path_factory.mktemp("audit") / "ap.csv"
    frame = pd.DataFrame(scores.T.round(4), columns=["bm25", "dph", "qld", "pl2"])
    frame.insert(0, "qid", [f"q{i}" for i in range(15)])
    frame.to_csv(path, index=False)
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_score_matrix_table_with_the_recommendation(capsys, matrix_csv):
    code, out, err = _run(capsys, "audit-tests", "--scores", matrix_csv, "-m", "AP", *FAST)
    assert code == 0, err
    assert out.startswith("On 4 systems x 15 topics of AP, 100 simulated sets of 15 topics")
    assert "paired-bootstrap" in out and "tukey-hsd" in out and "kendall tau (pairs)" in out


def test_csv_and_json_formats_agree_with_python(capsys, matrix_csv):
    options = ["--tests", "t", "sign", "--no-families", "--effects", "0.05"]
    code, out, _ = _run(capsys, "audit-tests", "--scores", matrix_csv, *options, *FAST, "-f", "csv")
    table = pd.read_csv(pd.io.common.StringIO(out))
    scores = read_score_matrix(str(matrix_csv))
    audit = pb.audit_tests(scores, tests=["t", "sign"], corrections=None, effects=(0.05,), n_simulations=100,
                           n_resamples=50, rng=1, verbose=False)
    np.testing.assert_allclose(table["type_i"], audit.table()["type_i"])
    code, out, _ = _run(capsys, "audit-tests", "--scores", matrix_csv, *options, *FAST, "-f", "json")
    document = json.loads(out)
    assert document["recommendation"] == audit.recommendation() and document["seed"] == 1


def test_out_folder_holds_the_audit_table_and_figures(capsys, matrix_csv, tmp_path):
    code, _, err = _run(capsys, "audit-tests", "--scores", matrix_csv, "--no-families", "--out", tmp_path / "a", *FAST)
    assert code == 0, err
    assert {p.name for p in (tmp_path / "a").iterdir()} >= {"audit.zip", "table.csv", "goodness-of-fit.csv",
                                                           "type-i.png", "power.png"}
    assert pb.TestAudit.load(tmp_path / "a" / "audit.zip").n_simulations == 100


def test_runs_and_qrels(capsys, tmp_path):
    sim = pb.simulate_collection(n_topics=12, n_systems=4, depth=50, pool_depth=10, rng=5)
    folder = write_trec(sim.runs, sim.qrels, tmp_path)
    code, out, err = _run(capsys, "audit-tests", "-q", folder / "qrels.txt", folder / "runs", "-m", "RR",
                          "--no-families", "--tests", "t", *FAST)
    assert code == 0, err
    assert "of RR" in out


@pytest.mark.parametrize("argv, message", [
    (["--scores", "x.csv", "runs/"], "give either --scores CSV, or --qrels and RUN files"),
    (["runs/"], "give --qrels and RUN files (or --scores CSV)"),
    (["-q", "qrels.txt", "runs/"], "--measure is required with runs"),
    (["--scores", "x.csv", "--alpha", "2"], "--alpha must be between 0 and 1"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    code, _, err = _run(capsys, "audit-tests", *argv)
    assert code == 2 and message in err


def test_bad_matrices_are_one_line_errors(capsys, tmp_path):
    code, _, err = _run(capsys, "audit-tests", "--scores", tmp_path / "none.csv", "--quiet")
    assert code == 1 and err == f"error: no score matrix at '{tmp_path / 'none.csv'}'\n"
    (tmp_path / "words.csv").write_text("a,b,c\n0.1,x,0.2\n0.3,0.4,0.5\n")
    code, _, err = _run(capsys, "audit-tests", "--scores", tmp_path / "words.csv", "--quiet")
    assert code == 1 and "has non-numeric columns ['b']" in err
    (tmp_path / "small.csv").write_text("a,b,c\n" + "0.1,0.2,0.3\n" * 5)
    code, _, err = _run(capsys, "audit-tests", "--scores", tmp_path / "small.csv", "--quiet")
    assert code == 1 and "needs at least 10 topics" in err


def test_mutated_score_matrices_parse_or_fail_with_a_value_error(tmp_path, matrix_csv):
    """Fuzz: flipped bytes, cut lines, extra fields, empty files: a frame or a ValueError, nothing else."""
    text = matrix_csv.read_text()
    rng = random.Random(7)
    for k in range(60):
        chars = list(text)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(chars))
            chars[i] = rng.choice([",", "\n", "x", "", "1e400", "nan", "\x00", '"', "-"])
        path = tmp_path / f"m{k}.csv"
        path.write_text("".join(chars)[: rng.randint(0, len(chars))])
        try:
            frame = read_score_matrix(str(path))
        except ValueError:
            continue
        assert frame.shape[0] == len(frame.index)
