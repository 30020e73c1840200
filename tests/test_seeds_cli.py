"""``pyterrier-boot evaluate`` and ``leaderboard`` with runs grouped into systems (seeds): a regular
expression on the file names or a two-column mapping file; the numbers equal the Python door's."""
import json

import numpy as np
import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot.cli import main

pytestmark = pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Runs ``t5-seed1..3.txt`` (one system's seeds) and ``bm25.txt``, and the qrels, as files."""
    sim = ptb.simulate_collection(n_topics=12, n_systems=2, n_runs=[3, 1], seed_sd=0.2, seed_interaction_sd=0.2,
                                  depth=50, pool_depth=20, corpus_size=3000, matching=300, rng=3)
    runs = {f"t5-seed{i}": r for i, r in enumerate(sim.runs["S1"], 1)} | {"bm25": sim.runs["S2"]}
    return write_trec(runs, sim.qrels, tmp_path_factory.mktemp("seeds")), sim


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_group_runs_by_file_name(capsys, collection):
    folder, sim = collection
    code, out, _ = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "-m", "AP", "--n", 300,
                        "--quiet", "--group-runs", r"(.+)-seed\d+", "-f", "json")
    assert code == 0
    doc = json.loads(out)
    rows = {row["name"]: row for row in doc["table"]}
    assert set(rows) == {"t5", "bm25"} and "AP ci_low (seeds random)" in rows["t5"]
    res = ptb.experiment_result({"t5": sim.runs["S1"], "bm25": sim.runs["S2"]}, None, sim.qrels, ["AP"],
                                n_resamples=300)
    assert rows["t5"]["AP"] == pytest.approx(float(res.means[list(res.names).index("t5"), 0]), rel=1e-12)
    assert rows["t5"]["AP ci_low (seeds random)"] == pytest.approx(
        float(res.intervals[list(res.names).index("t5"), 0, 0]), rel=1e-12)


def test_groups_from_a_mapping_file_and_fixed_seeds(capsys, collection, tmp_path):
    folder, _ = collection
    mapping = tmp_path / "groups.txt"
    mapping.write_text("t5-seed1 T5\nt5-seed2 T5\nt5-seed3 T5\n")
    code, out, _ = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "-m", "AP", "--n", 300,
                        "--quiet", "--groups", mapping, "--seeds", "fixed", "-b", "bm25")
    assert code == 0
    assert "seeds fixed" in out and "T5" in out


def test_leaderboard_groups_runs(capsys, collection, tmp_path):
    folder, _ = collection
    code, out, _ = _run(capsys, "leaderboard", "-q", folder / "qrels.txt", folder / "runs", "-m", "AP", "--n", 300,
                        "--quiet", "--group-runs", r"(.+)-seed\d+", "--out", tmp_path / "site", "--no-plots")
    assert code == 0 and "topics+seeds" in out
    index = (tmp_path / "site" / "index.html").read_text()
    assert "seeds random" in index and "runs per system: bm25 1, t5 3" in index


def test_a_seed_run_missing_a_topic_scores_0_there(capsys, collection, tmp_path):
    """The warning's convention (trec_eval -c) and then the numbers, as for one run per system (the
    grouped runs raised after that warning)."""
    folder, sim = collection
    short = sim.runs["S1"][1][sim.runs["S1"][1]["qid"] != "3"]
    runs = {"t5-seed1": sim.runs["S1"][0], "t5-seed2": short, "t5-seed3": sim.runs["S1"][2], "bm25": sim.runs["S2"]}
    write_trec(runs, sim.qrels, tmp_path)
    code, out, err = _run(capsys, "evaluate", "-q", tmp_path / "qrels.txt", tmp_path / "runs", "-m", "AP", "--n",
                          300, "--group-runs", r"(.+)-seed\d+", "-f", "json")
    assert code == 0 and "they score 0 on those topics" in err and "error" not in err
    with pytest.warns(ptb.InputWarning, match="they score 0 on those topics"):
        res = ptb.experiment_result({"t5": [runs["t5-seed1"], short, runs["t5-seed3"]], "bm25": sim.runs["S2"]},
                                    None, sim.qrels, ["AP"], n_resamples=300)
    rows = {row["name"]: row for row in json.loads(out)["table"]}
    assert rows["t5"]["AP"] == pytest.approx(float(res.means[list(res.names).index("t5"), 0]), rel=1e-12)


def test_grouping_errors(capsys, collection, tmp_path):
    folder, _ = collection
    code, _, err = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "--group-runs", "x",
                        "--groups", tmp_path / "g.txt")
    assert code == 2 and "argument --groups: not allowed with argument --group-runs" in err
    (tmp_path / "bad.txt").write_text("t5-seed1 T5 extra\n")
    code, _, err = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "--quiet", "--groups",
                        tmp_path / "bad.txt")
    assert code == 1 and "bad.txt, line 1: expected two columns 'run system', got 3" in err
    code, _, err = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "--quiet", "--group-runs",
                        r"zzz(.+)")
    assert code == 1 and "--group-runs 'zzz(.+)' groups none of the" in err and "'pattern'" not in err
    code, _, err = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "--quiet", "--seeds",
                        "random")
    assert code == 1 and "seeds='random' needs a system given as two or more runs" in err
    code, _, err = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "--quiet", "--group-runs",
                        r"(.+)-seed\d+", "--test", "wilcoxon")
    assert code == 1 and "cannot include the seed variance" in err


def test_identical_output_on_workers(capsys, collection):
    folder, _ = collection
    args = ["evaluate", "-q", folder / "qrels.txt", folder / "runs", "-m", "AP", "--n", 300, "--quiet",
            "--group-runs", r"(.+)-seed\d+", "-f", "csv"]
    _, one, _ = _run(capsys, *args)
    _, two, _ = _run(capsys, *args, "--workers", 2, "--scheduler", "threads")
    assert one == two and np.isfinite(float(one.splitlines()[1].split(",")[2]))
