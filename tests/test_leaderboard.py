"""ptb.leaderboard and `pyterrier-boot leaderboard`: the table's figures against their references
(ir_measures means, rank_intervals over the experiment's replicates, the all-pairs tests), the
static site's files and links, and a 200-run collection for speed and size."""
import html
import re
import shlex
import shutil
import time
from html.parser import HTMLParser
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.stats.ranking import rank_intervals


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=15, n_systems=6, depth=60, pool_depth=20, corpus_size=4000,
                                   matching=300, rng=4)


@pytest.fixture(scope="module")
def board(sim):
    return ptb.leaderboard(sim.runs, sim.qrels, ["AP", "nDCG@10"], n_resamples=500, rng=1, baseline="S1")


def _groups(text):
    return set(re.findall(r"[A-Za-z][0-9]*", text))


def test_table_against_references(sim, board):
    frame = board.to_frame()
    assert frame["rank"].tolist() == list(range(1, 7))
    assert frame["AP"].is_monotonic_decreasing
    assert frame.columns[:5].tolist() == ["rank", "run", "AP", "AP ci_low", "AP ci_high"]
    # means: ir_measures on the same runs (trec_eval -c: a missing topic scores 0)
    q = sim.qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    for name, run in sim.runs.items():
        r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        value = ir_measures.calc_aggregate([ir_measures.AP], q, r)[ir_measures.AP]
        assert frame.set_index("run").loc[name, "AP"] == pytest.approx(value, abs=1e-9)
    # rank intervals: rank_intervals over the experiment's own bootstrap replicates
    res = board.result
    ranks = rank_intervals(res.means, res.distribution_, systems=res.names, measures=res.measures)
    index = [res.names.index(n) for n in frame["run"]]
    assert frame["AP rank ci_low (topics)"].tolist() == np.asarray(ranks.confidence_interval.low)[index, 0].tolist()
    assert frame["nDCG@10 rank ci_high (topics)"].tolist() == \
        np.asarray(ranks.confidence_interval.high)[index, 1].tolist()
    assert (frame["AP rank ci_low (topics)"] <= frame["AP rank"]).all()
    assert (frame["AP rank"] <= frame["AP rank ci_high (topics)"]).all()


def test_groups_are_the_pairwise_verdicts(board):
    table = board.pairwise
    assert table.attrs["correction"] == "holm" and table.attrs["test"] == "t"
    again = ptb.compare({m: pd.DataFrame(board.result.values[:, :, j].T, columns=list(board.result.names))
                         for j, m in enumerate(board.measures)}, test="t", correction="holm")
    assert again["reject"].tolist() == table["reject"].tolist()
    frame = board.to_frame().set_index("run")
    for m in board.measures:
        rows = table[table["measure"] == m]
        for a, b, reject in zip(rows["system_a"], rows["system_b"], rows["reject"], strict=True):
            share = bool(_groups(frame.loc[a, f"{m} group"]) & _groups(frame.loc[b, f"{m} group"]))
            assert share == (not reject)
        best = frame[m].idxmax()
        assert "a" in frame.loc[best, f"{m} group"]
    assert board.n_groups("AP") == len(set().union(*map(_groups, frame["AP group"])))


def test_display_markdown_html(board):
    shown = board.display_frame()
    assert shown.columns.tolist() == ["rank", "run", "AP", "AP rank (topics)", "AP group", "nDCG@10",
                                      "nDCG@10 rank (topics)", "nDCG@10 group"]
    assert re.fullmatch(r"0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]", shown["AP"].iloc[0])
    assert re.fullmatch(r"1 \[1, \d\]", shown["AP rank (topics)"].iloc[0])
    markdown = board.to_markdown()
    assert markdown.startswith("| rank | run | AP |") and "compact letter display" in markdown
    assert '<table class="sortable" id="ptb-' in board._repr_html_()
    assert repr(board).startswith("Leaderboard(6 runs, 15 topics; AP: ")


def test_notebook_html_brings_its_own_sort_script(board):
    # a notebook output has no page around it: the table, then a script that wires that table by id
    html = board._repr_html_()
    table_id = re.match(r'<table class="sortable" id="(ptb-[0-9a-f]{16})">', html).group(1)
    script = html.split("<script>")[1]
    assert html.endswith("</script>") and html.count("<script>") == 1
    assert f'wire(document.getElementById("{table_id}"));' in script and "function sort(" in script
    assert f"#{table_id}[data-sort-wired] th::after" in html  # arrows only once the script ran
    assert re.search(r'id="(ptb-[0-9a-f]{16})"', board._repr_html_()).group(1) != table_id  # one id per output
    assert "<caption>" in html and "clique cover" in html


