"""Reproducibility measures (Breuer et al. 2020) against the repro-eval package, the
``reproducibility`` function's intervals and errors, and the ``reproduce`` command."""
import warnings

import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as ptb
from pyterrier_boot import InputWarning, kendall_tau_union, rank_biased_overlap
from pyterrier_boot.cli import main

MEASURES = ["AP", "P@5", "nDCG@10", "RR"]
TOPICS = [str(q) for q in range(1, 9)]


def _frame_lines(frame, tag):
    """TREC lines in trec_eval order (score descending, ties by docno descending), as repro-eval expects."""
    frame = frame.sort_values(["qid", "score", "docno"], ascending=[True, False, False])
    return [f"{r.qid} Q0 {r.docno} {i} {r.score!r} {tag}" for i, r in enumerate(frame.itertuples(), 1)]


def make_runs(seed=3, depth=15, n_docs=40):
    """Original baseline/advanced runs and perturbed reproductions (some documents swapped for
    others, scores jittered and rounded so ties occur), plus graded qrels."""
    rng = np.random.default_rng(seed)
    docs = np.array([f"d{i:03d}" for i in range(n_docs)])
    qrels = []
    for q in TOPICS:
        judged = rng.choice(docs, 20, replace=False)
        for d in judged:
            qrels.append((q, d, int(rng.choice([0, 0, 1, 2, 3]))))
    qrels = pd.DataFrame(qrels, columns=["qid", "docno", "label"])
    original, reproduced = {}, {}
    for name, strength in (("base", 0.0), ("adv", 1.0)):
        rows_o, rows_r = [], []
        for q in TOPICS:
            rel = dict(qrels[qrels.qid == q][["docno", "label"]].itertuples(index=False))
            chosen = rng.choice(docs, depth, replace=False)
            score = np.round(rng.random(depth) + strength * np.array([rel.get(d, 0) for d in chosen]) / 3, 1)
            rows_o += [(q, d, s) for d, s in zip(chosen, score, strict=True)]
            swap = rng.random(depth) < 0.2
            others = np.setdiff1d(docs, chosen)
            chosen_r = chosen.copy()
            chosen_r[swap] = rng.choice(others, swap.sum(), replace=False)
            score_r = np.round(score + rng.normal(0, 0.15, depth), 1)
            rows_r += [(q, d, s) for d, s in zip(chosen_r, score_r, strict=True)]
        original[name] = pd.DataFrame(rows_o, columns=["qid", "docno", "score"])
        reproduced[name] = pd.DataFrame(rows_r, columns=["qid", "docno", "score"])
    return original, reproduced, qrels


def write(folder, runs, qrels=None):
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, frame in runs.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(_frame_lines(frame, name)) + "\n")
    if qrels is not None:
        q = folder.parent / "qrels.txt"
        q.write_text("".join(f"{r.qid} 0 {r.docno} {r.label}\n" for r in qrels.itertuples()))
        paths["qrels"] = q
    return paths


@pytest.fixture(scope="module")
def runs_and_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repro")
    original, reproduced, qrels = make_runs()
    o = write(tmp / "original", original, qrels)
    r = write(tmp / "reproduced", reproduced)
    return original, reproduced, qrels, o, r, tmp


def repro_eval_reference(o, r):
    reval = pytest.importorskip("repro_eval.Evaluator", reason="repro-eval is not installed (pip install repro-eval)")
    from repro_eval.measure.statistics import ttest

    rpd = reval.RpdEvaluator(qrels_orig_path=str(o["qrels"]), run_b_orig_path=str(o["base"]),
                             run_a_orig_path=str(o["adv"]), run_b_rep_path=str(r["base"]),
                             run_a_rep_path=str(r["adv"]))
    rpd.trim()
    rpd.evaluate()
    unpaired = {"baseline": ttest(rpd.run_b_orig_score, rpd.run_b_rep_score, rpd=False),
                "advanced": ttest(rpd.run_a_orig_score, rpd.run_a_rep_score, rpd=False)}
    return dict(ktu=rpd.ktu(per_topic=True), rbo=rpd.rbo(per_topic=True), rmse=rpd.rmse(), er=rpd.er(),
                dri=rpd.dri(), ttest=rpd.ttest(), unpaired=unpaired)


