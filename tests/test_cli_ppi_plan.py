"""``pyterrier-boot judge-plan`` then ``pyterrier-boot ppi --plan``: the round trip on the command line
(issue 26), against the Python API and, with the whole pool judged, against ir_measures."""
import io

import ir_measures
import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as pb
from pyterrier_boot.cli import main

# the small collections have 8 topics: the one few-topics warning is expected, not the point
pytestmark = pytest.mark.filterwarnings("ignore:only 8 topics:pyterrier_boot.FitWarning")

MEASURES = ["AP", "nDCG@10", "P@5"]


def _write_run(path, name, run):
    lines = []
    for qid, group in run.groupby("qid", sort=False):
        group = group.sort_values("score", ascending=False)
        lines += [f"{qid} Q0 {d} {r} {s!r} {name}" for r, (d, s) in enumerate(zip(group["docno"], group["score"]), 1)]
    path.write_text("\n".join(lines) + "\n")


def _write_qrels(path, frame):
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(frame["qid"], frame["docno"], frame["label"])))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Runs S1-S3, a simulated judge's qrels (auto.txt) and the truth (truth, people's labels)."""
    folder = tmp_path_factory.mktemp("plan")
    sim = pb.simulate_collection(n_topics=8, n_systems=3, depth=40, pool_depth=20, rng=5)
    (folder / "runs").mkdir()
    for name, run in sim.runs.items():
        _write_run(folder / "runs" / f"{name}.txt", name, run)
    _write_qrels(folder / "auto.txt", pb.simulate_judge(sim.qrels, sim.runs, rng=6))
    return {"folder": folder, "truth": sim.qrels, "runs": sim.runs}


def _judge_plan(files, out, *options, runs=None):
    folder = files["folder"]
    code = main(["judge-plan", "--auto-qrels", str(folder / "auto.txt"), str(runs or folder / "runs"), "--depth", "30",
                 *options, "--out", str(out), "--quiet"])
    assert code == 0
    return out


def _label(files, to_judge, path):
    """People's labels (the truth) for exactly the pairs of ``to_judge``, as a qrels file."""
    truth = files["truth"].set_index(["qid", "docno"])["label"]
    pairs = pd.read_csv(to_judge, sep=" ", header=None, names=["qid", "iter", "docno"], dtype=str)
    index = pd.MultiIndex.from_frame(pairs[["qid", "docno"]])
    _write_qrels(path, pairs.assign(label=truth.reindex(index).fillna(0).astype(int).to_numpy()))
    return path


@pytest.fixture(scope="module")
def judged(files, tmp_path_factory):
    """A 30% stratified plan made on the command line and the human labels of its sample."""
    plan = _judge_plan(files, tmp_path_factory.mktemp("p") / "plan", "--budget", "0.3", "--rng", "3")
    return {"plan": plan, "human": _label(files, plan / "to_judge.txt", plan.parent / "human.txt")}


def _ppi(files, judged, *options, plan=None, human=None, runs=None):
    folder = files["folder"]
    return main(["ppi", "--auto-qrels", str(folder / "auto.txt"), "--human-qrels", str(human or judged["human"]),
                 "--plan", str(plan or judged["plan"] / "plan.txt"), str(runs or folder / "runs"), *options, "--quiet"])


def _python(files, judged, measures, **options):
    folder = files["folder"]
    return pb.ppi_evaluate(pb.read_runs(folder / "runs"), pb.read_qrels(folder / "auto.txt"),
                           pb.read_qrels(judged["human"]), measures,
                           plan=pb.JudgingPlan.load(judged["plan"] / "plan.txt"), **options)


def _same_frames(written, expected):
    """Numbers to 1e-12 (the CSV keeps 17 digits), text equal (an empty flag is read back as NaN)."""
    assert list(written.columns) == list(expected.columns)
    for column in expected.columns:
        if pd.api.types.is_numeric_dtype(expected[column]):
            np.testing.assert_allclose(written[column].to_numpy(float), expected[column].to_numpy(float),
                                       rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=column)
        else:
            assert written[column].astype(object).fillna("").astype(str).tolist() == expected[column].astype(str).tolist(), column