def test_to_latex(board):
    latex = board.to_latex(caption="TREC-like runs.", label="tab:board")
    lines = latex.splitlines()
    assert lines[:3] == [r"\begin{table}", r"\centering", r"\begin{tabular}{rlrrlrrl}"]  # run, groups left
    assert lines[4] == (r"rank & run & AP & AP rank (topics) & AP group & nDCG@10 & nDCG@10 rank (topics) & "
                        r"nDCG@10 group \\")
    rows = [line.removesuffix(r" \\").split(" & ") for line in lines[6:6 + 6]]
    assert rows == board.display_frame().astype(str).to_numpy().tolist()
    assert lines[12:14] == [r"\bottomrule", r"\end{tabular}"]
    caption = board.caption().replace("%", r"\%")
    assert lines[14] == rf"\caption{{TREC-like runs. {caption}}}" and "clique cover" in caption
    assert lines[15:] == [r"\label{tab:board}", r"\end{table}"]
    assert board.to_latex(float_env=False) == "\n".join(lines[2:14])
    assert board.to_latex(digits=2, float_env=False).splitlines()[4].split(" & ")[2] == board.display_frame(2).iloc[0, 2]


def test_save_and_load(board, tmp_path):
    from pyterrier_boot.leaderboards import Leaderboard

    path = board.save(tmp_path / "boards" / "board.zip")
    back = Leaderboard.load(path)
    pd.testing.assert_frame_equal(back.to_frame(), board.to_frame())
    pd.testing.assert_frame_equal(back.pairwise, board.pairwise)
    pd.testing.assert_frame_equal(back.letters, board.letters)
    assert back.pairwise.attrs == board.pairwise.attrs
    for name in ("statistic", "bootstrap_distribution"):  # bit for bit
        assert np.array_equal(getattr(back.ranks, name), getattr(board.ranks, name))
    assert np.array_equal(back.result.distribution_, board.result.distribution_)
    assert back.result.provenance == board.result.provenance and back.topic_ranks is None
    assert (back.baseline, back.test, back.correction, back.alpha, back.letters_method) == (
        board.baseline, board.test, board.correction, board.alpha, board.letters_method)
    assert back.caption() == board.caption() and back.to_latex() == board.to_latex()
    assert back.to_markdown() == board.to_markdown() and repr(back) == repr(board)
    import json
    import zipfile

    with zipfile.ZipFile(path) as archive:  # open formats, no pickle
        names = archive.namelist()
        doc = json.loads(archive.read("leaderboard.json"))
    assert {"leaderboard.json", "leaderboard.csv", "pairwise.csv", "perquery.csv"} <= set(names)
    assert all(n.endswith((".json", ".csv", ".npy")) for n in names)
    assert doc["format"] == "pyterrier-boot-leaderboard" and doc["provenance"]["versions"]["numpy"] == np.__version__
    with pytest.raises(ValueError, match="'path': no file"):
        Leaderboard.load(tmp_path / "nope.zip")
    with pytest.raises(ValueError, match="is not a saved leaderboard \\(no readable leaderboard.json\\)"):
        Leaderboard.load(board.result.save(tmp_path / "result.zip"))
    with pytest.raises(ValueError, match="not a saved leaderboard"):
        Leaderboard.load(tmp_path / "boards")


def test_insert_absorb_letters(sim, board):
    other = ptb.leaderboard(sim.runs, sim.qrels, ["AP", "nDCG@10"], n_resamples=500, rng=1, baseline="S1",
                            letters_method="insert-absorb")
    assert other.letters_method == "insert-absorb" and "Gramm" not in other.caption()
    expected = ptb.compact_letter_display(board.pairwise, measure="AP", method="insert-absorb")
    assert other.letters["AP"].to_dict() == expected.to_dict()


@pytest.fixture(scope="module")
def twenty():
    """20 runs whose all-pairs t-tests give different groups by cover and by insert-and-absorb."""
    sim = ptb.simulate_collection(n_topics=25, n_systems=20, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=3)
    return sim, ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=200, rng=1)


