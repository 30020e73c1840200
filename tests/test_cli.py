"""``pyterrier-boot``: help, usage errors, outputs in every format, checked against ir_measures
(means), scipy and statsmodels (tests, corrections, power) on a small simulated collection
written as TREC files."""
import io
import json
import math
import subprocess
import sys

import ir_measures
import numpy as np
import pandas as pd
import pytest
import scipy.stats
import statsmodels.stats.multitest as multitest
from conftest import write_trec
from statsmodels.stats.power import TTestPower

import pyterrier_boot as ptb
from pyterrier_boot.cli import main

# main() prints our warnings as `warning: ...` lines, which these tests read: show them as a shell does,
# not as the errors pyproject's filterwarnings makes them elsewhere
pytestmark = pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A simulated collection as files: ``runs/<name>.txt`` (tag = name) and ``qrels.txt``."""
    sim = ptb.simulate_collection(n_topics=12, n_systems=4, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=11)
    return write_trec(sim.runs, sim.qrels, tmp_path_factory.mktemp("collection")), sim


def _ir_measures(sim, measure, qrels=None):
    """Per-topic values ``name -> Series(qid -> value)`` computed by ir_measures (the reference)."""
    qrels = sim.qrels if qrels is None else qrels
    q = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    out = {}
    for name, run in sim.runs.items():
        r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        values = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)], q, r)}
        out[name] = pd.Series(values).reindex(sorted(set(qrels["qid"])), fill_value=0.0)
    return out


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _evaluate(capsys, collection, *extra):
    folder, _ = collection
    return _run(capsys, "evaluate", "--qrels", folder / "qrels.txt", folder / "runs", "--n", 200, "--rng", 1,
                "--quiet", *extra)


# ---------------------------------------------------------------- usage


@pytest.mark.parametrize("command", [[], ["evaluate"], ["demo"], ["topics"]])
def test_help_with_examples(capsys, command):
    code, out, _ = _run(capsys, *command, "--help")
    assert code == 0
    assert "usage: pyterrier-boot" in out and "example" in out and "exit status" in out


@pytest.mark.parametrize("argv", [
    [],                                                      # no command
    ["evaluate", "run.txt"],                                 # no --qrels
    ["evaluate", "--qrels", "q.txt"],                        # no run
    ["evaluate", "--qrels", "q.txt", "r", "--bootstrap", "jackknife"],
    ["evaluate", "--qrels", "q.txt", "r", "--rel-remap"],    # --rel-remap without --rel
    ["evaluate", "--qrels", "q.txt", "r", "--confidence", "95"],
    ["evaluate", "--qrels", "q.txt", "r", "--n", "1"],
    ["evaluate", "--qrels", "q.txt", "r", "--workers", "0"],
    ["evaluate", "--qrels", "q.txt", "r", "--scheduler", "mpi"],
    ["topics", "--difference", "0.05"],                      # neither --variance nor runs
    ["topics", "--difference", "0.05", "--variance", "0.02", "--all-pairs"],
    ["demo", "--nonsense"],
])
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert "usage:" in err and "Traceback" not in err


def test_python_m_and_version():
    done = subprocess.run([sys.executable, "-m", "pyterrier_boot", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert done.stdout.strip() == f"pyterrier-boot {ptb.__version__}"


# ---------------------------------------------------------------- evaluate


def test_csv_means_match_ir_measures(capsys, collection):
    _, sim = collection
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "nDCG@10", "RR", "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    assert sorted(table.index) == sorted(sim.runs)
    for measure in ("AP", "nDCG@10", "RR"):
        reference = _ir_measures(sim, measure)
        for name in sim.runs:
            assert table.loc[name, measure] == pytest.approx(reference[name].mean(), abs=1e-9)
        assert (table[f"{measure} ci_low"] <= table[measure]).all()
        assert (table[measure] <= table[f"{measure} ci_high"]).all()


def test_same_seed_same_numbers(capsys, collection):
    first = _evaluate(capsys, collection, "--format", "csv")[1]
    again = _evaluate(capsys, collection, "--format", "csv")[1]
    other = _evaluate(capsys, collection, "--format", "csv", "--rng", 2)[1]
    assert first == again
    assert first != other


@pytest.mark.parametrize("scheduler", ["threads", "processes"])
def test_workers_give_the_same_numbers(capsys, collection, tmp_path, scheduler):
    """--workers/--scheduler only move the work: topic intervals and randomisation tests of all pairs
    are the same as in one process."""
    extra = ("--format", "csv", "--test", "randomization", "--correction", "fdr_bh", "--no-plots")
    here = _evaluate(capsys, collection, *extra, "--out", tmp_path / "here")[1]
    code, there, _ = _evaluate(capsys, collection, *extra, "--out", tmp_path / "there", "--workers", 2,
                               "--scheduler", scheduler)
    assert code == 0
    assert here == there
    for name in ("table.csv", "pairwise.csv"):
        assert (tmp_path / "here" / name).read_text() == (tmp_path / "there" / name).read_text(), name


def test_default_seed_is_printed(capsys, collection):
    """Without --rng the seed is Python's default (rng=None is seed 42), printed."""
    folder, _ = collection
    code, out, _ = _run(capsys, "evaluate", "-q", folder / "qrels.txt", folder / "runs", "--n", 50, "--quiet")
    assert code == 0
    text = " ".join(out.split())  # the paragraphs wrap where the temporary folder's name makes them
    assert "Seed 42: --rng 42 reproduces these numbers." in text
    assert "(50 topic resamples, seed 42)" in text