def test_round_trip_equals_the_python_api(files, judged, tmp_path, capsys):
    out = tmp_path / "out"
    assert _ppi(files, judged, "-m", *MEASURES, "-b", "S1", "--out", str(out)) == 0
    printed = capsys.readouterr().out
    plan = pb.JudgingPlan.load(judged["plan"] / "plan.txt")
    n = len((judged["plan"] / "to_judge.txt").read_text().splitlines())
    assert n == plan.pool["sampled"].sum() > 0
    assert (f"the human labels are a sample of documents, {n} labels of {len(plan.pool)} pool pairs over 8 topics "
            f"({plan.design} design); estimand 'population'") in printed.splitlines()[0]
    assert "AP: difference from S1" in printed and "human-only" in printed
    expected = _python(files, judged, MEASURES)
    _same_frames(pd.read_csv(out / "ppi_table.csv"), expected.table(baseline="S1"))
    _same_frames(pd.read_csv(out / "ppi_pairwise.csv"), expected.pairwise())
    _same_frames(pd.read_csv(out / "ppi_per_query.csv", dtype={"qid": str}), expected.per_query())
    # the printed PPI cell of S2's AP is the table's, rounded
    row = expected.table().set_index("name").loc["S2"]
    assert f"{row['AP']:.3f} [{row['AP ci_low']:.3f}, {row['AP ci_high']:.3f}]" in printed


def test_topics_estimand_uses_the_replicates_and_seed(files, judged, capsys):
    assert _ppi(files, judged, "-m", "AP", "--estimand", "topics", "--replicates", "40", "--rng", "9", "--lam",
                "1", "--format", "csv") == 0
    written = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = _python(files, judged, ["AP"], estimand="topics", n_replicates=40, rng=9, lam=1.0).table()
    np.testing.assert_allclose(written[["AP", "AP ci_low", "AP ci_high"]], expected[["AP", "AP ci_low", "AP ci_high"]],
                               rtol=1e-5)  # the csv prints 6 significant digits
    assert (written["AP lambda"] == 1).all() and (written["estimand"] == "topics").all()
    assert _ppi(files, judged, "-m", "AP", "--estimand", "topics", "--replicates", "40", "--rng", "10") == 0
    assert "normal, 40 design replicates" in capsys.readouterr().out


def test_population_estimand_reads_the_replicates_for_ndcg_alone(files, judged, capsys):
    # nDCG's estimate is corrected for its bias with the design replicates; AP's reads none
    tables = []
    for seed in ("9", "10"):
        assert _ppi(files, judged, "-m", "AP", "nDCG@10", "--replicates", "40", "--rng", seed, "--format", "csv") == 0
        tables.append(pd.read_csv(io.StringIO(capsys.readouterr().out)))
    expected = _python(files, judged, ["AP", "nDCG@10"], n_replicates=40, rng=9).table()
    np.testing.assert_allclose(tables[0][["AP", "nDCG@10"]], expected[["AP", "nDCG@10"]], rtol=1e-5)
    np.testing.assert_array_equal(tables[0]["AP"], tables[1]["AP"])
    assert not np.allclose(tables[0]["nDCG@10"], tables[1]["nDCG@10"], rtol=1e-6, atol=0)


def test_the_whole_pool_judged_gives_the_human_means(files, tmp_path, capsys):
    """Every pool pair sampled (probability 1): the estimate is each run's mean under people's labels,
    by ir_measures (the truth's relevant documents are all in the pool)."""
    plan = _judge_plan(files, tmp_path / "plan", "--budget", "1.0", "--strategy", "uniform")
    human = _label(files, plan / "to_judge.txt", tmp_path / "human.txt")
    measures = ["AP", "nDCG@10", "P(rel=2)@5", "RR"]
    capsys.readouterr()  # judge-plan's line
    assert _ppi(files, {"human": human, "plan": plan}, "-m", *measures, "--estimand", "topics", "--format",
                "csv") == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("name")
    qrels = files["truth"].rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    for name, run in files["runs"].items():
        run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        means = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in measures], qrels, run)
        for m in measures:
            truth = means[ir_measures.parse_measure(m)]
            assert table.loc[name, m] == pytest.approx(truth, rel=1e-5), (name, m)
            assert table.loc[name, f"{m} ci_low"] == pytest.approx(truth, rel=1e-5)  # nothing left to estimate
            assert table.loc[name, f"{m} ci_high"] == pytest.approx(truth, rel=1e-5)