REPRO_EVAL_NOISE = ("ignore::DeprecationWarning:ir_measures", "ignore::RuntimeWarning:repro_eval",
                    "ignore:Precision loss occurred:RuntimeWarning")


@pytest.mark.filterwarnings(*REPRO_EVAL_NOISE)
def test_measures_match_repro_eval(runs_and_files):
    _, _, _, o, r, _ = runs_and_files
    ref = repro_eval_reference(o, r)
    originals = {k: o[k] for k in ("base", "adv")}
    reproductions = {k: r[k] for k in ("base", "adv")}
    res = ptb.reproducibility(originals, reproductions, o["qrels"], MEASURES, baseline="base", n_resamples=200, rng=1)
    unpaired = ptb.reproducibility(originals, reproductions, o["qrels"], MEASURES, paired=False, plan=res.plan)
    role = {"base": "baseline", "adv": "advanced"}
    ordering = res.ordering.set_index(["name", "qid"])
    for name in ("base", "adv"):
        for q in TOPICS:
            assert ordering.loc[(name, q), "KTU"] == pytest.approx(ref["ktu"][role[name]][q], abs=1e-12)
            assert ordering.loc[(name, q), "RBO"] == pytest.approx(ref["rbo"][role[name]][q], abs=1e-12)
    table = res.table.set_index(["name", "measure"])
    table_u = unpaired.table.set_index(["name", "measure"])
    for m in MEASURES:
        for name in ("base", "adv"):
            assert table.loc[(name, m), "RMSE"] == pytest.approx(ref["rmse"][role[name]][m], abs=1e-12)
            expected = ref["ttest"][role[name]][m]
            if np.isnan(expected):  # repro-eval: NaN when one measure's scores are identical; ours 1.0
                per = res.per_topic[(res.per_topic.name == name) & (res.per_topic.measure == m)]
                assert (per.original == per.reproduced).all()
                expected = 1.0
            assert table.loc[(name, m), "t p-value"] == pytest.approx(expected, rel=1e-10)
            expected = ref["unpaired"][role[name]][m]
            assert table_u.loc[(name, m), "t p-value"] == pytest.approx(1.0 if np.isnan(expected) else expected, rel=1e-10)
            assert table.loc[(name, m), "KTU"] == pytest.approx(np.mean(list(ref["ktu"][role[name]].values())), abs=1e-12)
        assert table.loc[("adv", m), "ER"] == pytest.approx(ref["er"][m], rel=1e-10)
        assert table.loc[("adv", m), "DeltaRI"] == pytest.approx(ref["dri"][m], rel=1e-10, abs=1e-12)
        assert np.isnan(table.loc[("base", m), "ER"])


def test_rankings_by_hand():
    assert kendall_tau_union(list("abcd"), list("abcd")) == 1.0
    assert kendall_tau_union(list("abcd"), list("dcba")) == -1.0
    # one adjacent swap among 4: (6 - 2*1) / 6
    assert kendall_tau_union(list("abcd"), list("abdc")) == pytest.approx(4 / 6)
    assert np.isnan(kendall_tau_union(["a"], ["a"]))
    # different lengths: cut to the shorter
    assert kendall_tau_union(list("abcd"), list("ab")) == 1.0
    # RBO by hand, p = 0.5, depth 3: A = (1, 1/2, 3/3) for "abc" vs "acb"... weights 1, .5, .25
    expected = (1 * 1 + 0.5 * 0.5 + 0.25 * 1) / 1.75
    assert rank_biased_overlap(list("abc"), list("acb"), p=0.5, depth=3) == pytest.approx(expected)
    assert rank_biased_overlap(list("abc"), list("xyz"), depth=3) == 0.0
    assert rank_biased_overlap(list("ab"), list("ab"), depth=4) < 1.0  # short rankings are penalised


