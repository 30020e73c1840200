"""The outputs ppi.md shows from real collections are the outputs the code gives (issue 33, item 4).

A Python block of ``pt_docs/ppi.md`` marked ``<!-- norun: needs the TREC DL ... -->`` and followed
by a ``text`` block is run where its relative paths (``trec-dl-2020-passage/``, ``llm-judgments/``)
lead to the shared data, and must print exactly that text. The simulated examples are run by
tests/test_docs_run.py.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import shared_path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "pyterrier_boot" / "pt_docs" / "ppi.md"
BLOCK = re.compile(r"<!--\s*norun:\s*(?P<reason>needs the TREC DL[^>]*?)\s*-->\s*\n```python\n(?P<code>.*?)```\s*\n"
                   r"```text\n(?P<output>.*?)```", re.S)
FOLDERS = ("trec-dl-2019-passage", "trec-dl-2020-passage", "llm-judgments")


def _blocks():
    return [pytest.param(m["code"], m["output"], id=f"ppi.md#{i}") for i, m in enumerate(BLOCK.finditer(PAGE.read_text()))]


def test_the_real_data_examples_are_found():
    assert len(_blocks()) >= 1


@pytest.mark.slow  # tens of seconds each: the DL runs are read, planned and evaluated
@pytest.mark.integration
@pytest.mark.parametrize(("code", "output"), _blocks())
def test_real_data_example_prints_what_the_page_shows(code, output, tmp_path):
    for folder in FOLDERS:
        (tmp_path / folder).symlink_to(shared_path(folder), target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [line.rstrip() for line in done.stdout.splitlines()]  # the page keeps no trailing blanks
    assert printed == output.splitlines(), f"ppi.md shows\n{output}\nthe code prints\n{done.stdout}"
