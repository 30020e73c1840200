"""The leaderboard site and the HTML report in a real headless browser (Chromium driven by
Playwright): tables sort when a header is clicked, every image and SVG loads, and the page logs no
console error. Skipped, saying why, where Playwright or a Chromium executable is missing (CI
installs the system package ``chromium`` where it can)."""
import os
import shutil
import time

import pytest

import pyterrier_boot as ptb

pytestmark = pytest.mark.slow  # starting a browser and drawing the plots takes ~10 s


def _chromium():
    for candidate in (os.environ.get("PYTERRIER_BOOT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome",
                      "google-chrome-stable"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed "
                                   "(pip install playwright): no browser test")
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium executable found (apt-get install chromium, or set PYTERRIER_BOOT_CHROMIUM): "
                    "no browser test")
    with sync_api.sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=executable, headless=True,
                                                  args=["--no-sandbox", "--disable-gpu"])
        except Exception as error:  # a browser that cannot start here (no sandbox, missing libraries)
            pytest.skip(f"Chromium at {executable} does not start: {str(error).splitlines()[0]}")
        yield chromium
        chromium.close()


class _Page:
    """A browser tab on a local file, recording console errors and failed requests."""

    def __init__(self, browser, path):
        self.page = browser.new_page()
        self.errors = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed to load {r.url}"))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_load_state("load")

    def column(self, table, k):
        return self.page.eval_on_selector_all(f"{table} tbody tr td:nth-child({k})", "cells => cells.map(c => "
                                              "c.hasAttribute('data-sort') ? c.getAttribute('data-sort') : "
                                              "c.textContent)")

    def click_header(self, table, k):
        self.page.click(f"{table} thead th:nth-child({k})")

    def figures(self):
        """Every figure drawn on the page (inline SVG or image) with its drawn width."""
        return self.page.eval_on_selector_all(
            "svg:not(svg svg), img", "els => els.map(e => [e.tagName, e.tagName === 'IMG' ? (e.complete ? "
            "e.naturalWidth : 0) : e.getBoundingClientRect().width])")

    def images(self):
        return self.page.eval_on_selector_all("img", "images => images.map(i => [i.getAttribute('src').slice(0, 40), "
                                              "i.complete, i.naturalWidth])")


def _leading_number(text):
    import re

    return float(re.match(r"\s*([-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?)", text).group(1))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("matplotlib").use("Agg")
    sim = ptb.simulate_collection(n_topics=15, n_systems=12, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=9)
    board = ptb.leaderboard(sim.runs, sim.qrels, ["AP", "nDCG@10"], n_resamples=300, rng=1, baseline="S01")
    return board.write(tmp_path_factory.mktemp("site"), title="Browser test")


def test_leaderboard_index(browser, site):
    start = time.perf_counter()
    tab = _Page(browser, site / "index.html")
    runs = tab.column("#leaderboard", 2)
    assert len(runs) == 12
    # third column: "mean [low, high]" of AP; a click sorts by the mean, numerically, ascending
    tab.click_header("#leaderboard", 3)
    values = [_leading_number(v) for v in tab.column("#leaderboard", 3)]
    assert values == sorted(values)
    assert tab.page.get_attribute("#leaderboard thead th:nth-child(3)", "aria-sort") == "ascending"
    tab.click_header("#leaderboard", 3)
    assert [_leading_number(v) for v in tab.column("#leaderboard", 3)] == sorted(values, reverse=True)
    # the rank column sorts as numbers (10 after 9), not as text
    tab.click_header("#leaderboard", 1)
    assert [int(v) for v in tab.column("#leaderboard", 1)] == list(range(1, 13))
    # run names sort as text
    tab.click_header("#leaderboard", 2)
    assert tab.column("#leaderboard", 2) == sorted(runs, key=str.lower)
    images = tab.images()
    assert len(images) == 4 and all(done and width > 0 for _, done, width in images), images
    assert not tab.errors, tab.errors
    # a run page, reached by its link
    tab.page.click("#leaderboard tbody tr:first-child td:nth-child(2) a")
    tab.page.wait_for_load_state("load")
    assert tab.page.title().endswith(": Browser test")
    tab.click_header("#topics", 2)
    scores = [float(v) for v in tab.column("#topics", 2)]
    assert scores == sorted(scores) and len(scores) == 15
    assert not tab.errors, tab.errors
    print(f"browser checks of the leaderboard took {time.perf_counter() - start:.1f} s")