def test_terminal_table_fits_100_columns(capsys, collection, tmp_path):
    folder, sim = collection
    long_runs = tmp_path / "runs"
    long_runs.mkdir()
    for path in (folder / "runs").iterdir():  # long tags force the table into blocks
        text = path.read_text().replace(f" {path.stem}\n", f" {path.stem}_with_a_longer_tag_name\n")
        (long_runs / path.name).write_text(text)
    code, out, _ = _run(capsys, "evaluate", "-q", folder / "qrels.txt", long_runs, "-m", "AP", "nDCG@10", "P@10",
                        "RR", "--n", 100, "--rng", 1, "--quiet")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert out.count("S1_with_a_longer_tag_name") >= 2  # names repeated in each block
    means = _ir_measures(sim, "AP")
    best = max(means, key=lambda n: means[n].mean())
    assert f"{best}_with_a_longer_tag_name  {means[best].mean():.3f} [" in out


def test_baseline_pvalues_match_scipy_holm(capsys, collection):
    _, sim = collection
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "--baseline", "S1", "--correction", "holm",
                             "--format", "json")
    assert code == 0
    data = json.loads(out)
    reference = _ir_measures(sim, "AP")
    rows = pd.DataFrame(data["pairwise"]).set_index("name")
    names = ["S2", "S3", "S4"]
    p = [scipy.stats.ttest_rel(reference[n], reference["S1"]).pvalue for n in names]
    corrected = multitest.multipletests(p, method="holm")[1]
    for n, pv, pc in zip(names, p, corrected, strict=True):
        assert rows.loc[n, "baseline"] == "S1"
        assert rows.loc[n, "p-value"] == pytest.approx(pv, rel=1e-9)
        assert rows.loc[n, "p-value corrected"] == pytest.approx(pc, rel=1e-9)
    table = pd.DataFrame(data["table"]).set_index("name")
    assert table.loc["S2", "AP diff"] == pytest.approx(reference["S2"].mean() - reference["S1"].mean())
    assert data["seed"] == 1 and data["measures"] == ["AP"]


