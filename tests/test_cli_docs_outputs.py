"""The files each command's ``--out`` folder holds are the files its docs list: the lists are read
from ``pt_docs/cli.md`` and ``pt_docs/leaderboard.md`` and compared with what the commands write."""
import re
import shutil
from pathlib import Path

import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot.cli import main

DOCS = Path(ptb.__file__).parent / "pt_docs"
FILE = re.compile(r"`([\w<>*./-]+\.(?:csv|html|tex|md|json|png|svg|txt|gz))`")

# command -> (page, where its list of written files starts, where it ends)
LISTS = {
    "evaluate": ("cli.md", "**What `--out DIR` writes.**", "The folder is checked"),
    "leaderboard": ("leaderboard.md", "prints the table and writes the site into", "Nothing is fetched"),
    "reproduce": ("cli.md", "It prints the table and writes", "(all or nothing"),
    "ppi": ("cli.md", "`--out DIR` (`ppi_table.csv`", ") as elsewhere"),
    "split-half": ("cli.md", "`--out DIR` also writes", "(the z\ndistributions)"),
    "demo": ("cli.md", "prints one table per measure", "(or `--out DIR`)"),
    "judge-plan": ("cli.md", "`--overwrite` to replace it) `plan.txt`", "sorted by topic and document"),
    "decide": ("cli.md", "With `--out DIR` it also writes", "The state file is text"),
}


def documented(command):
    """The file names (patterns: ``<run>`` and ``*`` match a name) the docs say ``command`` writes."""
    page, start, end = LISTS[command]
    text = (DOCS / page).read_text()
    assert start in text, f"{page} no longer has {start!r}: update LISTS"
    passage = text[text.index(start):]
    assert end in passage, f"{page} no longer has {end!r} after {start!r}: update LISTS"
    return set(FILE.findall(passage[:passage.index(end)]))


def _matches(pattern, name):
    regex = re.escape(pattern).replace(re.escape("*"), "[^/]+")
    regex = re.sub(r"<[^>]*>", "[^/]+", regex)
    return re.fullmatch(regex, name) is not None


def _written(folder):
    assert (folder / ".pyterrier-boot").is_file()  # the marker, documented once for every command
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    sim = ptb.simulate_collection(n_topics=12, n_systems=3, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=11)
    folder = write_trec(sim.runs, sim.qrels, tmp_path_factory.mktemp("collection"))
    shutil.copytree(folder / "runs", folder / "reproduced")
    qrels = (folder / "qrels.txt").read_text().splitlines(keepends=True)
    human = sorted({line.split()[0] for line in qrels})[:6]  # human judgments on 6 of the 12 topics
    (folder / "human.txt").write_text("".join(line for line in qrels if line.split()[0] in human))
    return folder


def _arguments(command, folder):
    runs = sorted(str(p) for p in (folder / "runs").iterdir())
    return {
        "evaluate": ["--qrels", folder / "qrels.txt", *runs, "--n", 100],
        "leaderboard": ["--qrels", folder / "qrels.txt", *runs, "--n", 100],
        "reproduce": ["--qrels", folder / "qrels.txt", "--original", *runs, "--reproduced",
                      *sorted(str(p) for p in (folder / "reproduced").iterdir()), "--n", 100],
        "ppi": ["--auto-qrels", folder / "qrels.txt", "--human-qrels", folder / "human.txt", *runs, "-m", "AP",
                "-b", "S1"],
        "split-half": ["--qrels", folder / "qrels.txt", *runs, "-m", "AP", "--splits", 2, "--n", 10],
        "demo": ["--topics", 4],
        "judge-plan": ["--auto-qrels", folder / "qrels.txt", *runs, "--budget", 0.5],
        "decide": ["--state", folder / "decide-state.tsv", "--qrels", folder / "qrels.txt", *runs, "-m", "AP"],
    }[command]


@pytest.mark.parametrize("command", list(LISTS))
def test_out_folder_holds_the_documented_files(command, collection, tmp_path, capsys):
    out = tmp_path / "out"
    code = main([command, *map(str, _arguments(command, collection)), "--quiet", "--out", str(out)])
    capsys.readouterr()
    assert code == 0
    listed, written = documented(command), _written(out)
    assert listed, f"no file list found for {command}"
    unlisted = {name for name in written if not any(_matches(p, name) for p in listed)}
    missing = {p for p in listed if not any(_matches(p, name) for name in written)}
    assert not unlisted and not missing, f"{command}: written but not documented {sorted(unlisted)}, " \
                                         f"documented but not written {sorted(missing)}"