@pytest.mark.parametrize("method", ["cover", "insert-absorb"])
def test_every_door_gives_the_same_letters_and_names_the_method(twenty, method):
    from pyterrier_boot.report import html_report, summary_table
    from pyterrier_boot.stats.letters import letters_label

    sim, default = twenty
    board = default if method == "cover" else ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=200, rng=1,
                                                               letters_method=method)
    res, pairwise = board.result, board.pairwise
    other = "insert-absorb" if method == "cover" else "cover"
    assert ptb.compact_letter_display(pairwise, method=other).to_dict() != board.letters["AP"].to_dict()
    chosen = {} if method == "cover" else {"letters_method": method}  # the default is the cover everywhere
    summary = summary_table(res, pairwise=pairwise, letters=True, **chosen).set_index("name")["AP group"]
    table = res.display(letters=True, **chosen)  # its own default all-pairs t-tests, Holm, alpha 0.05
    assert summary.to_dict() == board.letters["AP"].to_dict()
    assert dict(zip(table.names, table.letters[:, 0], strict=True)) == board.letters["AP"].to_dict()
    label = letters_label(method)
    assert label in board.caption() and label in table.caption and label in board.to_markdown()
    assert label in html_report(res, pairwise=pairwise, plots=False, **chosen)
    assert letters_label(method).split(", ")[0] in res.to_latex(letters=True, **chosen)
    assert label in res.to_markdown(letters=True, **chosen)


def test_leaderboard_letters_keyword_is_deprecated(twenty):
    sim, board = twenty
    with pytest.warns(DeprecationWarning, match="'letters' is deprecated; use 'letters_method'"):
        old = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=200, rng=1, letters="cover")
    assert old.letters.equals(board.letters)


def test_corpus_bootstrap_adds_rank_intervals(sim, tmp_path):
    board = ptb.leaderboard(sim.runs, sim.qrels, "AP", bootstrap="both", n_resamples=100, rng=2)
    frame = board.to_frame()
    assert {"AP rank ci_low (topics+corpus)", "AP rank ci_low (topics)"} <= set(frame.columns)
    assert board.ranks.bootstrap_distribution.shape[0] == 100
    assert board.pairwise.attrs["test"].startswith("both-bootstrap replicate test")
    assert "topic resamples on corpus images" in board.caption()
    back = type(board).load(board.save(tmp_path / "board.zip"))  # with the corpus and topic-only ranks
    pd.testing.assert_frame_equal(back.to_frame(), frame)
    assert np.array_equal(back.topic_ranks.bootstrap_distribution, board.topic_ranks.bootstrap_distribution)
    assert back.caption() == board.caption() and back.result.corpus is not None


def test_runs_from_files(sim, tmp_path):
    write_trec(sim.runs, sim.qrels, tmp_path)
    from_folder = ptb.leaderboard(tmp_path / "runs", sim.qrels, ["AP"], n_resamples=200, rng=3)
    from_frames = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=200, rng=3)
    pd.testing.assert_frame_equal(from_folder.to_frame(), from_frames.to_frame())


def test_bad_input(sim):
    with pytest.raises(ValueError, match="'baseline' 'nope'"):
        ptb.leaderboard(sim.runs, sim.qrels, ["AP"], baseline="nope")
    with pytest.raises(ValueError, match="'bootstrap'"):
        ptb.leaderboard(sim.runs, sim.qrels, ["AP"], bootstrap="jackknife")
    with pytest.raises(ValueError, match="at least 2 runs"):
        ptb.leaderboard({"S1": sim.runs["S1"]}, sim.qrels, ["AP"])
    with pytest.raises(ValueError, match="'letters_method' must be one of"):
        ptb.leaderboard(sim.runs, sim.qrels, ["AP"], letters_method="greedy")
    with pytest.raises(TypeError, match="'runs'"):
        ptb.leaderboard(42, sim.qrels, ["AP"])


# ---------------------------------------------------------------- the site


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.rows = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("href", "src"):
            if key in attrs:
                self.links.append(attrs[key])
        if tag == "tr":
            self.rows += 1


