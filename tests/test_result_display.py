"""The rich display of an ExperimentResult (HTML, LaTeX, Markdown, dict) shows what independent
computations say (numpy means, scipy t-tests with statsmodels' Holm), and save/load round-trips
every figure and what produced it."""
import html.parser
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import statsmodels.stats.multitest as multitest

import pyterrier_boot as ptb
from pyterrier_boot.experiment.storage import package_versions

MEASURES = ["AP", "nDCG@10"]


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=20, n_systems=5, depth=100, pool_depth=20, corpus_size=5000,
                                   matching=400, rng=11)


@pytest.fixture(scope="module")
def plain(sim):
    return ptb.experiment_result(sim.runs, None, sim.qrels, MEASURES, bootstrap="topic", n_resamples=300, rng=4)


@pytest.fixture(scope="module")
def based(sim):
    return ptb.experiment_result(sim.runs, None, sim.qrels, MEASURES, bootstrap="topic", n_resamples=300, rng=4,
                                 baseline=["S1", "S2"], correction="holm")


@pytest.fixture(scope="module")
def corpus(sim):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    return ptb.experiment_result(sim.runs, None, qrels, ["AP"], bootstrap="corpus", n_resamples=40, rng=4,
                                 baseline="S1")


def _x(result, j):
    """systems x topics from the long per-query table (not the result's array)."""
    frame = result.per_query()
    frame = frame[frame["measure"] == result.measures[j]]
    return frame.pivot(index="name", columns="qid", values="value").loc[list(result.names)].to_numpy()


def _holm_rejects(x, pairs, alpha=0.05):
    p = [scipy.stats.ttest_rel(x[a], x[b]).pvalue for a, b in pairs]
    return multitest.multipletests(p, alpha=alpha, method="holm")[0]


# ---------------------------------------------------------------- cells, bold, marks, letters


def test_cells_are_means_and_intervals_with_the_best_bold(plain):
    table = plain.display()
    frame = table.to_frame()
    for j, m in enumerate(MEASURES):
        means = _x(plain, j).mean(axis=1)
        for s in range(len(plain.names)):
            low, high = plain.intervals[s, j]
            assert frame.loc[s, m].startswith(f"{means[s]:.3f} [{low:.3f}, {high:.3f}]")
        assert table.best[:, j].tolist() == (means == means.max()).tolist()
    markdown = plain.to_markdown(letters=False)
    best = int(np.argmax(_x(plain, 0).mean(axis=1)))
    assert f"**{_x(plain, 0).mean(axis=1)[best]:.3f}**" in markdown.splitlines()[2 + best]
    assert len([line for line in markdown.splitlines() if line.startswith("| ")]) == 1 + len(plain.names)
    assert plain.display(digits=2).to_frame().loc[0, "AP"].startswith(f"{_x(plain, 0)[0].mean():.2f} [")


def test_letters_share_exactly_when_holm_t_tests_do_not_reject(plain):
    table = plain.display()  # no baseline, 5 systems: letters by default
    assert table.letters is not None
    S = len(plain.names)
    pairs = [(a, b) for a in range(S) for b in range(a + 1, S)]
    for j in range(len(MEASURES)):
        reject = _holm_rejects(_x(plain, j), pairs)
        for (a, b), r in zip(pairs, reject, strict=True):
            share = bool(set(table.letters[a, j]) & set(table.letters[b, j]))
            assert share == (not r), (plain.names[a], plain.names[b])
    assert "holm-corrected" in table.caption and "paired t-test" in table.caption and "variance: topics" in table.caption
    assert plain.display(letters=False).letters is None


