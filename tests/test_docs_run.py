"""Every code block of README.md and pyterrier_boot/pt_docs/*.md runs as written, twice in a row,
offline, and prints something.

Python blocks run as scripts; console blocks run their ``pyterrier-boot`` lines through
``python -m pyterrier_boot`` and follow their ``cd`` lines. A block preceded by ``<!-- norun:
reason -->`` is skipped (the reason is required). README.md and cli.md, the pages a new user
follows, are run as that user would: block after block from an empty folder, the working folder
carried from one block to the next (their first console blocks run the demo and ``cd`` into the
folder it writes). The blocks of the other pages run where README.md says examples reading
``qrels.txt`` and ``runs/`` run: the folder ``pyterrier-boot demo`` writes (made here by the demo
itself). ir_datasets reads the offline Vaswani copy (skipping when it is absent). Every command
must exit 0 (the gate's example is one that says *not worse*, as its text says). Marked slow: run
with ``pytest -m slow tests/test_docs_run.py``.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "pyterrier_boot" / "pt_docs").glob("*.md"))]
#: followed block after block from an empty folder, as a new user does
FRONT_DOORS = [ROOT / "README.md", ROOT / "pyterrier_boot" / "pt_docs" / "cli.md"]
FENCE = re.compile(r"(?:<!--\s*norun:\s*(?P<reason>[^>]*?)\s*-->\s*\n)?```(?P<lang>\w+)\n(?P<code>.*?)```", re.S)


def _page_blocks(page):
    """``(index, lang, code, norun reason)`` of the Python and console blocks of ``page``, in order."""
    for i, match in enumerate(FENCE.finditer(page.read_text())):
        if match["lang"] in ("python", "console"):
            yield i, match["lang"], match["code"], match["reason"]


def _blocks():
    for page in PAGES:
        if page in FRONT_DOORS:
            continue
        for i, lang, code, reason in _page_blocks(page):
            yield pytest.param(lang, code, reason, id=f"{page.relative_to(ROOT)}#{i}-{lang}")


def test_every_block_is_python_or_console_and_norun_has_a_reason():
    for page in PAGES:
        text = page.read_text()
        assert all(lang in ("python", "console", "text") for lang in re.findall(r"^```(\w+)$", text, re.M)), page
        assert not re.search(r"<!--\s*norun\s*(:\s*)?-->", text), f"{page}: a norun marker without a reason"


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
            "MPLBACKEND": "Agg"}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, irds_home):
    """The folder the examples run in, as README.md and cli.md say: the one ``pyterrier-boot demo``
    writes, ``pyterrier-boot-demo/``, made by running the demo in an empty folder."""
    folder = tmp_path_factory.mktemp("docs")
    done = subprocess.run([sys.executable, "-m", "pyterrier_boot", "demo", "--quiet"], cwd=folder, env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder / "pyterrier-boot-demo"


def _run(lang, code, cwd):
    """Run a block in ``cwd``: the finished processes, and the working folder it ends in (after its
    ``cd`` lines)."""
    env = _env()
    if lang == "python":
        return [subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=600)], cwd
    done = []
    for line in code.replace("\\\n", " ").splitlines():  # a trailing backslash continues the line
        line = re.sub(r"\s+#.*$", "", line.removeprefix("$ ")).strip()
        if not line:
            continue
        words = shlex.split(line)
        if words[0] == "cd":
            cwd = cwd / words[1]
            assert cwd.is_dir(), f"cd {words[1]}: no such folder"
            continue
        assert words[0] == "pyterrier-boot", f"console blocks run pyterrier-boot and cd only (mark others norun): {line}"
        done.append(subprocess.run([sys.executable, "-m", "pyterrier_boot", *words[1:]], cwd=cwd, env=env,
                                   capture_output=True, text=True, timeout=600))
    return done, cwd


def _check(done, where):
    assert done.returncode == 0, f"{where}: {done.args}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert done.stdout.strip(), f"{where}: prints nothing\n{done.stderr[-2000:]}"


@pytest.mark.slow  # minutes: Vaswani is indexed and bootstrapped, every block twice (CI runs -m slow)
@pytest.mark.integration
@pytest.mark.parametrize(("lang", "code", "reason"), list(_blocks()))
def test_block_runs_twice_and_prints(lang, code, reason, workdir):
    if reason is not None:
        pytest.skip(f"marked norun: {reason}")
    for attempt in (1, 2):
        for done in _run(lang, code, workdir)[0]:
            _check(done, f"run {attempt}")


@pytest.mark.slow  # minutes: the demo, the CLI's commands and Vaswani, twice
@pytest.mark.integration
@pytest.mark.parametrize("page", FRONT_DOORS, ids=lambda page: page.name)
def test_a_new_user_follows_the_page_from_an_empty_folder(page, tmp_path, irds_home):
    """Issue 33: cli.md's Python examples and its gate example failed from an empty folder (they
    needed the demo's folder, which the text did not say). Here every block runs where the page has
    led the reader: in order, from an empty folder, twice."""
    for attempt in (1, 2):
        cwd = tmp_path
        for i, lang, code, reason in _page_blocks(page):
            if reason is not None:
                continue
            done, cwd = _run(lang, code, cwd)
            for finished in done:
                _check(finished, f"run {attempt}, {page.name} block {i} in {cwd.relative_to(tmp_path)}/")
