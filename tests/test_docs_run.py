"""Every code block of README.md and pyterrier_boot/pt_docs/*.md runs as written, twice in a row,
offline, and prints something.

Python blocks run as scripts; console blocks run their ``pyterrier-boot`` lines through
``python -m pyterrier_boot``. A block preceded by ``<!-- norun: reason -->`` is skipped (the reason
is required). Blocks run in a fresh folder holding the files they name (``qrels.txt``, ``runs/``,
simulated by :func:`pyterrier_boot.simulate_collection`), with ir_datasets reading the offline
Vaswani copy (skipping when it is absent). Marked slow: run with ``pytest -m slow tests/test_docs_run.py``.
"""
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "pyterrier_boot" / "pt_docs").glob("*.md"))]
FENCE = re.compile(r"(?:<!--\s*norun:\s*(?P<reason>[^>]*?)\s*-->\s*\n)?```(?P<lang>\w+)\n(?P<code>.*?)```", re.S)


def _blocks():
    for page in PAGES:
        for i, match in enumerate(FENCE.finditer(page.read_text())):
            if match["lang"] not in ("python", "console"):
                continue
            yield pytest.param(match["lang"], match["code"], match["reason"],
                               id=f"{page.relative_to(ROOT)}#{i}-{match['lang']}")


def test_every_block_is_python_or_console_and_norun_has_a_reason():
    for page in PAGES:
        text = page.read_text()
        assert all(lang in ("python", "console", "text") for lang in re.findall(r"^```(\w+)$", text, re.M)), page
        assert not re.search(r"<!--\s*norun\s*(:\s*)?-->", text), f"{page}: a norun marker without a reason"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, irds_home):
    """A folder with the files the examples name: qrels.txt and runs/ of a simulated collection."""
    import pyterrier as pt

    from pyterrier_boot import simulate_collection

    folder = tmp_path_factory.mktemp("docs")
    sim = simulate_collection(n_topics=30, n_systems=4, depth=100, pool_depth=20, rng=3)
    sim.qrels.assign(iteration="0")[["qid", "iteration", "docno", "label"]].to_csv(
        folder / "qrels.txt", sep=" ", header=False, index=False)
    (folder / "runs").mkdir()
    for name, run in sim.runs.items():
        with warnings.catch_warnings():  # PyTerrier's add_ranks uses drop(inplace=True), deprecated by pandas 3.1
            warnings.filterwarnings("ignore", message="The inplace keyword in DataFrame.drop is deprecated")
            ranked = pt.model.add_ranks(run)
        pt.io.write_results(ranked, str(folder / "runs" / f"{name}.run"), run_name=name)
    return folder


def _run(lang, code, cwd):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "MPLBACKEND": "Agg"}
    if lang == "python":
        return [subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=600)]
    done = []
    for line in code.replace("\\\n", " ").splitlines():  # a trailing backslash continues the line
        line = re.sub(r"\s+#.*$", "", line.removeprefix("$ ")).strip()
        if not line:
            continue
        words = shlex.split(line)
        assert words[0] == "pyterrier-boot", f"console blocks run pyterrier-boot only (mark others norun): {line}"
        done.append(subprocess.run([sys.executable, "-m", "pyterrier_boot", *words[1:]], cwd=cwd, env=env,
                                   capture_output=True, text=True, timeout=600))
    return done


@pytest.mark.slow  # minutes: Vaswani is indexed and bootstrapped, every block twice (CI runs -m slow)
@pytest.mark.integration
@pytest.mark.parametrize(("lang", "code", "reason"), list(_blocks()))
def test_block_runs_twice_and_prints(lang, code, reason, workdir):
    if reason is not None:
        pytest.skip(f"marked norun: {reason}")
    for attempt in (1, 2):
        for done in _run(lang, code, workdir):
            assert done.returncode == 0, f"run {attempt}: {done.args}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            assert done.stdout.strip(), f"run {attempt}: prints nothing\n{done.stderr[-2000:]}"
