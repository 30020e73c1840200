"""Telling files from dataset ids, and loading ir_datasets / PyTerrier datasets with clear errors."""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from .._environment import configure_ir_datasets

IRDS_PREFIX = "irds:"
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
    configure_ir_datasets()
    import ir_datasets

    try:
        ir_datasets.load(dataset_id)
    except KeyError:
        return False
    return True


def load_irds(dataset_id: str, kind: str):
    """``ir_datasets.load(dataset_id)``, or a ValueError suggesting close ids."""
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


def not_loadable(description: str, kind: str, ex: Exception, alternative: str, *, irds: bool) -> ValueError:
    """ValueError for a dataset whose ``kind`` could not be loaded (offline, not cached, ...)."""
    reason = f"{type(ex).__name__}: {ex}"
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