def test_all_pairs_out_folder(capsys, collection, tmp_path):
    _, sim = collection
    out_dir = tmp_path / "out"
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "nDCG@10", "--out", out_dir, "--format", "markdown")
    assert code == 0
    for name in ("table.csv", "perquery.csv", "pairwise.csv", "ranks.csv", "report.html", "table.md"):
        assert (out_dir / name).stat().st_size > 0, name
    assert (out_dir / "table.md").read_text().strip() == out.strip()
    pairwise = pd.read_csv(out_dir / "pairwise.csv")
    assert len(pairwise) == 6 * 2  # 4 runs: 6 pairs, 2 measures
    for measure in ("AP", "nDCG@10"):
        reference = _ir_measures(sim, measure)
        rows = pairwise[pairwise["measure"] == measure]
        p = [scipy.stats.ttest_rel(reference[a], reference[b]).pvalue
             for a, b in zip(rows["system_a"], rows["system_b"], strict=True)]
        np.testing.assert_allclose(rows["p-value"], p, rtol=1e-9)
        np.testing.assert_allclose(rows["p-value corrected"], multitest.multipletests(p, method="holm")[1],
                                   rtol=1e-9)
    perquery = pd.read_csv(out_dir / "perquery.csv", dtype={"qid": str})
    assert len(perquery) == 4 * 12 * 2
    page = (out_dir / "report.html").read_text()
    # 10 figures (means, matrix, rank intervals, rank boxes, per-topic differences for 2 measures), each
    # inline SVG with its PNG as a download link
    assert page.count("<svg ") == 10 and page.count('download="') == 10 and "</html>" in page


def test_rel_cut_and_remap(capsys, collection):
    _, sim = collection
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "P@10", "nDCG@10", "--rel", 2, "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    assert [c for c in table.columns if " " not in c] == ["AP(rel=2)", "P(rel=2)@10", "nDCG@10"]
    for label, measure in (("AP(rel=2)", "AP(rel=2)"), ("P(rel=2)@10", "P(rel=2)@10"), ("nDCG@10", "nDCG@10")):
        reference = _ir_measures(sim, measure)
        for name in sim.runs:
            assert table.loc[name, label] == pytest.approx(reference[name].mean(), abs=1e-9), (label, name)
    # --rel-remap: grade 1 becomes 0 for every measure, so nDCG@10 changes too (NIST's DL 2020 trec_eval table)
    code, out, _ = _evaluate(capsys, collection, "-m", "nDCG@10", "--rel", 2, "--rel-remap", "--format", "csv")
    remapped = sim.qrels.assign(label=sim.qrels["label"].where(sim.qrels["label"] != 1, 0))
    reference = _ir_measures(sim, "nDCG@10", qrels=remapped)
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    for name in sim.runs:
        assert table.loc[name, "nDCG@10"] == pytest.approx(reference[name].mean(), abs=1e-9)


def test_latex_and_markdown(capsys, collection):
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "--format", "latex")
    assert code == 0 and r"\begin{tabular}" in out and r"\end{table}" in out
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "--format", "markdown")
    lines = out.strip().splitlines()
    assert lines[0].startswith("| name | AP |") and lines[1].startswith("|:---|")
    assert sum(line.startswith("|") for line in lines) == 2 + 4
    assert lines[-1].startswith("Cells: mean [95% topic-bootstrap") and "seed 1)" in lines[-1]  # its caption


@pytest.mark.parametrize("comparison", [(), ("-b", "S1")], ids=["all-pairs", "baseline"])
def test_every_format_carries_the_caption(capsys, collection, comparison):
    """The default format's caption (what the cells, the >/< or vs-baseline columns hold, with the test
    and the correction) comes with the markdown and json tables too (issue 33: markdown dropped it),
    the same words; LaTeX has its own caption with the same test and correction."""
    options = ("-m", "AP", "--test", "sign", "--correction", "bonferroni", *comparison)
    code, table, _ = _evaluate(capsys, collection, *options)
    assert code == 0
    column = "'<m> vs <b>'" if comparison else "'<m> >/<'"
    words = " ".join(table.split())
    cells = words[words.index("Cells:"):words.index(" name ")]
    note = words[words.index(column):words.index(". ", words.index(column)) + 1]
    assert "sign test, bonferroni-corrected per measure" in note and "seed 1)" in cells
    _, markdown, _ = _evaluate(capsys, collection, *options, "--format", "markdown")
    caption = markdown.strip().splitlines()[-1]
    assert caption == f"{cells} {note}".replace(column, column.replace("'", "`"))
    _, text, _ = _evaluate(capsys, collection, *options, "--format", "json")
    assert json.loads(text)["caption"] == f"{cells} {note}"
    _, latex, _ = _evaluate(capsys, collection, *options, "--format", "latex")
    assert "sign test, bonferroni-corrected per measure" in " ".join(latex.split())


