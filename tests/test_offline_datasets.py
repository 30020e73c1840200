"""Offline, a dataset that is not in ir_datasets' cache fails with a message saying what to do
(point IR_DATASETS_HOME at a copy of a cache), not with ir_datasets' raw "All download sources
failed": the command line, the readers and the example script."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# every connection fails at once, whatever this machine's network does
NO_NETWORK = """
import socket, runpy, sys
def refuse(*args, **kwargs):
    raise OSError("network disabled for this test")
socket.socket.connect = refuse
socket.getaddrinfo = refuse
socket.create_connection = refuse
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_example_script_says_how_to_run_offline(tmp_path):
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "empty_cache"), "IR_DATASETS_DL_TRIES": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", NO_NETWORK, str(ROOT / "examples" / "compare_rerankers_vaswani.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("could not load irds:vaswani") and "set IR_DATASETS_HOME to a folder holding a copy " \
        "of an ir_datasets cache" in last, last
