"""Unwritable environments: a read-only package folder, a HOME that cannot be written, a shared
temporary folder. The numba cache, the ir_datasets home and matplotlib's folder fall back to a
private temporary folder with one message naming the variable to set; explicit settings and
working defaults are left alone. A HOME below a regular file cannot be created even by root, so
these tests hold whoever runs them; the read-only package folder uses a private mount namespace
(root) and skips when none is available."""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import pytest

from pyterrier_boot import BootWarning, _environment

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def no_home(tmp_path, monkeypatch):
    """HOME (and the XDG folders) below a regular file: nothing can be created there."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    home = blocker / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A fresh system temporary folder, so the fallbacks are created where the test can see them."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def fresh_numba(monkeypatch):
    """``numba_cache()`` decides again; numba's configuration is restored afterwards."""
    import numba.core.config as config

    monkeypatch.setattr(_environment, "_numba_cache", None)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    yield config
    os.environ.pop("NUMBA_CACHE_DIR", None)
    config.reload_config()


def _unwritable_package(monkeypatch, tmp_path):
    blocker = tmp_path / "package-file"
    blocker.write_text("")
    monkeypatch.setattr(_environment, "_PACKAGE", blocker / "pyterrier_boot")


def test_numba_falls_back_to_a_private_temporary_folder(no_home, private_tmp, fresh_numba, monkeypatch, tmp_path):
    _unwritable_package(monkeypatch, tmp_path)
    with pytest.warns(BootWarning, match=r"numba cannot cache compiled kernels in .* \(not writable\): caching them "
                                         r"in .* instead. Set NUMBA_CACHE_DIR to choose the folder") as record:
        assert _environment.numba_cache() is True
    assert len(record) == 1
    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.is_relative_to(private_tmp) and folder.is_dir()
    assert fresh_numba.CACHE_DIR == str(folder)  # numba re-read its configuration
    if hasattr(os, "getuid"):
        assert folder.parent.stat().st_mode & 0o077 == 0  # private
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _environment.numba_cache() is True  # decided once: no second message


def test_numba_default_is_left_alone(fresh_numba):
    before = fresh_numba.CACHE_DIR
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _environment.numba_cache() is True
    assert "NUMBA_CACHE_DIR" not in os.environ
    assert fresh_numba.CACHE_DIR == before


def test_numba_explicit_cache_dir_is_honoured(no_home, fresh_numba, monkeypatch, tmp_path):
    _unwritable_package(monkeypatch, tmp_path)
    chosen = tmp_path / "my-numba-cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(chosen))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _environment.numba_cache() is True
    assert os.environ["NUMBA_CACHE_DIR"] == str(chosen)


def test_numba_unwritable_explicit_dir_falls_back_naming_it(no_home, private_tmp, fresh_numba, monkeypatch,
                                                            tmp_path):
    _unwritable_package(monkeypatch, tmp_path)
    bad = tmp_path / "package-file" / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(bad))
    with pytest.warns(BootWarning, match=rf"NUMBA_CACHE_DIR='{bad}'"):
        assert _environment.numba_cache() is True
    assert Path(os.environ["NUMBA_CACHE_DIR"]).is_relative_to(private_tmp)


