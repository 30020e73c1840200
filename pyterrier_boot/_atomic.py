"""Writing a file all or nothing: into a temporary file beside it, renamed into place at the end."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@contextlib.contextmanager
def atomic_file(path: Path, what: str, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A file to write ``path`` through: created beside it (parent folders made), it replaces ``path``
    when the block ends normally, with an ordinary new file's permissions, and is removed otherwise,
    so ``path`` is never left half-written. An OSError becomes a ValueError ``cannot <what> '<path>'``."""
    partial = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        with os.fdopen(handle, "wb" if binary else "w", encoding=None if binary else "utf-8") as file:
            yield file
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(partial, 0o666 & ~umask)  # mkstemp's file is private; this one is an ordinary file
        os.replace(partial, path)
    except OSError as error:
        raise ValueError(f"cannot {what} '{path}': {error.strerror or error}") from None
    finally:
        if partial is not None and os.path.exists(partial):
            os.unlink(partial)