def test_bad_labels_and_other_plans_are_one_error_line(files, judged, tmp_path, capsys):
    lines = judged["human"].read_text().splitlines(keepends=True)
    (tmp_path / "extra.txt").write_text("".join(lines) + "1 0 NOT-SAMPLED 1\n")
    assert _ppi(files, judged, "-m", "AP", human=tmp_path / "extra.txt") == 1
    err = capsys.readouterr().err
    assert err.startswith("error: 'human_qrels' labels 1 pair(s) the judging plan did not sample (e.g. topic '1', "
                          "document 'NOT-SAMPLED')") and err.count("\n") == 1
    (tmp_path / "short.txt").write_text("".join(lines[1:]))
    assert _ppi(files, judged, "-m", "AP", human=tmp_path / "short.txt") == 1
    assert f"error: 'human_qrels' has no label for 1 of the plan's {len(lines)} sampled pair(s)" in \
        capsys.readouterr().err
    # a plan of other automatic qrels
    folder = files["folder"]
    other = tmp_path / "other"
    (other / "runs").mkdir(parents=True)
    auto = (folder / "auto.txt").read_text().splitlines(keepends=True)
    (other / "auto.txt").write_text("".join(auto[1:]))
    code = main(["judge-plan", "--auto-qrels", str(other / "auto.txt"), str(folder / "runs"), "--depth", "30",
                 "--budget", "0.3", "--out", str(other / "plan"), "--quiet"])
    assert code == 0
    assert _ppi(files, judged, "-m", "AP", plan=other / "plan" / "plan.txt") == 1
    assert "error: 'auto_qrels' are not the automatic qrels this judging plan was made from" in \
        capsys.readouterr().err
    # a plan of other runs: made from S1 alone, S2 and S3 rank documents outside its pool
    (other / "runs" / "S1.txt").write_text((folder / "runs" / "S1.txt").read_text())
    one = _judge_plan(files, tmp_path / "one", "--budget", "0.5", runs=other / "runs")
    assert _ppi(files, judged, "-m", "AP", plan=one / "plan.txt") == 1
    assert "error: 'runs' are not the runs this judging plan was made for" in capsys.readouterr().err
    assert _ppi(files, judged, "-m", "AP", plan=one / "plan.txt", runs=other / "runs") == 1  # labels of another sample
    assert "the judging plan did not sample" in capsys.readouterr().err
    (tmp_path / "edited.txt").write_text((judged["plan"] / "plan.txt").read_text().replace(" 0\n", " 1\n", 1))
    assert _ppi(files, judged, "-m", "AP", plan=tmp_path / "edited.txt") == 1
    assert "the file was changed after it was saved" in capsys.readouterr().err


def test_options_of_the_other_kind_are_usage_errors(files, judged, capsys):
    assert _ppi(files, judged, "-m", "AP", "--asymptotic") == 2
    assert "--asymptotic applies to topic-level intervals" in capsys.readouterr().err
    folder = files["folder"]
    code = main(["ppi", "--auto-qrels", str(folder / "auto.txt"), "--human-qrels", str(judged["human"]),
                 str(folder / "runs"), "--rng", "3", "--quiet"])
    assert code == 2 and "--rng needs --plan FILE" in capsys.readouterr().err
    assert _ppi(files, judged, "-m", "AP", "--estimand", "topics", "--replicates", "5") == 1
    assert "error: --replicates must be an integer of at least 20, got 5" in capsys.readouterr().err


@pytest.fixture(scope="module")
def with_a_zero_run(files, tmp_path_factory):
    """S1-S3 and Z0, S1's ranking on topics 1 and 2 and documents no one judged elsewhere: 0 on 6 of 8."""
    folder = tmp_path_factory.mktemp("zero")
    (folder / "runs").mkdir()
    for name, run in files["runs"].items():
        _write_run(folder / "runs" / f"{name}.txt", name, run)
    s1 = files["runs"]["S1"]
    _write_run(folder / "runs" / "Z0.txt", "Z0",
               s1.assign(docno=s1["docno"].where(s1["qid"].isin(["1", "2"]), "X" + s1["docno"])))
    return folder


def _flag_rows(printed, title):
    """The rows of one printed block: name -> its flag marks ('' for none), read from the columns
    between the right edges of the headers 'PPI' and 'flag' (both right-aligned)."""
    header, *rows = printed.split(f"\n{title}\n")[1].split("\n\n")[0].splitlines()
    start, end = header.index(" PPI ") + 4, header.index(" flag ") + 5
    return {row.split()[0]: row[start:end].strip() for row in rows if row.split()}


