"""Qrels judging one topic: the commands print the means with no intervals and one warning, as
``pt.boot.Experiment`` does (the leaderboard ranks the means; untested pairs get no letters and no
win / loss counts), or say clearly why they cannot work (never "'scores' needs at least 2 topics")."""
import warnings

import pandas as pd
import pytest

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.stats.comparison import COLUMNS

QRELS = "1 0 d1 1\n1 0 d2 0\n"
RUNS = {"a": "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n", "b": "1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n",
        "c": "1 Q0 d3 1 2.0 c\n1 Q0 d1 2 1.0 c\n"}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
    return tmp_path


def _evaluate(capsys, files, *options):
    argv = ["evaluate", "-q", str(files / "qrels.txt"), *(str(files / f"{n}.run") for n in RUNS), "--n", "50",
            "-m", "AP", *options]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out, [line for line in captured.err.splitlines() if line.startswith("warning: ")]


@pytest.mark.parametrize("options", [[], ["--bootstrap", "corpus"], ["--bootstrap", "both"], ["-b", "a"]],
                         ids=["topic", "corpus", "both", "baseline"])
def test_evaluate_prints_the_means_with_one_warning(capsys, files, options):
    out, warned = _evaluate(capsys, files, *options)
    assert warned == ["warning: only 1 topic is judged: intervals and tests need at least 2 topics, so they are left "
                      "empty (NaN)"]
    assert "Cells: mean [no intervals (1 topic: at least 2 are needed)]" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:2] in ("a ", "b ", "c ")}
    assert rows == {"a": ["1.000"], "b": ["0.500"], "c": ["0.500"]}  # the means, no "[, ]"


def test_evaluate_without_a_bootstrap_says_the_pairs_are_not_tested(capsys, files):
    out, warned = _evaluate(capsys, files, "--bootstrap", "none")
    assert warned == ["warning: only 1 topic is judged: the pairs of runs are not tested (a test needs at least 2 "
                      "topics)"]
    assert ">/<" not in out and "Significant pairs" not in out


def test_evaluate_writes_its_files(capsys, files):
    _evaluate(capsys, files, "--out", str(files / "out"), "--quiet")
    table = pd.read_csv(files / "out" / "table.csv")
    assert table["AP"].tolist() == [1.0, 0.5, 0.5] and table["AP ci_low"].isna().all()
    assert not (files / "out" / "pairwise.csv").exists()  # no pair is tested
    assert "no intervals (1 topic: at least 2 are needed)" in (files / "out" / "report.html").read_text()


