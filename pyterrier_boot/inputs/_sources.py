"""Telling files from dataset ids, and loading ir_datasets / PyTerrier datasets with clear errors."""
from __future__ import annotations

import contextlib
import difflib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from .._environment import configure_ir_datasets

IRDS_PREFIX = "irds:"
# what ir_datasets logs while it retries and gives up a download: our error says what failed
_DOWNLOAD_CHATTER = ("download error", "Download failed")
# a missing path with one of these suffixes is a mistyped file, never an ir_datasets id
_FILE_SUFFIXES = {".txt", ".gz", ".tsv", ".csv", ".trec", ".qrels", ".run", ".res", ".xml", ".bz2", ".lz4"}


def split_source(source, kind: str):
    """Classify a str/PathLike ``source`` as ``("file", path)`` or ``("irds", dataset id)``.

    An existing path is a file. ``"irds:<id>"`` is an ir_datasets id. Another string is an
    ir_datasets id when ir_datasets knows it (``"vaswani"``); else it is a missing file.
    """
    text = os.fspath(source)
    if os.path.exists(text) or not isinstance(source, str):
        return "file", text
    if text.startswith(IRDS_PREFIX):
        return "irds", text[len(IRDS_PREFIX):]
    path = Path(text)
    looks_like_path = path.is_absolute() or text.startswith((".", "~")) or path.suffix.lower() in _FILE_SUFFIXES
    if not looks_like_path and _irds_knows(text):
        return "irds", text
    raise FileNotFoundError(
        f"{kind} file not found: '{text}'"
        + ("" if looks_like_path else " (nor is it an ir_datasets id; write 'irds:<id>' for a dataset)")
    )


def _irds_knows(dataset_id: str) -> bool:
    try:
        with irds_reading():
            import ir_datasets

            ir_datasets.load(dataset_id)
    except KeyError:
        return False
    return True


@contextlib.contextmanager
def irds_reading() -> Iterator[None]:
    """ir_datasets at work for one reading, failing fast and leaving nothing behind: each download
    source is tried once (``IR_DATASETS_DL_TRIES`` is honoured when set), its retry and failure
    messages are dropped (the error raised says what failed), and when the reading fails, the
    folders ir_datasets created meanwhile and left empty are removed (its import alone creates
    some twenty in ``IR_DATASETS_HOME``, or ``~/.ir_datasets``)."""
    home = _irds_home()
    before = _folders(home)
    configure_ir_datasets()  # may create ~/.ir_datasets, or move the cache to a temporary folder
    if _irds_home() != home:
        home = _irds_home()
        before = _folders(home)
    logger, tries = logging.getLogger("ir_datasets"), os.environ.get("IR_DATASETS_DL_TRIES")
    logger.addFilter(_drop_download_chatter)
    if tries is None:
        os.environ["IR_DATASETS_DL_TRIES"] = "1"
    try:
        yield
    except BaseException:
        _remove_new_empty_folders(home, before)
        raise
    finally:
        logger.removeFilter(_drop_download_chatter)
        if tries is None:
            os.environ.pop("IR_DATASETS_DL_TRIES", None)


def _drop_download_chatter(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith(_DOWNLOAD_CHATTER)


def _irds_home() -> Path | None:
    """The folder ir_datasets keeps its cache in (its own rule), or None without a home folder."""
    try:
        return Path(os.environ.get("IR_DATASETS_HOME", Path.home() / ".ir_datasets"))
    except RuntimeError:
        return None


def _folders(home: Path | None) -> set[str]:
    """Every folder under ``home``, ``home`` included (empty when it does not exist)."""
    if home is None or not home.is_dir():
        return set()
    return {str(home), *(os.path.join(top, name) for top, names, _ in os.walk(home) for name in names)}


def _remove_new_empty_folders(home: Path | None, before: set[str]) -> None:
    """Remove the folders under ``home`` (``home`` too) that were not in ``before`` and are empty,
    deepest first; a folder holding anything is kept."""
    for folder in sorted(_folders(home) - before, key=len, reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def load_irds(dataset_id: str, kind: str):
    """``ir_datasets.load(dataset_id)``, or a ValueError suggesting close ids (inside
    :func:`irds_reading`)."""
    configure_ir_datasets()
    import ir_datasets

    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        close = difflib.get_close_matches(dataset_id, list(ir_datasets.registry), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(repr(IRDS_PREFIX + c) for c in close)}?" if close else ""
        raise ValueError(f"unknown ir_datasets id {IRDS_PREFIX + dataset_id!r} for the {kind}.{hint}") from None


def irds_id(dataset) -> str | None:
    """The id of an ir_datasets dataset object, when it knows it."""
    try:
        return dataset.dataset_id()
    except Exception:  # objects built by hand or older versions have no id
        return None


def irds_docs_count(dataset) -> int | None:
    """Documents in an ir_datasets dataset (its docs_count(), falling back on ir_datasets'
    metadata), or None when unknown; never downloads or raises."""
    try:
        if not dataset.has_docs():
            return None
        count = dataset.docs_count()
    except Exception:  # docs_count() may need files that are not there
        return None
    return int(count) if count else None


def _failed_downloads(ex: Exception) -> str | None:
    """ir_datasets' ``RuntimeError('All download sources failed', [(source, error), ...])`` in
    short: each source's host and error type; None for any other error."""
    from urllib.parse import urlparse

    if not (isinstance(ex, RuntimeError) and len(ex.args) == 2 and ex.args[0] == "All download sources failed"
            and isinstance(ex.args[1], list)):
        return None
    tried = [f"{urlparse(str(getattr(source, 'url', ''))).netloc or type(source).__name__} "
             f"({type(error).__name__})" for source, error in ex.args[1]]
    return "no download source answered: " + ", ".join(tried)


def not_loadable(description: str, kind: str, ex: Exception, alternative: str, *, irds: bool) -> ValueError:
    """ValueError for a dataset whose ``kind`` could not be loaded (offline, not cached, ...)."""
    reason = _failed_downloads(ex) or f"{type(ex).__name__}: {ex}"
    if len(reason) > 300:
        reason = reason[:297] + "..."
    where, offline = "the local cache", ""
    if irds:
        where = f"the ir_datasets cache '{os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')}'"
        offline = (" Without internet, set IR_DATASETS_HOME to a folder holding a copy of an ir_datasets "
                   "cache that has this dataset (e.g. the ~/.ir_datasets of a machine that downloaded it) "
                   "before starting Python or the command.")
    return ValueError(
        f"could not load the {kind} of {description}: they are not available offline (no copy in "
        f"{where}) and fetching them failed ({reason}).{offline} {alternative}"
    )