def test_document_pairing_is_the_textbook_tau():
    """pairing="document": scipy's tau-b between the documents' ranks (missing ones tied last)."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(0)
    docs = np.array([f"d{i}" for i in range(12)])
    for _ in range(50):
        o = rng.permutation(docs)[:10]
        r = rng.permutation(docs)[:8]
        union = sorted(set(o) | set(r))
        rank_o = [list(o).index(d) if d in o else len(o) for d in union]
        rank_r = [list(r).index(d) if d in r else len(r) for d in union]
        expected = kendalltau(rank_o, rank_r).statistic
        assert kendall_tau_union(o, r, pairing="document") == pytest.approx(expected, abs=1e-12)
    # same documents: the textbook tau; rank by rank it can differ (one swap -> -1)
    assert kendall_tau_union(list("bca"), list("bac"), pairing="document") == pytest.approx(1 / 3)
    assert kendall_tau_union(list("bca"), list("bac")) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="'pairing' must be one of"):
        kendall_tau_union(list("ab"), list("ab"), pairing="rank")


@pytest.mark.parametrize("module", ["pyterrier_boot.reproduction.measures", "pyterrier_boot.reproduction.intervals",
                                    "pyterrier_boot.stats.equivalence"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_intervals_contain_estimates_and_replay(runs_and_files):
    original, reproduced, qrels, *_ = runs_and_files
    res = ptb.reproducibility(original, reproduced, qrels, ["AP", "nDCG@10"], baseline="base", margin=0.05,
                              n_resamples=500, rng=7)
    t = res.to_frame()
    for stat in ("KTU", "RBO", "RMSE"):
        assert (t[f"{stat} ci_low"] <= t[stat] + 1e-12).all() and (t[stat] <= t[f"{stat} ci_high"] + 1e-12).all()
    adv = t[t.name == "adv"]
    assert (adv["ER ci_low"] < adv["ER ci_high"]).all()
    again = ptb.reproducibility(original, reproduced, qrels, ["AP", "nDCG@10"], baseline="base", margin=0.05,
                                plan=res.plan)
    pd.testing.assert_frame_equal(again.table, res.table)
    # the KTU interval is bootstrap_ci's percentile interval of the per-topic values, on the same plan
    ktu = res.ordering[res.ordering.name == "adv"]["KTU"].to_numpy()
    ci = ptb.bootstrap_ci(ktu, method="percentile", plan=res.plan).confidence_interval
    assert adv["KTU ci_low"].iloc[0] == ci.low and adv["KTU ci_high"].iloc[0] == ci.high
    # the TOST columns are the paired TOST of reproduced against original
    per = res.per_topic[(res.per_topic.name == "adv") & (res.per_topic.measure == "AP")]
    tost = ptb.paired_tost(per.reproduced.to_numpy(), per.original.to_numpy(), margin=0.05)
    row = t[(t.name == "adv") & (t.measure == "AP")].iloc[0]
    assert row["TOST p-value"] == tost.pvalue and row["equivalent"] == tost.equivalent
    assert row["TOST ci_low"] == tost.confidence_interval.low
    assert "ReproducibilityResult" in repr(res) and "<table" in res._repr_html_()
    assert "<table" in res.html() and "TOST" in res.note()


def test_identical_runs_reproduce_exactly(runs_and_files):
    original, _, qrels, *_ = runs_and_files
    res = ptb.reproducibility(original, original, qrels, ["AP"], baseline="base", relative_margin=0.05,
                              n_resamples=200, rng=1)
    t = res.to_frame()
    assert (t["KTU"] == 1).all() and (t["RMSE"] == 0).all() and (t["t p-value"] == 1).all()
    assert t["equivalent"].all()
    assert t.loc[t.name == "adv", "ER"].iloc[0] == pytest.approx(1.0)
    assert t.loc[t.name == "adv", "DeltaRI"].iloc[0] == pytest.approx(0.0)


def test_topics_missing_from_a_run_are_left_out_with_one_warning(runs_and_files):
    original, reproduced, qrels, *_ = runs_and_files
    reproduced = dict(reproduced, adv=reproduced["adv"][reproduced["adv"].qid != "3"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = ptb.reproducibility(original, reproduced, qrels, ["AP"], n_resamples=100, rng=1)
    messages = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert len(messages) == 1 and messages[0].endswith(": 3")
    assert res.n_topics == len(TOPICS) - 1 and "3" not in res.qids


@pytest.mark.parametrize("kwargs,error,message", [
    ({"margin": 0}, ValueError, "'margin' must be a positive finite number"),
    ({"margin": -0.01}, ValueError, "'margin' must be a positive finite number"),
    ({"relative_margin": 0.0}, ValueError, "'relative_margin' must be a positive finite number"),
    ({"margin": 0.01, "relative_margin": 0.1}, ValueError, "give exactly one of 'margin'"),
    ({"baseline": "bm25"}, ValueError, "'baseline' 'bm25' is not one of the runs"),
    ({"alpha": 0.7}, ValueError, "'alpha' must be a number in"),
    ({"n_resamples": 1}, ValueError, "'n_resamples' must be an integer >= 2"),
    ({"plan": "x"}, TypeError, "'plan' must be a ResamplePlan"),
    ({"depth": 0}, ValueError, "'depth' must be a positive integer"),
    ({"rbo_p": 1.0}, ValueError, "'rbo_p' must be a number in"),
    ({"ktu_pairing": "rank"}, ValueError, "'ktu_pairing' must be one of"),
])
def test_bad_arguments(runs_and_files, kwargs, error, message):
    original, reproduced, qrels, *_ = runs_and_files
    with pytest.raises(error, match=message):
        ptb.reproducibility(original, reproduced, qrels, ["AP"], **kwargs)


def test_mismatched_run_names(runs_and_files):
    original, reproduced, qrels, *_ = runs_and_files
    renamed = {"base": reproduced["base"], "adv_repro": reproduced["adv"]}
    with pytest.raises(ValueError, match=r"only in 'original': \['adv'\], only in 'reproduced': \['adv_repro'\]"):
        ptb.reproducibility(original, renamed, qrels, ["AP"])


def test_no_common_topics(runs_and_files):
    original, reproduced, qrels, *_ = runs_and_files
    other = {k: v.assign(qid=v.qid + "x") for k, v in reproduced.items()}
    with pytest.raises(ValueError, match=r"run 'reproduced \w+' has no topic in the qrels: .* \(is it the right qrels "
                                         r"file\?\)"):
        ptb.reproducibility(original, other, qrels, ["AP"])
    topics = sorted(set(qrels["qid"]))
    first, second = set(topics[:len(topics) // 2]), set(topics[len(topics) // 2:])  # each run some judged topics
    halves = {k: v[v.qid.isin(first)] for k, v in original.items()}, {k: v[v.qid.isin(second)]
                                                                       for k, v in reproduced.items()}
    with pytest.raises(ValueError, match="no common topics"):
        ptb.reproducibility(*halves, qrels, ["AP"])


def test_plan_of_the_wrong_size(runs_and_files):
    original, reproduced, qrels, *_ = runs_and_files
    with pytest.raises(ValueError, match="'plan' resamples 3 topics, but 8 topics are used"):
        ptb.reproducibility(original, reproduced, qrels, ["AP"], plan=ptb.resample_plan(3, n_resamples=10, rng=1))


# ------------------------------------------------------------------ the command line


def test_cli_reproduce_writes_a_report(runs_and_files, capsys):
    _, _, _, o, r, tmp = runs_and_files
    out = tmp / "report"
    code = main(["reproduce", "--original", str(o["base"].parent), "--reproduced", str(r["base"].parent),
                 "--qrels", str(o["qrels"]), "--measures", "AP", "nDCG@10", "--baseline", "base", "--margin", "0.05",
                 "--n", "200", "--rng", "1", "--out", str(out), "--quiet"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "KTU" in printed.out and "adv" in printed.out
    table = pd.read_csv(out / "reproducibility.csv")
    assert list(table.columns[:4]) == ["name", "measure", "original", "reproduced"]
    assert set(table.name) == {"base", "adv"} and len(table) == 4
    assert (out / "per_topic.csv").exists() and (out / "ordering.csv").exists()
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "TOST" in page and "<img" not in page
    python = ptb.reproducibility({k: o[k] for k in ("base", "adv")}, {k: r[k] for k in ("base", "adv")}, o["qrels"],
                                 ["AP", "nDCG@10"], baseline="base", margin=0.05, n_resamples=200, rng=1)
    expected = python.table.astype({"equivalent": bool}).sort_values(["name", "measure"]).reset_index(drop=True)
    table = table.sort_values(["name", "measure"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(table, expected, check_dtype=False, atol=1e-12)


def test_cli_reproduce_mismatch_is_one_error_line(runs_and_files, tmp_path, capsys):
    _, reproduced, _, o, _, _ = runs_and_files
    other = write(tmp_path / "rep", {"base": reproduced["base"], "adv2": reproduced["adv"]})
    code = main(["reproduce", "--original", str(o["base"].parent), "--reproduced", str(other["base"].parent),
                 "--qrels", str(o["qrels"]), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("error: ") and "only in 'original': ['adv']" in err and "Traceback" not in err


def test_cli_reproduce_match_by_file_name(runs_and_files, tmp_path, capsys):
    """Reproduced files carry other run tags: matched by file name with --match file only."""
    _, reproduced, _, o, _, _ = runs_and_files
    folder = tmp_path / "rep"
    folder.mkdir()
    for name, frame in reproduced.items():
        (folder / f"{name}.txt").write_text("\n".join(_frame_lines(frame, f"{name}_repro")) + "\n")
    args = ["reproduce", "--original", str(o["base"].parent), "--reproduced", str(folder), "--qrels",
            str(o["qrels"]), "--measures", "AP", "--n", "50", "--rng", "1", "--out", str(tmp_path / "out"), "--quiet"]
    assert main(args) == 1
    assert "only in 'reproduced': ['adv_repro', 'base_repro']" in capsys.readouterr().err
    assert main(args + ["--match", "file"]) == 0
    out = capsys.readouterr().out
    assert "base.txt" in out and "adv.txt" in out and "KTU ci" in out


def test_cli_reproduce_csv_output(runs_and_files, tmp_path, capsys):
    _, _, _, o, r, _ = runs_and_files
    code = main(["reproduce", "--original", str(o["base"]), str(o["adv"]), "--reproduced", str(r["base"]),
                 str(r["adv"]), "--qrels", str(o["qrels"]), "--measures", "AP", "--relative-margin", "0.1",
                 "--ktu-pairing", "document", "--unpaired", "--n", "50", "--rng", "3", "--out", str(tmp_path / "out"),
                 "--format", "csv", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    import io

    printed = pd.read_csv(io.StringIO(out))
    written = pd.read_csv(tmp_path / "out" / "reproducibility.csv")
    pd.testing.assert_frame_equal(printed, written)
    assert np.allclose(printed["TOST margin"], 0.1 * printed["original"], rtol=1e-12)


def test_cli_reproduce_bad_margin(runs_and_files, tmp_path, capsys):
    _, _, _, o, r, _ = runs_and_files
    code = main(["reproduce", "--original", str(o["base"]), "--reproduced", str(r["base"]), "--qrels",
                 str(o["qrels"]), "--margin", "0", "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 2 and "--margin must be positive" in capsys.readouterr().err


# ------------------------------------------------------------------ real runs


@pytest.mark.filterwarnings(*REPRO_EVAL_NOISE)
def test_real_dl2020_runs_against_repro_eval(tmp_path):
    """Two TREC DL 2020 runs as originals; reproductions made by perturbing them (scores jittered,
    a few documents dropped), checked against repro-eval."""
    from conftest import shared_path

    folder = shared_path("trec-dl-2020-passage")
    pytest.importorskip("repro_eval", reason="repro-eval is not installed (pip install repro-eval)")
    rng = np.random.default_rng(2020)
    original, reproduced = {}, {}
    for name in ("p_bm25", "p_d2q_bm25"):
        path = folder / "runs" / f"input.{name}.gz"
        if not path.exists():
            pytest.skip(f"{path} not found")
        run = ptb.read_run(str(path)).groupby("qid", group_keys=False).head(100)
        original[name] = run
        jitter = run.assign(score=run.score + rng.normal(0, 0.3, len(run)))
        reproduced[name] = jitter[rng.random(len(run)) > 0.02]
    # repro-eval needs equal ranking lengths per topic for KTU: cut both to the shorter per topic
    for name in original:
        n = reproduced[name].groupby("qid").size()
        run = original[name]
        position = run.groupby("qid")["score"].rank(method="first", ascending=False)
        original[name] = run[position <= run["qid"].map(n).fillna(0)]
    qrels = folder / "qrels.dl20-passage.txt"
    o = write(tmp_path / "o", original)
    r = write(tmp_path / "r", reproduced)
    o["qrels"] = qrels
    ref = repro_eval_reference({"base": o["p_bm25"], "adv": o["p_d2q_bm25"], "qrels": qrels},
                               {"base": r["p_bm25"], "adv": r["p_d2q_bm25"]})
    res = ptb.reproducibility({k: o[k] for k in original}, {k: r[k] for k in reproduced}, qrels,
                              ["AP(rel=2)", "nDCG@10", "P(rel=2)@10"], baseline="p_bm25", margin=0.01,
                              n_resamples=500, rng=3)
    ordering = res.ordering.set_index(["name", "qid"])
    worst = 0.0
    for name, role in (("p_bm25", "baseline"), ("p_d2q_bm25", "advanced")):
        for q, value in ref["ktu"][role].items():
            if q in res.qids:
                worst = max(worst, abs(ordering.loc[(name, q), "KTU"] - value),
                            abs(ordering.loc[(name, q), "RBO"] - ref["rbo"][role][q]))
    assert worst < 1e-12
    table = res.table.set_index(["name", "measure"])
    assert table.loc[("p_d2q_bm25", "nDCG@10"), "ER"] == pytest.approx(ref["er"]["nDCG@10"], rel=1e-9)
    assert table.loc[("p_d2q_bm25", "nDCG@10"), "DeltaRI"] == pytest.approx(ref["dri"]["nDCG@10"], rel=1e-9, abs=1e-12)
    assert table.loc[("p_bm25", "nDCG@10"), "RMSE"] == pytest.approx(ref["rmse"]["baseline"]["nDCG@10"], rel=1e-9)


# ------------------------------------------------------------------ the docs page


def _page():
    from pathlib import Path

    return (Path(ptb.__file__).parent / "pt_docs" / "reproducibility.md").read_text()


def test_docs_page_mentions_every_public_function():
    page = _page()
    for name in ["reproducibility", "paired_tost", "unpaired_tost", "kendall_tau_union", "rank_biased_overlap",
                 "effect_ratio", "delta_relative_improvement"]:
        assert f"{name}(" in page, name


def test_docs_worked_example_prints_what_the_page_quotes():
    page = _page()
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    namespace = {}
    exec(code, namespace)
    table = namespace["res"].to_frame().set_index(["name", "measure"])
    row = table.loc[("rm3", "AP")]
    assert f"{row['t p-value']:.4f}" == "0.0053" and bool(row["equivalent"])
    assert f"{row['TOST ci_low']:.4f}" == "-0.0088" and f"{row['TOST ci_high']:.4f}" == "-0.0024"
    assert f"{table.loc[('neural', 'AP'), 'TOST ci_low']:.4f}" == "-0.0112"
    assert f"{table.loc[('rm3', 'AP'), 'ER']:.3f}" == "0.979" and f"{table.loc[('bm25', 'AP'), 'KTU']:.3f}" == "0.059"
    assert "-0.0088       -0.0024" in page


def test_docs_name_only_existing_reproduce_options():
    import re

    from pyterrier_boot.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions).choices["reproduce"]
    options = {o for a in sub._actions for o in a.option_strings}
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", _page()))
    assert mentioned and mentioned <= options, mentioned - options


@pytest.mark.slow
def test_paired_tost_size_at_the_margin():
    """With normal per-topic differences whose mean is exactly the margin, equivalence is declared
    at most alpha of the time (2,000 replications; binomial tolerance)."""
    from scipy import stats

    rng = np.random.default_rng(11)
    n, margin, reps = 60, 0.01, 2000
    hits = sum(ptb.paired_tost(x + margin + rng.normal(0, 0.04, n), x, margin=margin).equivalent
               for x in (rng.beta(0.6, 1.8, n) for _ in range(reps)))
    assert stats.binomtest(hits, reps, 0.05, alternative="greater").pvalue > 0.001, hits / reps
