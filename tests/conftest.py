"""Shared fixtures: where the real evaluation data lives, and skipping when it is absent."""
import functools
import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data"
IRDS_SOURCE = SHARED / "irds_home"

# set by pytest_configure: the session's private ir_datasets home
_irds = {"home": None, "imported_early": False}


def shared_path(*parts):
    """Path inside ../shared/data, or skip the test saying what is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real evaluation data not found at {path} (set PYTERRIER_BOOT_SHARED to the shared folder)")
    return path


COLLECTIONS = {"dl2020": ("trec-dl-2020-passage", "qrels.dl20-passage.txt"),
               "dl2019": ("trec-dl-2019-passage", "qrels.dl19-passage.txt"),
               "robust2003": ("trec-robust2003", "qrels.robust2003.txt.gz")}


def real_collection(name):
    """``(runs, qrels frame)`` of a real TREC collection (``COLLECTIONS``), read once per test process
    and shared by every test that asks (tests must not modify them); skips when the data is absent."""
    folder, qrels = COLLECTIONS[name]
    shared_path(folder, qrels)
    return _read_collection(folder, qrels)


@functools.cache
def _read_collection(folder, qrels):
    from pyterrier_boot import read_qrels, read_runs

    return read_runs(DATA / folder / "runs"), read_qrels(DATA / folder / qrels).frame


def write_trec(runs, qrels, folder):
    """``runs`` (name -> frame) as TREC run files ``folder/runs/<name>.txt`` (tag = name, ranked by
    score within each topic, topics in their order in the run) and ``qrels`` as ``folder/qrels.txt``;
    returns ``folder``."""
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    for name, run in runs.items():
        lines = []
        for qid, group in run.groupby("qid", sort=False):
            group = group.sort_values("score", ascending=False)
            lines += [f"{qid} Q0 {d} {r} {s!r} {name}" for r, (d, s) in
                      enumerate(zip(group["docno"], group["score"], strict=True), start=1)]
        (folder / "runs" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in
                                              zip(qrels["qid"], qrels["docno"], qrels["label"], strict=True)))
    return folder


def small_collection(seed=1, n_topics=6, systems="abc"):
    """A small simulated collection (runs named by the letters of ``systems``) and its qrels."""
    from pyterrier_boot import simulate_collection

    sim = simulate_collection(n_topics=n_topics, n_systems=len(systems), corpus_size=3000, depth=50, pool_depth=20,
                              rng=seed)
    return dict(zip(systems, sim.runs.values(), strict=True)), sim.qrels


@pytest.fixture
def shared_data():
    """The ``../shared/data`` folder (skips when absent)."""
    return shared_path()


def pytest_configure(config):
    """Point ir_datasets at a private, writable copy of ``../shared/irds_home`` for the session.

    ir_datasets fixes each dataset's paths when it is imported, so IR_DATASETS_HOME must be set
    before any test imports it. Tests thus never read or write the user's ``~/.ir_datasets``.
    """
    _irds["imported_early"] = "ir_datasets" in sys.modules
    home = Path(tempfile.mkdtemp(prefix="pyterrier_boot_irds_"))
    if IRDS_SOURCE.is_dir():
        for path in IRDS_SOURCE.rglob("*"):  # copy contents only: the shared copy is read-only
            target = home / path.relative_to(IRDS_SOURCE)
            if path.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
    _irds["home"] = home
    os.environ["IR_DATASETS_HOME"] = str(home)


def pytest_runtest_setup(item):
    """Freeze the objects alive before each test (modules of pyterrier, numba, scipy, hypothesis, ...)
    out of the garbage collector's reach: statsmodels' Holm correction calls ``gc.collect()`` on every
    call, which otherwise walks that whole heap (up to seconds per call in a full session). Cheap
    (a list splice); only cycles left uncollected by the previous tests stay in memory."""
    gc.freeze()


def pytest_unconfigure(config):
    if _irds["home"] is not None:
        shutil.rmtree(_irds["home"], ignore_errors=True)


@pytest.fixture(scope="session")
def irds_home():
    """The session's ir_datasets home, holding Vaswani offline (skips when the copy is absent)."""
    if not (IRDS_SOURCE / "vaswani").is_dir():
        pytest.skip(f"offline ir_datasets copy not found at {IRDS_SOURCE} (set PYTERRIER_BOOT_SHARED)")
    if _irds["imported_early"]:
        pytest.skip("ir_datasets was imported before the test session could set IR_DATASETS_HOME")
    return _irds["home"]


@pytest.fixture(scope="module")
def demo_constants():
    """The demo with few resamples, images and truth topics (its output's form, quickly)."""
    from pyterrier_boot.cli import demo

    saved = demo.TOPIC_RESAMPLES, demo.CORPUS_IMAGES, demo.TRUTH_TOPICS
    demo.TOPIC_RESAMPLES, demo.CORPUS_IMAGES, demo.TRUTH_TOPICS = 200, 50, 50
    yield
    demo.TOPIC_RESAMPLES, demo.CORPUS_IMAGES, demo.TRUTH_TOPICS = saved