def test_marks_against_each_baseline_match_scipy_holm(based):
    table = based.display()
    assert table.letters is None  # baselines: marks, not letters
    S = len(based.names)
    for j in range(len(MEASURES)):
        x = _x(based, j)
        # the experiment corrects each measure's family: every (system, baseline) row together
        rows = [(s, b) for b in (0, 1) for s in range(S) if s != b]
        reject = _holm_rejects(x, rows)
        expected = np.full((S,), "", dtype=object)
        for (s, b), r in zip(rows, reject, strict=True):
            if r:
                expected[s] += "†" if b == 0 else "‡"
        assert table.marks[:, j].tolist() == expected.tolist()
    assert "†: significantly different from S1" in table.caption and "‡: significantly different from S2" in table.caption
    assert table.to_frame()["name"].tolist()[:2] == ["S1 (baseline)", "S2 (baseline)"]


def test_latex_is_booktabs_with_the_same_marks(based):
    latex = based.to_latex(caption="My runs", label="tab:x")
    assert r"\toprule" in latex and r"\midrule" in latex and r"\bottomrule" in latex
    assert r"\caption{My runs Cells: mean [95\% topic-bootstrap" in latex and r"\label{tab:x}" in latex
    table = based.display()
    rows = [line for line in latex.splitlines() if line.endswith(r"\\")][1:]
    for s, row in enumerate(rows):
        for j, cell in enumerate(row[:-2].split(" & ")[1:]):
            assert cell.startswith(r"\textbf{") == bool(table.best[s, j])
            assert (r"\dagger" in cell.replace(r"\ddagger", "")) == ("†" in table.marks[s, j])
            assert (r"\ddagger" in cell) == ("‡" in table.marks[s, j])
    assert based._repr_latex_().startswith(r"\begin{tabular}")


def test_latex_escapes_names(sim):
    runs = {f"run_{k}&#": run for k, run in enumerate(sim.runs.values())}
    res = ptb.experiment_result(runs, None, sim.qrels, ["AP"], bootstrap=None)
    latex = res.to_latex(letters=False)
    assert r"run\_0\&\#" in latex and "run_0" not in latex