def _links(path):
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_site(board, tmp_path):
    site = board.write(tmp_path / "site", title="Test board", settings={"qrels": "simulated"})
    index = site / "index.html"
    parsed = _links(index)
    for link in parsed.links:
        assert not re.match(r"(https?:)?//", link), link  # self-contained: relative links only
        assert (site / link).is_file(), link
    assert sum(link.startswith("runs/") for link in parsed.links) == 6
    assert sum(link.endswith(".svg") for link in parsed.links) == 2 * 2 * 2  # link + img, 2 plots, 2 measures
    text = index.read_text(encoding="utf-8")
    assert 'id="leaderboard"' in text and "Test board" in text and "<script>" in text
    # a run page: its per-topic scores and the difference to the baseline
    page = (site / "runs" / "S3.html").read_text(encoding="utf-8")
    topics = page.split('id="topics"')[1]
    res = board.result
    s, b = res.names.index("S3"), res.names.index("S1")
    assert topics.count("<tr>") == len(res.qids) + 1
    first = f"{res.values[s, 0, 0] - res.values[b, 0, 0]:.4f}"
    assert first in topics.split("</tr>")[1]
    assert "Against the baseline S1" in page
    assert pd.read_csv(site / "leaderboard.csv")["run"].tolist() == board.order
    assert len(pd.read_csv(site / "pairwise.csv")) == 15 * 2


def test_a_smaller_board_over_a_site_leaves_no_stale_run_pages(sim, board, tmp_path):
    site = board.write(tmp_path / "site", plots=False)
    (site / "notes.txt").write_text("the organisers' own file")
    two = ptb.leaderboard({n: sim.runs[n] for n in ["S1", "S2"]}, sim.qrels, ["AP"], n_resamples=200, rng=1)
    two.write(site, plots=False)
    assert sorted(p.name for p in (site / "runs").iterdir()) == ["S1.html", "S2.html"]
    assert (site / "notes.txt").read_text() == "the organisers' own file"  # not the site's: kept


def test_site_shows_file_names_not_local_paths(board, tmp_path):
    qrels, runs = tmp_path / "private" / "qrels.txt", [tmp_path / "private" / "runs", tmp_path / "bm25.run"]
    settings = {"qrels": qrels, "run files": runs, "note": "as typed"}
    site = board.write(tmp_path / "site", settings=settings, plots=False)
    header = (site / "index.html").read_text(encoding="utf-8").split("<h2>")[0]
    assert str(tmp_path) not in header
    assert "<td>qrels.txt</td>" in header and "<td>runs, bm25.run</td>" in header and "as typed" in header
    site = board.write(tmp_path / "site", settings=settings, plots=False, paths=True)
    header = (site / "index.html").read_text(encoding="utf-8").split("<h2>")[0]
    assert f"<td>{qrels}</td>" in header and f"<td>{runs[0]}, {runs[1]}</td>" in header


def test_command_line_site_shows_file_names_unless_paths(sim, tmp_path, capsys):
    folder = write_trec(sim.runs, sim.qrels, tmp_path) / "runs"
    argv = ["leaderboard", "--qrels", str(tmp_path / "qrels.txt"), str(folder), "-m", "AP", "--n", "100",
            "--rng", "5", "--quiet", "--no-plots", f"--out={tmp_path / 'site'}"]
    assert main(argv) == 0
    header = (tmp_path / "site" / "index.html").read_text(encoding="utf-8").split("<h2>")[0]
    assert str(tmp_path) not in header
    assert "--qrels qrels.txt runs -m AP" in header and "--out=site" in header and "<td>qrels.txt</td>" in header
    assert main(argv + ["--overwrite", "--paths"]) == 0
    header = (tmp_path / "site" / "index.html").read_text(encoding="utf-8").split("<h2>")[0]
    assert f"--qrels {tmp_path / 'qrels.txt'} {folder}" in header and f"<td>{folder}</td>" in header
    capsys.readouterr()


