"""The HTML report is one self-contained, well-formed page with embedded images, and its summary
table says what an independent computation (numpy, scipy, statsmodels) says."""
import base64
import html.parser

import numpy as np
import pytest
import scipy.stats
import statsmodels.stats.multitest as multitest

import pyterrier_boot as ptb
from pyterrier_boot.report import html_report, summary_table, write_report

MEASURES = ["AP", "nDCG@10"]
VOID = {"meta", "img", "br", "hr", "input", "link", "col"}


class _Page(html.parser.HTMLParser):
    """Collects tags, figures, links and scripts, and checks that every element is closed."""

    def __init__(self):
        super().__init__()
        self.stack, self.images, self.links, self.tags, self.errors, self.scripts = [], [], [], [], [], []
        self.svgs, self.in_script = [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "img":
            self.images.append(attrs)
        if tag == "svg":
            self.svgs.append(attrs)
        if tag == "script":
            self.scripts.append(attrs)
            self.in_script = True
        for key in ("href", "src"):
            if key in attrs and tag != "img":
                self.links.append(attrs[key])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        self.in_script = self.in_script and tag != "script"
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()


def _parse(page):
    parser = _Page()
    parser.feed(page)
    parser.close()
    assert not parser.errors, parser.errors[:3]
    assert not parser.stack, f"unclosed elements: {parser.stack}"
    return parser


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=12, n_systems=4, depth=100, pool_depth=20, corpus_size=5000,
                                   matching=400, rng=5)


@pytest.fixture(scope="module")
def topic_result(sim):
    return ptb.experiment_result(sim.runs, None, sim.qrels, MEASURES, bootstrap="topic", n_resamples=300, rng=2)


@pytest.fixture(scope="module")
def corpus_result(sim):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    return ptb.experiment_result(sim.runs, None, qrels, MEASURES, bootstrap="corpus", n_resamples=40, rng=2)


def test_report_is_self_contained_html_with_svg_and_png_figures(topic_result, corpus_result):
    pytest.importorskip("matplotlib").use("Agg")
    page = html_report({"topic": topic_result, "corpus": corpus_result}, title="A <test> & report",
                       settings={"seed": 2})
    parsed = _parse(page)
    assert page.startswith("<!DOCTYPE html>")
    assert "A &lt;test&gt; &amp; report" in page  # escaped
    # self-contained: the only script is the inline one that sorts tables (no src), there is no
    # stylesheet link, and the only links are the figures' own PNGs as data: URIs (downloads,
    # nothing fetched)
    assert parsed.scripts == [{}] and "table.sortable" in page
    assert "link" not in parsed.tags and not parsed.images
    # per section: means, pairwise matrix, rank intervals, rank boxes and per-topic differences for
    # 2 measures; the corpus section adds Fig. 2 for 2 measures and Fig. 6
    assert len(parsed.svgs) == 10 + 13
    assert len(parsed.links) == len(parsed.svgs)
    for link in parsed.links:
        prefix = "data:image/png;base64,"
        assert link.startswith(prefix)
        assert base64.b64decode(link[len(prefix):])[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(svg.get("aria-label") for svg in parsed.svgs)
    assert parsed.tags.count("h2") == 2  # one section per result
    assert "p-value against difference over corpus images" in page
    assert page.count('class="sortable"') >= 4  # summaries and comparison tables sort


def test_report_without_plots_has_tables_only(topic_result):
    page = html_report(topic_result, plots=False)
    parsed = _parse(page)
    assert not parsed.images
    assert parsed.tags.count("table") >= 3  # summary, comparisons, full table


class _Boxes(html.parser.HTMLParser):
    """Per ``<table>``: whether it sits inside a ``<div class="scroll">`` (a horizontal scroll box)."""

    def __init__(self):
        super().__init__()
        self.open, self.tables = [], []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append(any(t == "div" and "scroll" in (c or "").split() for t, c in self.open))
        if tag not in VOID:
            self.open.append((tag, dict(attrs).get("class")))

    def handle_endtag(self, tag):
        self.open.pop()


def test_every_report_table_scrolls_in_its_own_box(topic_result):
    """A wide table scrolls inside its box, so the page itself never scrolls sideways (the summary
    of many measures is wider than the page)."""
    page = html_report(topic_result, plots=False, settings={"qrels": "/a/" + "long-folder-name/" * 20})
    boxes = _Boxes()
    boxes.feed(page)
    assert len(boxes.tables) >= 4 and all(boxes.tables), boxes.tables  # settings, summary, comparisons, full
    style = page[page.index("<style>"):page.index("</style>")]
    assert ".scroll { overflow-x: auto; max-width: 100%; }" in style
    assert "overflow-wrap: anywhere" in style  # a long path in the settings wraps instead of widening the page


def test_write_report_creates_folders_and_refuses_unwritable(topic_result, tmp_path):
    path = write_report(topic_result, tmp_path / "a" / "b" / "report.html", plots=False)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="cannot write the report"):
        write_report(topic_result, blocker / "report.html", plots=False)