def test_measures_before_runs(capsys, collection):
    folder, _ = collection
    code, out, _ = _run(capsys, "evaluate", "--qrels", folder / "qrels.txt", "--measures", "AP", "P@5",
                        folder / "runs", "--n", 50, "--rng", 1, "--quiet", "--format", "csv")
    assert code == 0
    assert list(pd.read_csv(io.StringIO(out)).columns[:4]) == ["name", "AP", "P@5", "AP ci_low"]


def test_corpus_bootstrap(capsys, collection):
    code, out, _ = _evaluate(capsys, collection, "-m", "AP", "--bootstrap", "corpus", "--n", 30, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["bootstrap"] == "corpus" and data["interval"] == "normal"
    assert "corpus p-value" in data["pairwise"][0]


# ---------------------------------------------------------------- topics


def test_topics_from_variance_matches_statsmodels(capsys):
    code, out, _ = _run(capsys, "topics", "--difference", 0.05, "--variance", 0.02, "--format", "json")
    assert code == 0
    row = json.loads(out)["table"][0]
    effect = 0.05 / math.sqrt(0.02)
    assert row["topics needed"] == math.ceil(TTestPower().solve_power(effect_size=effect, alpha=0.05, power=0.8))
    assert row["power with 50 topics"] == pytest.approx(TTestPower().power(effect, 50, 0.05), rel=1e-6)
    code, out, _ = _run(capsys, "topics", "--difference", 0.05, "--variance", 0.02, "--systems", 10)
    assert code == 0 and "all pairs of 10 systems, Tukey HSD" in out


def test_topics_from_two_runs(capsys, collection):
    folder, sim = collection
    code, out, _ = _run(capsys, "topics", "-d", 0.1, "-q", folder / "qrels.txt", folder / "runs" / "S1.txt",
                        folder / "runs" / "S4.txt", "-m", "AP", "--rng", 3, "--quiet", "--format", "json")
    assert code == 0
    data = json.loads(out)
    reference = _ir_measures(sim, "AP")
    diff = reference["S1"] - reference["S4"]
    row = data["table"][0]
    assert row["variance"] == pytest.approx(diff.var(ddof=1), rel=1e-9)
    assert row["variance ci_low"] <= row["variance"] <= row["variance ci_high"]
    effect = 0.1 / diff.std(ddof=1)
    assert row["power with 12 topics"] == pytest.approx(TTestPower().power(effect, 12, 0.05), rel=1e-6)


# ---------------------------------------------------------------- demo


def test_demo_writes_report_runs_and_qrels(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "demo"
    code, out, err = _run(capsys, "demo", "--out", out_dir, "--topics", 15, "--quiet")
    assert code == 0, err
    words = " ".join(out.split())  # the text wraps at the terminal's width (a pipe under pytest-xdist)
    assert "S3 and S4 are equally good" in words and "true mean" in words
    assert str((out_dir / "report.html").resolve()) in "".join(out.split())  # wrapped long paths too
    page = (out_dir / "report.html").read_text()
    # 10 figures per section (see test_all_pairs_out_folder), the corpus section adds Fig. 2 for
    # 2 measures and Fig. 6; each inline SVG with its PNG as a download link
    assert page.count("<svg ") == 23 and page.count('download="') == 23
    assert sorted(p.name for p in (out_dir / "runs").iterdir()) == [f"S{i}.res.gz" for i in range(1, 7)]
    # the files it writes evaluate to the means it printed
    code, csv, _ = _run(capsys, "evaluate", "-q", out_dir / "qrels.txt", out_dir / "runs", "-m", "AP",
                        "--bootstrap", "none", "--format", "csv", "--quiet")
    assert code == 0
    table = pd.read_csv(io.StringIO(csv)).set_index("name")
    ap_block = out.split("\nAP\n")[1].split("\n\n")[0].splitlines()[2:]
    printed = {line.split()[0]: float(line.split()[1]) for line in ap_block}
    assert printed.keys() == set(table.index)
    for name, value in printed.items():
        assert table.loc[name, "AP"] == pytest.approx(value, abs=5e-4)


def test_docs_name_only_existing_options():
    """Every ``--option`` pt_docs/cli.md mentions exists (the docs do not drift from the parser)."""
    import re
    from pathlib import Path

    from pyterrier_boot.cli import build_parser

    parser = build_parser()
    options = {o for a in parser._actions for o in a.option_strings}
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            options |= {o for a in sub._actions for o in a.option_strings}
    docs = (Path(ptb.__file__).parent / "pt_docs" / "cli.md").read_text()
    docs = re.sub(r"```text\n.*?```", "", docs, flags=re.S)  # other tools' files (a CI workflow) name their own options
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", docs))
    assert mentioned and mentioned <= options, mentioned - options


def test_resampling_test_that_cannot_reject_warns(capsys, collection):
    # 12 topics: the exact randomization test's smallest p is 2 / 2^12; Holm over 6 pairs at
    # alpha 0.001 needs p < 0.001 / 6 for a first rejection
    code, out, err = _evaluate(capsys, collection, "-m", "AP", "--test", "randomization", "--alpha", "0.001",
                               "--format", "csv")
    assert code == 0
    assert "warning: the randomization test with all 4,096 sign flips of 12 topics gives p-values of at least " \
           "0.00049" in err and "no difference can be significant" in err
    code, out, err = _evaluate(capsys, collection, "-m", "AP", "--test", "randomization", "--format", "csv")
    assert "warning" not in err  # 0.05 / 6 is reachable


@pytest.mark.parametrize("extra", [
    ("--bootstrap", "both", "--n", "200", "--correction", "bonferroni"),
    ("--bootstrap", "topic", "--test", "sign", "--correction", "sidak"),
    ("--bootstrap", "corpus", "--n", "200", "--baseline", "run0", "--correction", "bonferroni"),
])
def test_every_written_row_rejects_exactly_when_its_interval_excludes_zero(capsys, collection, tmp_path, extra):
    # issue 11: one verdict per row in pairwise.csv (what the report's comparison table shows)
    out_dir = tmp_path / "out"
    argv = list(extra)
    if "--baseline" in argv:
        argv[argv.index("--baseline") + 1] = list(collection[1].runs)[0]
    code, _, _ = _evaluate(capsys, collection, "-m", "AP", "nDCG@10", "--out", out_dir, "--no-plots", *argv)
    assert code == 0
    rows = pd.read_csv(out_dir / "pairwise.csv")
    excluded = (rows["ci_low"] > 0) | (rows["ci_high"] < 0)
    assert (rows["reject"].astype(bool) == excluded).all()
    page = (out_dir / "report.html").read_text()
    assert "ci_low" in page


@pytest.mark.parametrize(("bootstrap", "named"), [("topic", "(t test, correction holm)"),
                                                  ("corpus", "(corpus-bootstrap replicate test, correction holm)")])
def test_progress_names_the_test_the_pairs_get(capsys, collection, bootstrap, named):
    folder, _ = collection
    code, _, err = _run(capsys, "evaluate", "--qrels", folder / "qrels.txt", folder / "runs", "--n", 50,
                        "--bootstrap", bootstrap)
    assert code == 0, err
    assert f"testing all 6 pairs of runs {named}" in err