def _settings_rows(site):
    header = (site / "index.html").read_text(encoding="utf-8").split("<h2>")[0]
    return {k: html.unescape(v) for k, v in re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", header)}


def test_command_row_reruns_from_where_it_was_typed(sim, tmp_path, capsys, monkeypatch):
    """The site's command is the command typed, runnable again from the folder it was typed in: paths
    inside that folder as typed or made relative to it, paths outside it by their file names with a
    row saying which files to put there; never an absolute path (issue 33: names only, not rerunnable)."""
    work = tmp_path / "work"
    write_trec(sim.runs, sim.qrels, work / "data")
    write_trec({}, sim.qrels, tmp_path / "elsewhere")  # the same qrels outside the working folder
    monkeypatch.chdir(work)
    options = ["-m", "AP", "--n", "100", "--rng", "5", "--quiet", "--no-plots", "--overwrite"]
    typed = {"relative": ["--qrels", "data/qrels.txt", "data/runs/", *options, "--out", "site"],
             "absolute": [f"--qrels={work / 'data' / 'qrels.txt'}", str(work / "data" / "runs"), *options,
                          "-o", str(work / "site")],
             "outside": ["-q", str(tmp_path / "elsewhere" / "qrels.txt"), "data/runs", *options,
                         "--out", str(tmp_path / "site")]}
    shown = {"relative": "pyterrier-boot leaderboard " + " ".join(typed["relative"]),
             "absolute": "pyterrier-boot leaderboard --qrels=data/qrels.txt data/runs " + " ".join(options)
                         + " -o site",
             "outside": "pyterrier-boot leaderboard -q qrels.txt data/runs " + " ".join(options) + " --out site"}
    for case, argv in typed.items():
        assert main(["leaderboard", *argv]) == 0
        site = Path(argv[-1]) if case != "relative" else work / "site"
        rows = _settings_rows(site)
        assert rows["command"] == shown[case] and str(tmp_path) not in "".join(rows.values()), case
        expected = pd.read_csv(site / "leaderboard.csv")
        if case == "outside":
            assert rows["rerun from"].startswith("the folder the command was typed in, with qrels.txt copied into")
            (work / "qrels.txt").write_bytes((tmp_path / "elsewhere" / "qrels.txt").read_bytes())
        else:
            assert rows["rerun from"] == "the folder the command was typed in (its paths are relative to it)"
        shutil.rmtree(site)
        assert main(shlex.split(rows["command"])[1:]) == 0, case  # the row, run again
        pd.testing.assert_frame_equal(pd.read_csv(work / "site" / "leaderboard.csv"), expected)
    capsys.readouterr()


def test_run_file_names():
    from pyterrier_boot.leaderboards.site import run_file_names

    assert run_file_names(["a/b", "a b", "A_b", ".."]) == {"a/b": "a_b.html", "a b": "a_b-2.html",
                                                            "A_b": "A_b-3.html", "..": "run.html"}


# ---------------------------------------------------------------- command line


def test_command_line(sim, tmp_path, capsys):
    folder = write_trec(sim.runs, sim.qrels, tmp_path) / "runs"
    argv = ["leaderboard", "--qrels", str(tmp_path / "qrels.txt"), str(folder), "-m", "AP", "nDCG@10", "--n", "300",
            "--rng", "5", "--quiet"]
    assert main(argv + ["--out", str(tmp_path / "site"), "--no-plots", "-b", "S2"]) == 0
    out = capsys.readouterr().out
    assert "AP group" in out and "Letter groups: AP" in out and "--rng 5" in out
    assert (tmp_path / "site" / "index.html").is_file() and len(list((tmp_path / "site" / "runs").iterdir())) == 6
    assert main(argv + ["--format", "csv"]) == 0
    csv = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    expected = ptb.leaderboard(sim.runs, sim.qrels, ["AP", "nDCG@10"], n_resamples=300, rng=5).to_frame()
    pd.testing.assert_frame_equal(csv[["run", "AP", "AP group"]], expected[["run", "AP", "AP group"]])
    assert main(argv + ["--out", str(tmp_path / "site"), "--no-plots"]) == 1  # exists: needs --overwrite
    assert "--overwrite" in capsys.readouterr().err
    assert main(argv + ["-b", "nope"]) == 1
    assert "unknown --baseline 'nope'" in capsys.readouterr().err


def test_docs_name_only_existing_options():
    from pyterrier_boot.cli import build_parser

    page = (Path(ptb.__file__).parent / "pt_docs" / "leaderboard.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._subparsers._group_actions).choices["leaderboard"]
    options = {o for a in sub._actions for o in a.option_strings}
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", page))
    assert mentioned and mentioned <= options, mentioned - options


# ---------------------------------------------------------------- 200 runs


@pytest.mark.slow
def test_two_hundred_runs(tmp_path):
    sim = ptb.simulate_collection(n_topics=50, n_systems=200, depth=100, pool_depth=10, corpus_size=20_000,
                                  matching=1000, rng=7)
    start = time.perf_counter()
    board = ptb.leaderboard(sim.runs, sim.qrels, ["AP", "nDCG@10"], rng=1)
    computed = time.perf_counter() - start
    site = board.write(tmp_path / "site")
    written = time.perf_counter() - start - computed
    index = (site / "index.html").stat().st_size
    figures = sum(p.stat().st_size for p in (site / "figures").iterdir())
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    longest = board.to_frame()[["AP group", "nDCG@10 group"]].map(lambda t: len(_groups(t))).max().max()
    print(f"200 runs: computed in {computed:.1f} s, site written in {written:.1f} s; index.html {index / 1e3:.0f} kB, "
          f"figures {figures / 1e6:.1f} MB, site {total / 1e6:.1f} MB; groups AP {board.n_groups('AP')}, "
          f"nDCG@10 {board.n_groups('nDCG@10')}, at most {longest} letters for one run")
    assert computed < 120 and written < 120
    assert index < 1_000_000  # letters and rank intervals, not a 200 x 200 matrix
    assert len(list((site / "runs").iterdir())) == 200
    frame = board.to_frame()
    assert frame["AP group"].str.len().max() < 60


# ---------------------------------------------------------------- TREC DL 2020


@pytest.mark.slow
@pytest.mark.integration
def test_dl2020_leaderboard(tmp_path, capsys):
    """The 59 DL 2020 passage runs: means equal NIST's tables, groups match the Holm-corrected
    t-tests of every pair, and the site is written."""
    from conftest import shared_path

    folder = shared_path("trec-dl-2020-passage")
    code = main(["leaderboard", "--qrels", str(folder / "qrels.dl20-passage.txt"), str(folder / "runs"),
                 "--measures", "nDCG@10", "AP", "--rel", "2", "--n", "1000", "--rng", "1", "--quiet",
                 "--out", str(tmp_path / "site")])
    assert code == 0
    capsys.readouterr()
    frame = pd.read_csv(tmp_path / "site" / "leaderboard.csv", dtype={"run": str}).set_index("run")
    nist = pd.read_csv(folder / "nist_official_summaries.tsv", sep="\t", dtype={"run_id": str})
    ndcg = nist[(nist["summary_kind"] == "passages-eval") & (nist["measure"] == "ndcg_cut_10")]
    assert len(frame) == 59 and sorted(ndcg["run_id"]) == sorted(frame.index)
    for run, value in zip(ndcg["run_id"], ndcg["value"], strict=True):
        assert frame.loc[run, "nDCG@10"] == pytest.approx(value, abs=5e-5)
    assert frame["nDCG@10"].is_monotonic_decreasing
    pairwise = pd.read_csv(tmp_path / "site" / "pairwise.csv", dtype={"system_a": str, "system_b": str})
    for m in ("nDCG@10", "AP(rel=2)"):
        rows = pairwise[pairwise["measure"] == m]
        for a, b, reject in zip(rows["system_a"], rows["system_b"], rows["reject"], strict=True):
            assert bool(_groups(frame.loc[a, f"{m} group"]) & _groups(frame.loc[b, f"{m} group"])) == (not reject)
        assert (frame[f"{m} rank ci_low (topics)"] <= frame[f"{m} rank"]).all()
        assert (frame[f"{m} rank"] <= frame[f"{m} rank ci_high (topics)"]).all()
    assert len(list((tmp_path / "site" / "runs").iterdir())) == 59


def test_command_line_table_repeats_the_run_in_every_block(sim, tmp_path, capsys, monkeypatch):
    from pyterrier_boot.cli import _text

    folder = write_trec(sim.runs, sim.qrels, tmp_path) / "runs"
    monkeypatch.setattr(_text, "terminal_width", lambda: 70)  # too narrow for one block: the table wraps
    assert main(["leaderboard", "--qrels", str(tmp_path / "qrels.txt"), str(folder), "-m", "AP", "nDCG@10",
                 "--n", "200", "--rng", "5", "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    headers = [lines[i - 1] for i, line in enumerate(lines) if line.startswith("----")]  # above each rule
    assert len(headers) >= 2  # several blocks
    assert all(line.split()[:2] == ["rank", "run"] for line in headers)


# ---------------------------------------------------------------- qrels judging one topic


@pytest.fixture(scope="module")
def one_topic(sim):
    qrels = sim.qrels[sim.qrels["qid"] == "3"]
    runs = {name: run[run["qid"] == "3"] for name, run in sim.runs.items()}
    return runs, qrels


@pytest.mark.parametrize("bootstrap", ["topic", "both"])
def test_one_topic_ranks_the_means_with_no_intervals_and_one_warning(one_topic, bootstrap):
    runs, qrels = one_topic
    kwargs = {"corpus_size": 4000, "n_resamples": 20} if bootstrap == "both" else {"n_resamples": 200}
    with pytest.warns(ptb.InputWarning) as caught:
        board = ptb.leaderboard(runs, qrels, ["AP", "nDCG@10"], bootstrap=bootstrap, rng=1, **kwargs)
    assert [str(w.message) for w in caught] == [
        "only 1 topic is judged: intervals and tests need at least 2 topics, so they are left empty (NaN)"]
    assert not board.tested and board.ranks is None and board.topic_ranks is None
    frame = board.to_frame()
    # means: ir_measures on the one topic; ranks: scipy's average ranks of those means
    q = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    for name, run in runs.items():
        r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        value = ir_measures.calc_aggregate([ir_measures.AP], q, r)[ir_measures.AP]
        assert frame.set_index("run").loc[name, "AP"] == pytest.approx(value, abs=1e-9)
    assert frame["AP"].is_monotonic_decreasing and frame["rank"].tolist() == list(range(1, 7))
    from scipy.stats import rankdata

    assert frame["nDCG@10 rank"].tolist() == rankdata(-frame["nDCG@10"].to_numpy(), method="average").tolist()
    labels = ["topics+corpus", "topics"] if bootstrap == "both" else ["topics"]
    intervals = ["AP ci_low", "AP ci_high"] + [f"AP rank ci_{e} ({v})" for v in labels for e in ("low", "high")]
    assert frame[intervals].isna().all().all() and (frame["AP group"] == "").all()  # the schema of a tested board
    assert board.display_frame().columns.tolist() == ["rank", "run", "AP", "AP rank", "nDCG@10", "nDCG@10 rank"]
    caption = board.caption()
    assert caption.startswith("6 runs on 1 topic, ranked by mean AP. Means with no intervals (1 topic: at least 2 "
                              "are needed). Rank: the rank of the mean (1 = best; ties share the average rank), "
                              "with no rank interval and no letter groups: no pair is tested (1 topic: a test "
                              "needs at least 2).")
    markdown = board.to_markdown()
    assert "[" not in markdown.split("\n\n")[0] and markdown.endswith(caption + "\n")  # no interval, no letter
    assert "no intervals (1 topic: at least 2 are needed)" in board.to_latex()
    assert repr(board) == "Leaderboard(6 runs, 1 topic; no intervals or groups)"
    docs = " ".join((Path(ptb.__file__).parent / "pt_docs" / "leaderboard.md").read_text(encoding="utf-8").split())
    assert caption.split("mean AP. ", 1)[1] in docs and str(caught[0].message) in docs  # the docs quote them
    assert board.pairwise["p-value"].isna().all() and not board.pairwise["reject"].any()


def test_one_topic_saves_loads_and_writes_its_site(one_topic, tmp_path):
    import zipfile

    runs, qrels = one_topic
    with pytest.warns(ptb.InputWarning, match="only 1 topic is judged"):
        board = ptb.leaderboard(runs, qrels, ["AP"], n_resamples=200, rng=1)
    back = type(board).load(board.save(tmp_path / "board.zip"))
    pd.testing.assert_frame_equal(back.to_frame(), board.to_frame())
    assert not back.tested and back.caption() == board.caption() and back.to_latex() == board.to_latex()
    with zipfile.ZipFile(tmp_path / "board.zip") as archive:
        assert "pairwise.csv" not in archive.namelist() and "leaderboard.csv" in archive.namelist()
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "pairwise.csv").write_text("an earlier site's\n")
    site = board.write(tmp_path / "site", plots=True)
    parsed = _links(site / "index.html")
    for link in parsed.links:
        assert (site / link).is_file(), link
    assert not (site / "pairwise.csv").exists()  # no pair is tested
    assert [link for link in parsed.links if link.endswith(".svg")] == ["figures/means-1.svg"] * 2  # no rank plot
    text = (site / "index.html").read_text(encoding="utf-8")
    assert "no intervals (1 topic: at least 2 are needed)" in text and "Letter groups" not in text
    assert "AP: mean of each run (no intervals: 1 topic)." in text and "interval of each run" not in text