def test_flags_are_marked_and_explained(files, with_a_zero_run, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("pyterrier_boot.ppi.coverage.TABLE", ())  # the runs' own flags (the measured ones: test_ppi_coverage)
    runs = with_a_zero_run / "runs"
    plan = _judge_plan(files, tmp_path / "plan", "--budget", "0.05", "--design", "poisson", runs=runs)
    human = _label(files, plan / "to_judge.txt", tmp_path / "human.txt")
    assert _ppi(files, {"plan": plan, "human": human}, "-m", "P@10", "-b", "S1", runs=runs) == 0
    printed = capsys.readouterr().out
    folder = files["folder"]
    table = pb.ppi_evaluate(pb.read_runs(runs), pb.read_qrels(folder / "auto.txt"), pb.read_qrels(human), ["P@10"],
                            plan=pb.JudgingPlan.load(plan / "plan.txt")).table(baseline="S1")
    assert table.set_index("name").loc["Z0", "P@10 flag"] == "mostly 0, few labels in top ranks"
    assert _flag_rows(printed, "P@10: mean") == {"S1": "", "S2": "", "S3": "", "Z0": "1,2"}
    assert _flag_rows(printed, "P@10: difference from S1")["Z0"] == "1,2"
    assert "\n  1 mostly 0: the run scores 0 on more than 50% of the topics by the automatic labels\n" in printed
    assert "\n  2 few labels in top ranks: fewer human labels in the run's top ranks" in printed
    # the topic-level command: people judged topics 1 to 4 completely
    truth = files["truth"]
    _write_qrels(tmp_path / "topics.txt", truth[truth["qid"].isin(["1", "2", "3", "4"])])
    code = main(["ppi", "--auto-qrels", str(folder / "auto.txt"), "--human-qrels", str(tmp_path / "topics.txt"),
                 str(runs), "-m", "AP", "--estimand", "topics", "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0 and _flag_rows(printed, "AP: mean") == {"S1": "", "S2": "", "S3": "", "Z0": "1"}
    assert printed.rstrip().endswith("1 mostly 0: the run scores 0 on more than 50% of the topics by the "
                                     "automatic labels")
    assert "few labels" not in printed


def test_no_flag_column_without_flags(files, judged, capsys, monkeypatch):
    monkeypatch.setattr("pyterrier_boot.ppi.coverage.TABLE", ())  # nothing measured falls short: no flag at all
    assert _ppi(files, judged, "-m", "AP") == 0
    printed = capsys.readouterr().out
    assert "flag" not in printed
    assert not _python(files, judged, ["AP"]).table()["AP flag"].astype(bool).any()


def test_help_names_the_plan_options(capsys):
    from pyterrier_boot.ppi.sampled import DEFAULT_REPLICATES

    assert main(["ppi", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--plan FILE" in out and "judge-plan" in out and f"(default {DEFAULT_REPLICATES})" in out


def test_an_active_plan_needs_the_same_probabilities(files, tmp_path, capsys):
    folder = files["folder"]
    pairs = pd.read_csv(folder / "auto.txt", sep=" ", header=None, dtype=str)
    p = np.random.default_rng(4).uniform(size=len(pairs))
    (tmp_path / "auto.prob").write_text("".join(f"{q} 0 {d} {float(v)!r}\n" for q, d, v in zip(pairs[0], pairs[2], p)))
    plan = _judge_plan(files, tmp_path / "plan", "--budget", "0.2", "--strategy", "active", "--probabilities",
                       str(tmp_path / "auto.prob"))
    judged = {"plan": plan, "human": _label(files, plan / "to_judge.txt", tmp_path / "human.txt")}
    assert _ppi(files, judged, "-m", "AP") == 1
    assert "give the plan's --auto-qrels (and its --probabilities, if it was made with them)" in capsys.readouterr().err
    assert _ppi(files, judged, "-m", "AP", "--probabilities", str(tmp_path / "auto.prob"), "--format", "csv") == 0
    written = pd.read_csv(io.StringIO(capsys.readouterr().out))
    auto = pb.read_qrels(folder / "auto.txt").frame.assign(probability=p)  # the file's order
    expected = pb.ppi_evaluate(pb.read_runs(folder / "runs"), auto, pb.read_qrels(judged["human"]), ["AP"],
                               plan=pb.JudgingPlan.load(plan / "plan.txt")).table()
    np.testing.assert_allclose(written["AP ci_low"], expected["AP ci_low"], rtol=1e-5)