class _Html(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bold, self.sups, self.caption, self.stack = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack.pop() == tag

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "b":
            self.bold.append(data)
        if self.stack and self.stack[-1] == "sup":
            self.sups.append(data)
        if "caption" in self.stack:
            self.caption.append(data)


def test_html_shows_bold_best_letters_and_caption(plain):
    parser = _Html()
    parser.feed(plain._repr_html_())
    assert not parser.stack
    means = plain.means
    assert sorted(parser.bold) == sorted(f"{v:.3f}" for v in means.max(axis=0))
    table = plain.display()
    assert parser.sups == [table.letters[s, j] for s in range(len(plain.names)) for j in range(len(MEASURES))]
    assert "systems sharing a letter are not significantly different" in "".join(parser.caption)


class _Rows(html.parser.HTMLParser):
    """The body rows of an HTML table as text cells, with whether each cell holds bold text."""

    def __init__(self):
        super().__init__()
        self.rows, self.bold, self.caption, self.where = [], [], "", None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
            self.bold.append([])
        elif tag == "td":
            self.rows[-1].append("")
            self.bold[-1].append(False)
        elif tag == "b" and self.where == "td":
            self.bold[-1][-1] = True
        if tag in ("td", "th", "caption"):
            self.where = tag

    def handle_endtag(self, tag):
        if tag in ("td", "th", "caption"):
            self.where = None

    def handle_data(self, data):
        if self.where == "td":
            self.rows[-1][-1] += data
        elif self.where == "caption":
            self.caption += data


def test_pairwise_is_the_compare_frame_and_shows_readable(plain):
    """``pairwise()`` is still a DataFrame with compare's columns and exact values (what is derived
    from it is a plain DataFrame); a notebook shows it rounded, p-values formatted, and the pairs
    that scipy's t-test with statsmodels' Holm rejects bold with their verdict."""
    table = plain.pairwise()
    scores = {m: pd.DataFrame(plain.values[:, :, j].T, columns=list(plain.names)) for j, m in enumerate(MEASURES)}
    expected = ptb.compare(scores, test="t", correction="holm")
    assert isinstance(table, pd.DataFrame) and table.attrs == expected.attrs
    pd.testing.assert_frame_equal(pd.DataFrame(table), expected, check_exact=True)
    assert type(table.head()) is pd.DataFrame and type(table[table["reject"]]) is pd.DataFrame
    assert table.to_html() == expected.to_html()  # pandas' own to_html is untouched
    parsed = _Rows()
    parsed.feed(table._repr_html_())
    rows = [r for r in parsed.rows if r]
    bold = [b for b, r in zip(parsed.bold, parsed.rows, strict=True) if r]
    assert len(rows) == len(table)
    S = len(plain.names)
    pairs = [(a, b) for a in range(S) for b in range(a + 1, S)]
    for j, m in enumerate(MEASURES):
        x = _x(plain, j)
        p = [scipy.stats.ttest_rel(x[a], x[b]).pvalue for a, b in pairs]
        reject, corrected = multitest.multipletests(p, alpha=0.05, method="holm")[:2]
        for k, (a, b) in enumerate(pairs):
            i = j * len(pairs) + k
            cells = rows[i]
            assert cells[:3] == [m, plain.names[a], plain.names[b]]
            d = x[a].mean() - x[b].mean()
            low, high = table["ci_low"].iloc[i], table["ci_high"].iloc[i]
            assert cells[5] == f"{d:.3f} [{low:.3f}, {high:.3f}]"
            assert cells[6] == ("<0.001" if p[k] < 0.001 else f"{p[k]:.3f}")
            assert cells[7] == ("<0.001" if corrected[k] < 0.001 else f"{corrected[k]:.3f}")
            higher, lower = (plain.names[a], plain.names[b]) if d >= 0 else (plain.names[b], plain.names[a])
            assert cells[-1] == (f"{higher} > {lower}" if reject[k] else "not significant")
            assert bold[i][5] == bold[i][-1] == bool(reject[k])
    assert 0 < sum(b[-1] for b in bold) < len(rows)  # both verdicts shown
    assert not any("e-" in c for r in rows for c in r)  # no scientific notation
    assert "paired t-test, holm-corrected per measure, α = 0.05" in parsed.caption
    assert "[95% interval]" in parsed.caption
    with pytest.raises(ValueError, match="'digits'"):
        table.readable_html(digits=-1)
    with pytest.raises(ValueError, match="'max_rows'"):
        table.readable_html(max_rows=0)
    parsed = _Rows()  # a long table shows its first rows and says so
    parsed.feed(table.readable_html(max_rows=3))
    assert [r[:3] for r in parsed.rows if r] == [r[:3] for r in rows[:3]]
    assert parsed.caption.startswith(f"The first 3 of {len(table)} pairs.")


def test_an_empty_pairwise_table_shows_with_unlimited_rows(plain):
    empty = plain.pairwise().iloc[:0]
    table = type(plain.pairwise()).of(empty)
    with pd.option_context("display.max_rows", None):
        parsed = _Rows()
        parsed.feed(table.readable_html())
    assert not [r for r in parsed.rows[1:] if r]


def test_pairwise_of_a_corpus_result_shows_its_replicate_test(corpus):
    table = corpus.pairwise()
    assert isinstance(table, pd.DataFrame) and "corpus p-value" in table
    parsed = _Rows()
    parsed.feed(table._repr_html_())
    assert len([r for r in parsed.rows if r]) == len(table)
    assert "corpus-bootstrap replicate test" in parsed.caption


def test_display_rejects_bad_arguments(plain):
    with pytest.raises(ValueError, match="'digits'"):
        plain.display(digits=-1)
    with pytest.raises(ValueError, match="'letters'"):
        plain.display(letters="yes")


def test_to_dict_is_json_with_every_summary_figure(based):
    d = based.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    for s, name in enumerate(based.names):
        for j, m in enumerate(MEASURES):
            cell = back["systems"][name][m]
            assert cell["mean"] == based.means[s, j]
            assert [cell["ci_low"], cell["ci_high"]] == based.intervals[s, j].tolist()
            assert list(cell["per_topic"].values()) == based.values[s, :, j].tolist()
    assert len(back["comparisons"]) == len(based.comparisons.frame)
    assert back["provenance"]["correction"] == "holm" and back["n_replicates"] == 300
    from dataclasses import replace

    undefined = replace(based, intervals=np.full_like(based.intervals, np.nan)).to_dict()
    assert undefined["systems"]["S1"]["AP"]["ci_low"] is None  # NaN is null in JSON


# ---------------------------------------------------------------- provenance, save and load


def test_provenance_records_what_produced_the_result(based, sim):
    p = based.provenance
    assert p["test"] == "t" and p["correction"] == "holm" and p["correction_alpha"] == 0.05
    assert p["baselines"] == ["S1", "S2"] and p["n_resamples"] == 300 and p["rng"] == {"seed": 4}
    assert p["versions"] == package_versions() and p["versions"]["numpy"] == np.__version__
    assert p["versions"]["pandas"] == pd.__version__ and p["versions"]["pyterrier_boot"] == ptb.__version__
    # a Generator: its seed sequence and state before the experiment, which replay the same intervals
    rng = np.random.default_rng(99)
    rng.spawn(3)  # a generator that has already spawned streams
    rng.random(5)
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap="topic", n_resamples=100, rng=rng)
    seq = res.provenance["rng"]["seed_sequence"]
    replay = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        seq["entropy"], spawn_key=seq["spawn_key"], n_children_spawned=seq["n_children_spawned"])))
    replay.bit_generator.state = res.provenance["rng"]["state"]
    again = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap="topic", n_resamples=100, rng=replay)
    assert np.array_equal(res.intervals, again.intervals)