def test_pairwise_on_one_topic_gives_the_differences_untested():
    runs = {name: pd.DataFrame([line.split()[::2][:3] for line in text.splitlines()],
                               columns=["qid", "docno", "score"]).astype({"score": float})
            for name, text in RUNS.items()}
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "label": [1, 0]})
    with pytest.warns(ptb.InputWarning, match="only 1 topic is judged"):
        res = ptb.experiment_result(runs, None, qrels, ["AP", "P@1"], rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the experiment has said it once
        pairwise = res.pairwise()
    assert list(pairwise.columns) == COLUMNS
    assert pairwise[["measure", "system_a", "system_b"]].values.tolist() == [
        ["AP", "a", "b"], ["AP", "a", "c"], ["AP", "b", "c"], ["P@1", "a", "b"], ["P@1", "a", "c"], ["P@1", "b", "c"]]
    assert pairwise["difference"].tolist() == [0.5, 0.5, 0.0, 1.0, 1.0, 0.0]
    assert pairwise[["wins", "ties", "losses"]].values.tolist()[:3] == [[1, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert pairwise["p-value"].isna().all() and not pairwise["reject"].any()


def test_topics_from_runs_says_why_it_needs_two_topics(capsys, files):
    code = main(["topics", "-d", "0.05", "-q", str(files / "qrels.txt"), str(files / "a.run"), str(files / "b.run"),
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and err == ("error: estimating the variance of per-topic differences needs at least 2 judged "
                                 "topics, the qrels judge 1; give --variance instead\n")


def _leaderboard(capsys, files, *options):
    code = main(["leaderboard", "-q", str(files / "qrels.txt"), *(str(files / f"{n}.run") for n in RUNS), "--quiet",
                 "--n", "50", "-m", "AP", *options])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out, [line for line in captured.err.splitlines() if line.startswith("warning: ")]


ONE_WARNING = ["warning: only 1 topic is judged: intervals and tests need at least 2 topics, so they are left empty "
               "(NaN)"]
NO_INTERVALS = ("Means with no intervals (1 topic: at least 2 are needed). Rank: the rank of the mean (1 = best; ties "
                "share the average rank), with no rank interval and no letter groups: no pair is tested (1 topic: a "
                "test needs at least 2).")


@pytest.mark.parametrize("options", [[], ["--bootstrap", "corpus"], ["-b", "a"]], ids=["topic", "corpus", "baseline"])
def test_leaderboard_prints_the_means_ranked_with_one_warning(capsys, files, options):
    out, warned = _leaderboard(capsys, files, *options)
    assert warned == ONE_WARNING
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines()
            if line.split()[:1] in (["1"], ["2"], ["3"]) and line.split()[1] in RUNS}
    assert rows == {"a": ["1.000", "1"], "b": ["0.500", "2.5"], "c": ["0.500", "2.5"]}  # no interval, no letter
    assert " ".join(out.split()).count(NO_INTERVALS) == 1 and "Letter groups" not in out


def test_leaderboard_markdown_and_site(capsys, files):
    out, warned = _leaderboard(capsys, files, "-f", "markdown", "--out", str(files / "site"), "--no-plots")
    assert warned == ONE_WARNING
    assert out.splitlines()[:3] == ["| rank | run | AP | AP rank |", "|---:|---|---|---|", "| 1 | a | 1.000 | 1 |"]
    assert NO_INTERVALS in out
    table = pd.read_csv(files / "site" / "leaderboard.csv")
    assert table["AP"].tolist() == [1.0, 0.5, 0.5] and table["AP rank"].tolist() == [1.0, 2.5, 2.5]
    assert table[["AP ci_low", "AP rank ci_high (topics)", "AP group"]].isna().all().all()
    assert not (files / "site" / "pairwise.csv").exists()  # no pair is tested
    assert NO_INTERVALS in (files / "site" / "index.html").read_text()


def test_report_shows_no_letters_or_counts_for_untested_pairs(capsys, files):
    _evaluate(capsys, files, "--out", str(files / "out"), "--quiet")
    text = (files / "out" / "report.html").read_text()
    assert "AP group" not in text and "&gt;/&lt;" not in text  # were "a" and "0 / 0" for every system
    assert "Comparisons: no pair is tested (1 topic: a test needs at least 2)." in text


def test_summary_and_display_give_no_letters_on_one_topic():
    from pyterrier_boot.report import summary_table

    runs = {name: pd.DataFrame([line.split()[::2][:3] for line in text.splitlines()],
                               columns=["qid", "docno", "score"]).astype({"score": float})
            for name, text in RUNS.items()}
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "label": [1, 0]})
    with pytest.warns(ptb.InputWarning, match="only 1 topic is judged"):
        res = ptb.experiment_result(runs, None, qrels, ["AP"], rng=1)
    summary = summary_table(res, pairwise=res.pairwise(), ranks=True, letters=True)
    assert summary.columns.tolist() == ["name", "AP"] and summary["AP"].tolist() == ["1.000", "0.500", "0.500"]
    shown = res.display()
    assert shown.letters is None and "No letters: no pair is tested (1 topic: a test needs at least 2)." in shown.caption


def test_header_and_means_plot_say_one_topic(capsys, files):
    import matplotlib

    matplotlib.use("Agg")
    out, _ = _evaluate(capsys, files)
    assert "3 runs x 1 topic;" in out
    runs = ptb.read_runs([str(files / f"{name}.run") for name in RUNS])
    with pytest.warns(ptb.InputWarning, match="only 1 topic is judged"):
        res = ptb.experiment_result(runs, None, str(files / "qrels.txt"), ["AP"], n_resamples=50)
    ax = res.plot_means("AP")
    assert ax.get_title() == "AP: mean of each system (no intervals: 1 topic, at least 2 are needed)"
    assert ax.get_xlabel() == "AP: mean over 1 topic"
