"""Offline, a dataset that is not in ir_datasets' cache fails fast with one message saying what to do
(point IR_DATASETS_HOME at a copy of a cache), not with ir_datasets' retries and raw "All download
sources failed", and leaves no folder behind: the command line, the readers and the example script."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# every connection fails at once, whatever this machine's network does; the attempts are counted
NO_NETWORK = """
import atexit, os, socket, runpy, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(args[:1])
    raise OSError("network disabled for this test")
socket.socket.connect = refuse
socket.getaddrinfo = refuse
socket.create_connection = refuse
atexit.register(lambda: open(os.environ["ATTEMPTS_FILE"], "w").write(str(len(attempts))))
target, sys.argv = sys.argv[1], sys.argv[1:]
if target.endswith(".py"):
    runpy.run_path(target, run_name="__main__")
else:
    exec(target)
"""
OFFLINE_ADVICE = "set IR_DATASETS_HOME to a folder holding a copy of an ir_datasets cache"


def _offline(tmp_path, *argv, home="irds_home"):
    """Run ``argv`` (a script, or Python code) without network, ir_datasets' cache in
    ``tmp_path/home`` (absent), or with ``home=None`` in the default ``~/.ir_datasets`` of a
    temporary HOME; returns the finished process and the connection attempts made."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "ATTEMPTS_FILE": str(tmp_path / "attempts"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "MPLBACKEND": "Agg"}
    env.pop("IR_DATASETS_DL_TRIES", None)
    env.pop("IR_DATASETS_HOME", None)
    if home is not None:
        env["IR_DATASETS_HOME"] = str(tmp_path / home)
    (tmp_path / "home").mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", NO_NETWORK, *map(str, argv)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    return done, int((tmp_path / "attempts").read_text())


def _left(tmp_path):
    return sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
                  if p.name not in ("attempts", "home", "runs", "run.txt"))


@pytest.fixture
def run_file(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "run.txt").write_text("1 Q0 d1 1 2.0 bm25\n1 Q0 d2 2 1.0 bm25\n")
    return tmp_path / "runs"


@pytest.mark.parametrize("home", ["irds_home", None], ids=["IR_DATASETS_HOME", "~/.ir_datasets"])
def test_command_line_fails_fast_with_one_line_and_leaves_nothing(tmp_path, run_file, home):
    """Issue 33: six '[INFO] download error ... Retrying' lines came before our error, and about 19
    empty folders were left in the cache folder."""
    code = "from pyterrier_boot.cli import main; sys.exit(main(sys.argv[1:]))"
    done, attempts = _offline(tmp_path, code, "evaluate", "--qrels", "irds:vaswani", run_file, "--quiet", home=home)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: could not load the qrels of ir_datasets dataset 'irds:vaswani'")
    assert OFFLINE_ADVICE in lines[0] and "no download source answered" in lines[0]
    assert attempts <= 2  # one attempt per download source (Vaswani has two), no retries
    assert _left(tmp_path) == [] and not any((tmp_path / "home").iterdir())


def test_readers_fail_fast_and_leave_the_cache_as_it_was(tmp_path):
    (tmp_path / "irds_home" / "mine").mkdir(parents=True)  # a cache folder the user already had
    (tmp_path / "irds_home" / "mine" / "notes.txt").write_text("kept")
    (tmp_path / "irds_home" / "empty").mkdir()
    before = _left(tmp_path)
    code = ("import pyterrier_boot as ptb\n"
            "for read in (ptb.read_qrels, ptb.read_topics):\n"
            "    try:\n"
            "        read('irds:vaswani')\n"
            "    except ValueError as error:\n"
            "        print(error)\n")
    done, attempts = _offline(tmp_path, code)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    printed = done.stdout.strip().splitlines()
    assert len(printed) == 2 and all(OFFLINE_ADVICE in line for line in printed)
    assert attempts <= 4  # the qrels and the topics: one attempt per source each
    assert _left(tmp_path) == before


def test_example_script_says_how_to_run_offline(tmp_path):
    done, _ = _offline(tmp_path, ROOT / "examples" / "compare_rerankers_vaswani.py")
    assert done.returncode == 1, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith("could not load the topics of 'irds:vaswani'") and OFFLINE_ADVICE in lines[0]
    assert _left(tmp_path) == []
