"""Saving an :class:`~pyterrier_boot.ExperimentResult` to one file and reading it back: the
functions behind :func:`pyterrier_boot.load_result`, and :func:`encode_result` /
:func:`decode_result`, which put a result into another archive's document and take it out (a saved
leaderboard holds one). The file (one zip of JSON and ``.npy`` arrays, no pickle) is described in
:mod:`pyterrier_boot.experiment.archive`; this module builds on the result, which does not import it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .archive import encode_fields, package_versions
from .result import ExperimentResult

if TYPE_CHECKING:
    import os
    import zipfile
    from pathlib import Path

    from .._archive import ArrayWriter

__all__ = ["save_result", "load_result", "encode_result", "decode_result", "package_versions"]


def _check(result: object) -> None:
    if not isinstance(result, ExperimentResult):
        raise TypeError(f"'result' must be an ExperimentResult, got {type(result).__name__}")


def encode_result(result: ExperimentResult, writer: ArrayWriter) -> dict:
    """The document of ``result`` (an :class:`~pyterrier_boot.ExperimentResult`): keys ``result``,
    ``plan``, ``corpus`` and ``comparisons``, its arrays given to ``writer``."""
    _check(result)
    return encode_fields(result, writer)


def decode_result(archive: zipfile.ZipFile, doc: dict) -> ExperimentResult:
    """The :class:`~pyterrier_boot.ExperimentResult` that :func:`encode_result` put into ``doc``."""
    return ExperimentResult.decode(archive, doc)


def save_result(result: ExperimentResult, path: str | os.PathLike) -> Path:
    """Write ``result`` (an :class:`~pyterrier_boot.ExperimentResult`) to the zip file ``path``
    (parent folders created; written beside it and renamed, so never half-written)."""
    _check(result)
    return result.save(path)


def load_result(path: str | os.PathLike) -> ExperimentResult:
    """Read an :class:`~pyterrier_boot.ExperimentResult` written by ``save`` / :func:`save_result`."""
    return ExperimentResult.load(path)