def _assert_same(a, b):
    for field in ("names", "qids", "measures", "summed", "bootstrap", "interval", "confidence_level", "mrt", "round",
                  "topics", "provenance"):
        assert getattr(a, field) == getattr(b, field), field
    for field in ("values", "intervals", "distribution_"):
        x, y = getattr(a, field), getattr(b, field)
        assert (x is None) == (y is None), field
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), field
    assert (a.plan is None) == (b.plan is None)
    if a.plan is not None:
        assert type(a.plan) is type(b.plan) and np.array_equal(a.plan.indices, b.plan.indices)
    if a.comparisons is not None:
        ca, cb = a.comparisons, b.comparisons
        pd.testing.assert_frame_equal(ca.frame, cb.frame)
        assert ca.names == cb.names and ca.measures == cb.measures and ca.correction == cb.correction
        for field in ("system_index", "baseline_index", "intervals", "distribution"):
            x, y = getattr(ca, field), getattr(cb, field)
            assert (x is None) == (y is None) and (x is None or np.array_equal(x, y, equal_nan=True)), field
    else:
        assert b.comparisons is None
    if a.corpus is not None:
        from dataclasses import fields

        for f in fields(a.corpus):
            x, y = getattr(a.corpus, f.name), getattr(b.corpus, f.name)
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f.name
            else:
                assert x == y, f.name
    else:
        assert b.corpus is None
    pd.testing.assert_frame_equal(a.table(), b.table())
    pd.testing.assert_frame_equal(a.per_query(), b.per_query())


@pytest.mark.parametrize("which", ["plain", "based", "corpus"])
def test_save_load_round_trips_every_figure(which, request, tmp_path):
    res = request.getfixturevalue(which)
    path = res.save(tmp_path / "sub" / "result.zip")
    back = ptb.ExperimentResult.load(path)
    _assert_same(res, back)
    _assert_same(res, ptb.load_result(str(path)))
    assert back.display(letters=False).to_markdown() == res.display(letters=False).to_markdown()
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        assert "result.json" in names and "table.csv" in names and "perquery.csv" in names
        assert not [n for n in names if n.endswith((".pkl", ".pickle"))]
        doc = json.loads(archive.read("result.json"))
    assert doc["format"] == "pyterrier-boot-result" and doc["result"]["provenance"]["rng"] == {"seed": 4}