def test_summary_cells_are_means_and_intervals(topic_result):
    table = summary_table(topic_result, digits=4)
    means = topic_result.values.mean(axis=1)  # [system, measure]
    order = np.argsort(-means[:, 0], kind="stable")
    assert list(table["name"]) == [topic_result.names[s] for s in order]
    for row, s in enumerate(order):
        for j, m in enumerate(MEASURES):
            low, high = topic_result.intervals[s, j]
            assert table.loc[row, m] == f"{means[s, j]:.4f} [{low:.4f}, {high:.4f}]"


def test_summary_counts_significant_pairs_like_scipy_holm(topic_result):
    pairwise = topic_result.pairwise(test="t", correction="holm")
    table = summary_table(topic_result, pairwise=pairwise, alpha=0.05).set_index("name")
    for j, m in enumerate(MEASURES):
        x = topic_result.values[:, :, j]
        S = len(topic_result.names)
        pairs = [(a, b) for a in range(S) for b in range(a + 1, S)]
        p = [scipy.stats.ttest_rel(x[a], x[b]).pvalue for a, b in pairs]
        reject = multitest.multipletests(p, alpha=0.05, method="holm")[0]
        better, worse = np.zeros(S, int), np.zeros(S, int)
        for (a, b), r in zip(pairs, reject, strict=True):
            if r:
                win, lose = (a, b) if x[a].mean() > x[b].mean() else (b, a)
                better[win] += 1
                worse[lose] += 1
        for s, name in enumerate(topic_result.names):
            assert table.loc[name, f"{m} >/<"] == f"{better[s]} / {worse[s]}"


def test_summary_with_baseline(sim):
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap="topic", n_resamples=200, rng=1,
                         baseline="S1", correction="bonferroni")
    table = summary_table(res, alpha=0.05).set_index("name")
    assert table.loc["S1", "AP vs S1"] == "baseline"
    x = res.values[:, :, 0]
    p = [scipy.stats.ttest_rel(x[s], x[0]).pvalue for s in (1, 2, 3)]
    corrected = np.minimum(np.array(p) * 3, 1)
    for s, pc in zip((1, 2, 3), corrected, strict=True):
        cell = table.loc[res.names[s], "AP vs S1"]
        diff = x[s].mean() - x[0].mean()
        assert cell.startswith(f"{diff:+.3f} p")
        assert cell.endswith("*") == (pc < 0.05)
        if pc >= 0.001:
            assert f"p={pc:.3f}" in cell


@pytest.fixture(scope="module")
def many():
    sim = ptb.simulate_collection(n_topics=10, n_systems=17, depth=50, pool_depth=10, corpus_size=3000,
                                  matching=200, rng=7)
    return ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap="topic", n_resamples=200, rng=1)


def test_many_systems_get_letters_and_rank_intervals_not_matrices(many):
    pytest.importorskip("matplotlib").use("Agg")
    from pyterrier_boot.report import MATRIX_LIMIT

    assert len(many.names) > MATRIX_LIMIT
    page = html_report(many, title="many")
    parsed = _parse(page)
    assert "pairwise difference matrix" not in page and "rank boxplots" not in page
    labels = [svg["aria-label"] for svg in parsed.svgs]
    assert labels == ["forest plot of mean AP", "rank intervals for AP",
                      f"per-topic differences in AP from {many.names[int(np.argmax(many.means[:, 0]))]}"]
    # the summary has rank intervals and the letter groups of the all-pairs tests
    pairwise = many.pairwise(test="t", correction="holm", alpha=0.05)
    table = summary_table(many, pairwise=pairwise, ranks=True, letters=True).set_index("name")
    ranks = many.ranks().set_index("name")
    for name in many.names:
        assert table.loc[name, "AP rank"] == (f"{ranks.loc[name, 'rank']:.0f} [{ranks.loc[name, 'ci_low']:.0f}, "
                                              f"{ranks.loc[name, 'ci_high']:.0f}]")
    groups = ptb.compact_letter_display(pairwise, measure="AP")
    assert table["AP group"].to_dict() == groups.to_dict()
    for name in many.names[:3]:
        assert f"<td>{table.loc[name, 'AP rank']}</td><td class=\"text\">{groups[name]}</td>" in page


def test_report_with_a_baseline_draws_differences_and_per_topic_panels(sim):
    pytest.importorskip("matplotlib").use("Agg")
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap="topic", n_resamples=200, rng=1,
                                baseline="S2")
    page = html_report(res)
    parsed = _parse(page)
    labels = [svg["aria-label"] for svg in parsed.svgs]
    assert "differences from the baseline in AP" in labels and "per-topic differences in AP from S2" in labels
    assert "Per-topic differences from S2</h3>" in page and "(the baseline)" in page
    other = html_report(res, baseline="S3", plots=True)
    assert "per-topic differences in AP from S3" in other
    with pytest.raises(ValueError, match="'baseline' 'nope'"):
        html_report(res, baseline="nope")
