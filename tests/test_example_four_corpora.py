"""examples/seeds_and_collections.py: its readers of the four small collections, its message when
they are absent, and (slow) the whole run, whose printed figures must be those
pt_docs/example_four_corpora.md shows and quotes."""
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, shared_path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "seeds_and_collections.py"
PAGE = ROOT / "pyterrier_boot" / "pt_docs" / "example_four_corpora.md"
NUMBER = re.compile(r"-?\d+\.\d+|-?\d+")
#: the page shows the figures to 3 decimals; another platform's LightGBM may move the last one
TOLERANCE = 0.0015


@pytest.fixture(scope="module")
def example():
    """The script's functions (its ``__main__`` block does not run)."""
    return runpy.run_path(str(SCRIPT), run_name="example")


def _run(*args, cwd, env=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "MPLBACKEND": "Agg", **(env or {})}
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)


@pytest.mark.integration
@pytest.mark.parametrize(("name", "n_docs", "n_topics", "labels"), [
    ("vaswani", 11429, 93, {1}), ("cranfield", 1400, 225, {0, 1, 2, 3, 4}), ("cacm", 3204, 52, {1}),
    ("cisi", 1460, 76, {1})])
def test_readers(example, name, n_docs, n_topics, labels):
    """The collections' documented sizes; only judged topics with a relevant document are kept, and
    every judged document is in the corpus."""
    docs, topics, qrels = example["read_collection"](shared_path(), name)
    assert len(docs) == n_docs and docs["docno"].is_unique
    assert len(topics) == n_topics and topics["qid"].is_unique and (topics["query"].str.len() > 0).all()
    assert set(qrels["label"]) == labels
    assert set(qrels["qid"]) == set(topics["qid"]) and set(qrels["docno"]) <= set(docs["docno"])


@pytest.mark.integration
def test_cranfield_gain_and_numbering(example):
    """Cranfield's queries are numbered by position (the ``.I`` numbers have gaps) and its codes
    turned into gains ``5 - code``, ``-1`` not relevant."""
    _, topics, qrels = example["read_collection"](shared_path(), "cranfield")
    assert topics["qid"].tolist()[:3] == ["1", "2", "3"]
    assert topics.set_index("qid").loc["3", "query"].startswith("what problems of heat conduction in composite slabs")
    codes = (DATA / "cranfield" / "cranqrel").read_text().split("\n")[0].split()  # "1 184 2": code 2
    assert qrels.set_index(["qid", "docno"]).loc[(codes[0], codes[1]), "label"] == 5 - int(codes[2])


def test_absent_data_is_one_clear_line(tmp_path):
    done = _run(tmp_path / "nowhere", "--out", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"the collections vaswani, cranfield, cacm, cisi are not in {tmp_path / 'nowhere'}: pass the folder holding "
        "data/vaswani, data/cranfield, data/cacm and data/cisi (or set PYTERRIER_BOOT_SHARED)"]
    assert not (tmp_path / "out").exists()


def _numbers(line):
    return [float(x) for x in NUMBER.findall(line)]


def _page_output():
    """The page's ``text`` block that shows the script's output."""
    blocks = re.findall(r"```text\n(.*?)```", PAGE.read_text(), re.S)
    shown = [b for b in blocks if b.lstrip().startswith("mean nDCG@10")]
    assert len(shown) == 1, "the page shows the script's output in one text block"
    return shown[0]


def _prose():
    """The page without its code blocks."""
    return re.sub(r"```.*?```", "", PAGE.read_text(), flags=re.S)


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    pytest.importorskip("pyterrier_pisa", reason="pyterrier-pisa is not installed (pip install -e '.[examples]')")
    pytest.importorskip("lightgbm", reason="lightgbm is not installed (pip install -e '.[examples]')")
    for name in ("vaswani", "cranfield", "cacm", "cisi"):
        shared_path(name)
    folder = tmp_path_factory.mktemp("four_corpora")
    done = _run(DATA.parent, "--out", folder / "out", cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, folder / "out"


@pytest.mark.slow  # about a minute of CPU: four PISA indexes, 100 LambdaMART fits, 8 bootstraps
@pytest.mark.integration
def test_the_page_shows_what_the_script_prints(printed):
    out, _ = printed
    page_lines = [line for line in _page_output().splitlines() if line.strip()]
    out_lines = [line for line in out.splitlines() if line.strip()]
    assert len(page_lines) == len(out_lines), out
    for shown, got in zip(page_lines, out_lines):
        assert NUMBER.sub("#", shown).split() == NUMBER.sub("#", got).split(), (shown, got)
        assert _numbers(shown) == pytest.approx(_numbers(got), abs=TOLERANCE), (shown, got)


@pytest.mark.slow
@pytest.mark.integration
def test_the_figures_the_page_quotes_are_printed(printed):
    """Every figure with three decimals in the page's text is one the script prints (up to its
    sign: the text says "loses 0.018" for a difference of -0.018)."""
    out, _ = printed
    figures = {abs(float(x)) for x in NUMBER.findall(out)}
    quoted = [float(x) for x in re.findall(r"(?<![\w.])[-−]?\d+\.\d{3}(?![\d])", _prose().replace("−", "-"))]
    assert len(quoted) >= 15, "the page quotes the figures it reads"
    missing = [q for q in quoted if not any(abs(abs(q) - f) <= TOLERANCE for f in figures)]
    assert missing == [], f"quoted on the page but not printed: {missing}"


@pytest.mark.slow
@pytest.mark.integration
def test_the_plot_and_the_saved_analysis(printed):
    import pyterrier_boot as ptb

    out, folder = printed
    assert (folder / "forest.png").stat().st_size > 10_000
    pooled = ptb.AcrossCollections.load(folder / "across.zip").pooled().set_index("system").loc["LambdaMART"]
    line = next(line for line in reversed(out.splitlines()) if line.strip().startswith("LambdaMART"))
    assert _numbers(line)[:5] == pytest.approx([pooled[c] for c in ("estimate", "ci_low", "ci_high", "pi_low",
                                                                      "pi_high")], abs=5e-4)