@pytest.mark.filterwarnings("ignore:all paired differences are 0")
def test_a_result_without_bootstrap_round_trips(sim, tmp_path):
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP", "NumRet"], bootstrap=None, baseline=0, rng=1)
    _assert_same(res, ptb.load_result(res.save(tmp_path / "r.zip")))


def test_a_version_1_corpus_result_loads_without_the_counts(corpus, tmp_path):
    """Files written before the corpus result kept ``found`` load; the default L-MAP interval (which
    needs the counts) then says what to do, and the other intervals work."""
    path = corpus.save(tmp_path / "new.zip")
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(old, "w") as dst:
        for name in src.namelist():
            if name == "result.json":
                doc = json.loads(src.read(name))
                assert doc["version"] == 3
                doc["version"] = 1
                del doc["corpus"]["found"]
                dst.writestr(name, json.dumps(doc))
            elif "found" not in name:
                dst.writestr(name, src.read(name))
    back = ptb.load_result(old).corpus
    assert back.found is None
    with pytest.raises(ValueError, match="rerun CorpusBootstrap.evaluate, or pass method='normal'"):
        back.per_system(statistic="logit_mean")
    pd.testing.assert_frame_equal(back.per_system(statistic="logit_mean", method="normal"),
                                  corpus.corpus.per_system(statistic="logit_mean", method="normal"))


def test_load_refuses_what_is_not_a_saved_result(tmp_path):
    with pytest.raises(ValueError, match="no file"):
        ptb.load_result(tmp_path / "missing.zip")
    (tmp_path / "text.zip").write_text("hello")
    with pytest.raises(ValueError, match="not a saved result"):
        ptb.load_result(tmp_path / "text.zip")
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("result.json", json.dumps({"format": "something else", "version": 1}))
    with pytest.raises(ValueError, match="not a saved pyterrier-boot result"):
        ptb.load_result(tmp_path / "other.zip")
    with zipfile.ZipFile(tmp_path / "newer.zip", "w") as archive:
        archive.writestr("result.json", json.dumps({"format": "pyterrier-boot-result", "version": 99}))
    with pytest.raises(ValueError, match="newer"):
        ptb.load_result(tmp_path / "newer.zip")
    with pytest.raises(TypeError, match="'result'"):
        from pyterrier_boot.experiment.storage import save_result

        save_result("not a result", tmp_path / "x.zip")


# ---------------------------------------------------------------- corpus and topic result objects


def test_corpus_and_interval_results_show_mean_and_interval_cells(sim):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    boot = ptb.CorpusBootstrap(qrels, n_images=40, corpus_size=sim.corpus_size, rng=1).evaluate(sim.runs, ["AP"])
    page = boot._repr_html_()
    frame = boot.per_system()
    best = frame["AP"].idxmax()
    for i, row in frame.iterrows():
        mean = f"{row['AP']:.3f}"
        cell = f"{'<b>' + mean + '</b>' if i == best else mean} [{row['AP ci_low']:.3f}, {row['AP ci_high']:.3f}]"
        assert cell in page
    assert "variance: corpus (documents)" in page and "40 poisson images" in page
    x = np.random.default_rng(0).random((3, 20))
    ci = ptb.bootstrap_ci(x, method="percentile", n_resamples=500, rng=1)
    page = ci._repr_html_()
    for s in range(3):
        assert f"[{ci.confidence_interval.low[s]:.3f}, {ci.confidence_interval.high[s]:.3f}]" in page
    assert "95% percentile interval; variance: topics" in page


@pytest.mark.filterwarnings("ignore:all paired differences are 0")
def test_sums_show_whole_counts_and_one_system_has_no_bold(sim):
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP", "NumRet"], bootstrap=None)
    counts = res.values[:, :, 1].sum(axis=1)
    frame = res.display(letters=False).to_frame()
    assert frame["NumRet"].tolist() == [f"{c:.0f}" for c in counts]
    one = ptb.experiment_result({"S1": sim.runs["S1"]}, None, sim.qrels, ["AP"], n_resamples=200)
    table = one.display()
    assert not table.best.any() and "Bold" not in table.caption and table.letters is None