def test_numba_without_any_writable_folder_compiles_without_cache(no_home, fresh_numba, monkeypatch, tmp_path):
    _unwritable_package(monkeypatch, tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "package-file" / "tmp"))
    with pytest.warns(BootWarning, match=r"compiled in every process \(slower start\). Set NUMBA_CACHE_DIR"):
        assert _environment.numba_cache() is False
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_shared_temporary_folder_is_not_reused(private_tmp):
    """A folder of the expected name that others can write into could hold planted cache files."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    if uid is None:
        pytest.skip("no user ids on this platform")
    shared = private_tmp / f"pyterrier_boot-{uid}"
    shared.mkdir()
    shared.chmod(0o777)
    folder = _environment._private_temp_folder("numba")
    assert folder is not None and not folder.is_relative_to(shared)


@pytest.fixture
def fresh_configuration(monkeypatch):
    monkeypatch.setattr(_environment, "_configured", set())


def test_ir_datasets_home_falls_back(no_home, private_tmp, fresh_configuration, monkeypatch):
    monkeypatch.delenv("IR_DATASETS_HOME", raising=False)
    monkeypatch.delitem(sys.modules, "ir_datasets", raising=False)
    with pytest.warns(BootWarning, match=r"ir_datasets cannot write its cache folder .*\.ir_datasets: using .* "
                                         r"instead .*Set IR_DATASETS_HOME to choose the folder"):
        _environment.configure_ir_datasets()
    assert Path(os.environ["IR_DATASETS_HOME"]).is_relative_to(private_tmp)
    os.environ.pop("IR_DATASETS_HOME")


@pytest.mark.parametrize("case", ["explicit", "writable home", "already imported"])
def test_ir_datasets_home_is_left_alone(case, tmp_path, fresh_configuration, monkeypatch):
    monkeypatch.delenv("IR_DATASETS_HOME", raising=False)
    if case == "explicit":
        monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds"))
    if case == "writable home":
        monkeypatch.setenv("HOME", str(tmp_path))
    if case != "already imported":
        monkeypatch.delitem(sys.modules, "ir_datasets", raising=False)
    else:  # too late to change ir_datasets' home, even when it is unwritable
        monkeypatch.setitem(sys.modules, "ir_datasets", sys.modules.get("ir_datasets", object()))
        (tmp_path / "a-file").write_text("")
        monkeypatch.setenv("HOME", str(tmp_path / "a-file" / "home"))
    before = os.environ.get("IR_DATASETS_HOME")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _environment.configure_ir_datasets()
    assert os.environ.get("IR_DATASETS_HOME") == before


def test_matplotlib_folder_falls_back_silently(no_home, private_tmp, fresh_configuration, monkeypatch):
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.delitem(sys.modules, "matplotlib", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _environment.configure_matplotlib()
    assert Path(os.environ["MPLCONFIGDIR"]).is_relative_to(private_tmp)
    os.environ.pop("MPLCONFIGDIR")


def _subprocess_env(home):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "IR_DATASETS_HOME", "MPLCONFIGDIR")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    return env


def test_mistyped_qrels_name_with_unwritable_home_is_a_file_error(tmp_path):
    """``read_qrels("qrels")`` asks ir_datasets whether it knows the id: with HOME unwritable that
    used to be a PermissionError from ir_datasets' import; now a FileNotFoundError naming the file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = textwrap.dedent("""
        import pyterrier_boot as ptb
        try:
            ptb.read_qrels("no-such-qrels")
        except FileNotFoundError as error:
            print("FileNotFoundError:", error)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_subprocess_env(blocker / "home"), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "FileNotFoundError: qrels file not found: 'no-such-qrels'" in done.stdout
    assert "Set IR_DATASETS_HOME" in done.stderr
    assert "Traceback" not in done.stderr


def _can_unshare():
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return done.returncode == 0


@pytest.mark.slow  # 5 s: compiles the kernels in a fresh read-only environment (.ci/readonly-install does too)
@pytest.mark.skipif(not _can_unshare(), reason="needs root and unshare -m to mount the package read-only")
def test_read_only_package_and_home_run_the_kernels(tmp_path):
    """The package folder mounted read-only (root ignores permission bits) and HOME unwritable:
    the kernels compile, cache in a temporary folder, and give the same value as with a cache."""
    copy = tmp_path / "src"
    shutil.copytree(REPO / "pyterrier_boot", copy / "pyterrier_boot",
                    ignore=shutil.ignore_patterns("__pycache__"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    script = tmp_path / "check.py"
    script.write_text(textwrap.dedent("""
        import pandas as pd
        import pyterrier_boot as ptb
        run = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
        qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["b", "c"], "label": [1, 1]})
        res = ptb.CorpusBootstrap(qrels, n_images=20, rng=1, verbose=False).evaluate({"r": run}, ["AP"])
        print("AP", ptb.evaluate(run, qrels, ["AP"])["value"].mean())
    """))
    command = (f"mount --bind {copy} {copy} && mount -o remount,bind,ro {copy} && "
               f"{sys.executable} {script}")
    env = _subprocess_env(blocker / "home")
    env.update(PYTHONPATH=str(copy), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(["unshare", "-m", "sh", "-c", command], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "AP 0.75" in done.stdout
    assert done.stderr.count("Set NUMBA_CACHE_DIR to choose the folder") == 1, done.stderr
    assert "no locator available" not in done.stderr
    assert any((tmp_path / "tmp").rglob("*.nbi")), "the kernels were not cached in the temporary folder"
