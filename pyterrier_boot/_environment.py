"""Writable places for the caches of numba, ir_datasets and matplotlib (private).

A read-only installation (site-packages not writable, HOME unwritable or missing: containers,
shared clusters, CI) must still run. Each cache keeps its usual place when that place is writable,
and honours its own variable when set (``NUMBA_CACHE_DIR``, ``IR_DATASETS_HOME``, ``MPLCONFIGDIR``).
Only when neither works does the cache move to a private folder under the system's temporary
directory, with one :class:`~pyterrier_boot.BootWarning` saying where and which variable to set.
Nothing is changed when the defaults work.
"""
from __future__ import annotations

import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from ._warnings import BootWarning

__all__ = ["numba_cache", "inner_kernel", "configure_ir_datasets", "configure_matplotlib"]

_PACKAGE = Path(__file__).resolve().parent
_numba_cache: bool | None = None
_configured: set[str] = set()


def _writable(folder: Path | str) -> bool:
    """Whether a file can be created in ``folder`` (created if missing), as the caches test it."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def _private_temp_folder(name: str) -> Path | None:
    """``<tmp>/pyterrier_boot-<uid>/<name>``, reused across runs only when it is ours and private
    (a folder another user could write into could plant cache files we load), else a fresh one."""
    base = Path(tempfile.gettempdir())
    uid = os.getuid() if hasattr(os, "getuid") else None
    root = base / (f"pyterrier_boot-{uid}" if uid is not None else "pyterrier_boot")
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        info = root.lstat()
        private = (not root.is_symlink() and (uid is None or info.st_uid == uid)
                   and (os.name == "nt" or info.st_mode & 0o077 == 0))
        folder = root / name if private else Path(tempfile.mkdtemp(prefix=f"pyterrier_boot-{name}-"))
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        try:
            folder = Path(tempfile.mkdtemp(prefix=f"pyterrier_boot-{name}-"))
        except OSError:
            return None
    return folder if _writable(folder) else None


def _tell(message: str) -> None:
    warnings.warn(message, BootWarning, stacklevel=3)


def _numba_user_cache() -> str | None:
    try:  # numba's own choice of the user-wide cache folder (~/.cache/numba on Linux)
        from numba.misc.appdirs import AppDirs
    except ImportError:  # pragma: no cover - numba layout changed
        return None
    try:
        return AppDirs(appname="numba", appauthor=False).user_cache_dir
    except Exception:  # pragma: no cover - no home folder at all
        return None


def inner_kernel(**options: Any) -> Any:
    """``numba.njit``, cached as :func:`numba_cache` says, for a kernel called only by other kernels,
    never from Python: numba then builds no CPython or cfunc wrapper for it, wrappers that cost
    about as much to compile as the kernels they wrap (a quarter of ``evaluate``'s first call with
    an empty numba cache)."""
    from numba import njit

    options.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)  # not in numba's type stubs
    return njit(cache=numba_cache(), **options)


def numba_cache() -> bool:
    """The ``cache=`` flag of our numba kernels; call before they are decorated.

    numba caches a kernel in ``NUMBA_CACHE_DIR`` when set, else in the ``__pycache__`` beside its
    source, else in the user-wide cache folder, and raises "no locator available" when none is
    writable. When none is, ``NUMBA_CACHE_DIR`` is pointed at a private temporary folder (and
    numba's configuration re-read, as numba reads it at import); when not even that is writable,
    the kernels are compiled in every process without a cache (slower start, same results).
    """
    global _numba_cache
    if _numba_cache is not None:
        return _numba_cache
    explicit = os.environ.get("NUMBA_CACHE_DIR", "")
    candidates = [explicit] if explicit else []
    candidates += [str(_PACKAGE / "measures" / "__pycache__"), str(_PACKAGE / "corpus" / "__pycache__")]
    in_tree_ok = all(_writable(c) for c in candidates[len(candidates) - 2:])
    if (explicit and _writable(explicit)) or in_tree_ok:
        _numba_cache = True
        return True
    user = _numba_user_cache()
    if user and _writable(user):
        _numba_cache = True
        return True
    folder = _private_temp_folder("numba")
    where = f"NUMBA_CACHE_DIR={explicit!r}, " if explicit else ""
    if folder is None:
        _tell(f"numba cannot cache pyterrier_boot's compiled kernels ({where}{_PACKAGE} and "
              f"{user or 'the user cache folder'} are not writable, nor is {tempfile.gettempdir()}): they "
              "are compiled in every process (slower start). Set NUMBA_CACHE_DIR to a writable folder.")
        _numba_cache = False
        return False
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba.core.config" in sys.modules:  # numba read its configuration at import: re-read it
        sys.modules["numba.core.config"].reload_config()
    _tell(f"numba cannot cache compiled kernels in {where}{_PACKAGE} or {user or 'the user cache folder'} "
          f"(not writable): caching them in {folder} instead. Set NUMBA_CACHE_DIR to choose the folder.")
    _numba_cache = True
    return True


def configure_ir_datasets() -> None:
    """Point ``IR_DATASETS_HOME`` at a private temporary folder when it is unset and
    ``~/.ir_datasets`` cannot be created (ir_datasets raises at import then); call before
    ``import ir_datasets``."""
    if "ir_datasets" in _configured:
        return
    _configured.add("ir_datasets")
    if os.environ.get("IR_DATASETS_HOME") or "ir_datasets" in sys.modules:
        return
    try:
        home = Path.home() / ".ir_datasets"
    except RuntimeError:  # no home folder
        home = None
    if home is not None and _writable(home):
        return
    folder = _private_temp_folder("ir_datasets")
    if folder is None:
        return  # ir_datasets' own error says what it could not create
    os.environ["IR_DATASETS_HOME"] = str(folder)
    _tell(f"ir_datasets cannot write its cache folder {home or '~/.ir_datasets'}: using {folder} "
          "instead (downloads are not kept across sessions). Set IR_DATASETS_HOME to choose the folder.")


def configure_matplotlib() -> None:
    """Point ``MPLCONFIGDIR`` at a private temporary folder when it is unset and matplotlib's
    default folder is not writable (matplotlib would print two lines about it); call before
    ``import matplotlib``."""
    if "matplotlib" in _configured:
        return
    _configured.add("matplotlib")
    if os.environ.get("MPLCONFIGDIR") or "matplotlib" in sys.modules:
        return
    try:
        default = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "matplotlib"
    except RuntimeError:
        default = None
    if default is not None and _writable(default):
        return
    folder = _private_temp_folder("matplotlib")
    if folder is not None:
        os.environ["MPLCONFIGDIR"] = str(folder)
