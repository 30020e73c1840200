"""Saving an :class:`~pyterrier_boot.ExperimentResult` to one file and reading it back: the
functions behind :meth:`ExperimentResult.save <pyterrier_boot.ExperimentResult.save>` and
:func:`pyterrier_boot.load_result`. The file (one zip of JSON and ``.npy`` arrays, no pickle) is
described in :mod:`pyterrier_boot.experiment.archive`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .archive import package_versions
from .result import ExperimentResult

if TYPE_CHECKING:
    import os
    from pathlib import Path

__all__ = ["save_result", "load_result", "package_versions"]


def save_result(result: ExperimentResult, path: str | os.PathLike) -> Path:
    """Write ``result`` (an :class:`~pyterrier_boot.ExperimentResult`) to the zip file ``path``
    (parent folders created; written beside it and renamed, so never half-written)."""
    if not isinstance(result, ExperimentResult):
        raise TypeError(f"'result' must be an ExperimentResult, got {type(result).__name__}")
    return result.save(path)


def load_result(path: str | os.PathLike) -> ExperimentResult:
    """Read an :class:`~pyterrier_boot.ExperimentResult` written by ``save`` / :func:`save_result`."""
    return ExperimentResult.load(path)