def test_report(browser, tmp_path):
    pytest.importorskip("matplotlib").use("Agg")
    sim = ptb.simulate_collection(n_topics=12, n_systems=3, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=3)
    result = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], n_resamples=200, rng=1)
    path = ptb.write_report(result, tmp_path / "report.html")
    tab = _Page(browser, path)
    figures = tab.figures()  # the report's figures are inline SVG (each with a PNG download link)
    assert len(figures) >= 2 and all(width > 0 for _, width in figures), figures
    # tables that offer sorting (class "sortable") sort on a click
    for k in range(tab.page.locator("table.sortable").count()):
        table = f"table.sortable >> nth={k}"
        headers = tab.page.locator(f"{table} thead th")
        if headers.count() < 2:
            continue
        headers.nth(1).click()
        assert tab.page.locator(f"{table} thead th").nth(1).get_attribute("aria-sort") == "ascending"
    assert not tab.errors, tab.errors


@pytest.mark.filterwarnings("ignore:the studentized interval:pyterrier_boot.DegenerateWarning")  # 12 small topics
def test_report_never_scrolls_sideways_at_1024_px(browser, tmp_path):
    """A summary of many measures is wider than a 1,024 px window: it scrolls in its own box and
    the page does not scroll sideways."""
    pytest.importorskip("matplotlib").use("Agg")
    sim = ptb.simulate_collection(n_topics=12, n_systems=4, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=3)
    measures = ["AP", "nDCG@10", "nDCG@20", "P@10", "P@20", "R@100", "RR", "Rprec"]
    result = ptb.experiment_result(sim.runs, None, sim.qrels, measures, n_resamples=200, rng=1, baseline=0)
    path = ptb.write_report(result, tmp_path / "report.html", settings={"qrels": "/data/" + "folder/" * 40})
    tab = _Page(browser, path)
    tab.page.set_viewport_size({"width": 1024, "height": 800})
    widths = tab.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth, "
                               "Math.max(...Array.from(document.querySelectorAll('.scroll'), "
                               "b => b.scrollWidth - b.clientWidth))]")
    page_width, window_width, widest_overflow = widths
    assert page_width <= window_width, widths
    assert widest_overflow > 0, widths  # the summary is wider than the window: its box scrolls


# how front ends show a notebook output: nbconvert's HTML has the outputs in the page as they are;
# JupyterLab sets the output's innerHTML, then re-creates each script in place to run it; the
# classic Notebook (jQuery) runs each script's text in an element appended to <head>
_INSERT = {
    "nbconvert": None,
    "jupyterlab": """(html) => { const host = document.createElement("div"); document.body.appendChild(host);
        host.innerHTML = html; host.querySelectorAll("script").forEach(old => {
        const s = document.createElement("script"); s.textContent = old.textContent; old.replaceWith(s); }); }""",
    "classic": """(html) => { const host = document.createElement("div"); document.body.appendChild(host);
        host.innerHTML = html; host.querySelectorAll("script").forEach(old => {
        const s = document.createElement("script"); s.textContent = old.textContent;
        document.head.appendChild(s); s.remove(); }); }""",
}


@pytest.mark.parametrize("front_end", list(_INSERT))
def test_notebook_leaderboard_sorts(browser, tmp_path, front_end):
    sim = ptb.simulate_collection(n_topics=15, n_systems=12, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=9)
    board = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=200, rng=1)
    outputs = [board._repr_html_(), board._repr_html_()]  # two cells showing the board
    path = tmp_path / "notebook.html"
    if _INSERT[front_end] is None:
        path.write_text("<!DOCTYPE html><html><body>" + "".join(f"<div>{o}</div>" for o in outputs)
                        + "</body></html>", encoding="utf-8")
    else:
        path.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    tab = _Page(browser, path)
    if _INSERT[front_end] is not None:
        for output in outputs:
            tab.page.evaluate(_INSERT[front_end], output)

    def columns(k):  # the k-th column (from 0) of each table, as shown
        return tab.page.eval_on_selector_all("table.sortable", f"ts => ts.map(t => Array.from(t.tBodies[0].rows, "
                                             f"r => r.cells[{k}].textContent))")

    assert columns(1) == [board.order, board.order]
    tab.page.locator("table.sortable >> nth=1").locator("thead th").nth(1).click()  # the second output by run
    assert columns(1) == [board.order, sorted(board.order, key=str.lower)]  # each output sorts on its own
    tab.page.locator("table.sortable >> nth=0").locator("thead th").nth(2).click()  # the first by mean AP
    numbers = [_leading_number(v) for v in columns(2)[0]]
    assert numbers == sorted(numbers)
    assert not tab.errors, tab.errors
