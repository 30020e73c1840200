"""PyTerrier's own Experiment tests pass with ``pt.Experiment = pt.boot.Experiment`` wherever they
pass with ``pt.Experiment``.

The tests of the installed PyTerrier version are fetched at test time, never copied here: from
``PYTERRIER_SOURCE`` (a checkout of the version's tag) when set, else from the source distribution
on PyPI, else from the tag's archive on GitHub (the sdist lacks ``tests/base_experiment.py`` and the
fixtures). Terrier (Java) is replaced by a PISA index of the same Vaswani fixture
(``pyterrier_suite_plugin.py``). Each suite runs in a subprocess, first with ``pt.Experiment``, then
with ``pt.boot.Experiment``.
"""
import io
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SUITE = ["tests/test_experiment_linear.py", "tests/test_experiment_tree.py", "tests/test_experiment_other.py"]
NEEDED = ["tests/base.py", "tests/base_experiment.py", "tests/fixtures/vaswani_npl/qrels", *SUITE]


def _version():
    from importlib.metadata import version

    return version("pyterrier")


def _complete(root):
    return all((root / p).exists() for p in NEEDED)


def _from_sdist(version, cache):
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    f"pyterrier=={version}", "-d", str(cache)], check=True, capture_output=True, timeout=300)
    archive = next(cache.glob(f"pyterrier-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    return cache / f"pyterrier-{version}"


def _from_github(version, cache):
    url = f"https://codeload.github.com/terrier-org/pyterrier/tar.gz/refs/tags/{version}"
    with urllib.request.urlopen(url, timeout=30) as response:
        data = response.read()
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(cache, filter="data")
    return next(p for p in cache.iterdir() if p.is_dir() and p.name.startswith("pyterrier-") and _complete(p))


@pytest.fixture(scope="module")
def pyterrier_tests(tmp_path_factory):
    """A folder holding PyTerrier's Experiment tests (a package) and our conftest.py."""
    version = _version()
    tried = []
    if os.environ.get("PYTERRIER_SOURCE"):
        root = Path(os.environ["PYTERRIER_SOURCE"])
        tried.append(f"PYTERRIER_SOURCE={root}")
        source = root if _complete(root) else None
    else:
        source = None
        for fetch in (_from_sdist, _from_github):
            try:
                candidate = fetch(version, tmp_path_factory.mktemp(fetch.__name__))
            except Exception as error:  # noqa: BLE001 -- unreachable: say so and try the next source
                tried.append(f"{fetch.__name__}: {type(error).__name__}: {error}")
                continue
            if _complete(candidate):
                source = candidate
                break
            tried.append(f"{fetch.__name__}: lacks tests/base_experiment.py or the Vaswani fixture")
    if source is None:
        pytest.skip(f"PyTerrier {version}'s Experiment tests not available ({'; '.join(tried)}); set "
                    "PYTERRIER_SOURCE to a checkout of its tag")
    work = tmp_path_factory.mktemp("pyterrier_suite")
    shutil.copytree(source / "tests", work / "tests")
    (work / "tests" / "__init__.py").touch()
    shutil.copyfile(Path(__file__).with_name("pyterrier_suite_plugin.py"), work / "tests" / "conftest.py")
    return work


def _outcomes(folder, experiment, index):
    report = folder / f"{experiment}.xml"
    env = {**os.environ, "PTB_EXPERIMENT": experiment, "PTB_PISA_INDEX": str(index),
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    f"--junitxml={report}", *SUITE], cwd=folder, env=env, capture_output=True, timeout=900)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        state = "failed" if failed else "skipped" if skipped else "passed"
        if outcomes.get(name, "passed") == "passed":  # a test with subtests: failed if any failed
            outcomes[name] = state
    return outcomes


def test_pyterrier_experiment_tests_pass_with_pt_boot(pyterrier_tests, tmp_path):
    pytest.importorskip("pyterrier_pisa", reason="the Terrier stand-in is a PISA index")
    index = tmp_path / "vaswani.pisa"
    reference = _outcomes(pyterrier_tests, "pt", index)
    ours = _outcomes(pyterrier_tests, "boot", index)
    passing = {name for name, state in reference.items() if state == "passed"}
    assert len(passing) > 50, f"too few PyTerrier tests pass with pt.Experiment itself: {reference}"
    regressed = sorted(name for name in passing if ours.get(name) != "passed")
    assert not regressed, f"{len(regressed)} of {len(passing)} pass with pt.Experiment but not with ours: {regressed}"
