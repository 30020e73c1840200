"""One zip file of open formats for a saved object, no pickle: a JSON document and numpy arrays.

Shared by :mod:`pyterrier_boot.experiment.storage` (``ExperimentResult.save``) and
:mod:`pyterrier_boot.leaderboards.storage` (``Leaderboard.save``):

* ``<name>.json``: the document: labels, settings, tables (every column, NaN tagged so it reads
  back), provenance, and ``format`` / ``version`` so a reader knows what it opens;
* ``arrays/<key>.npy``: every numeric array in numpy's ``.npy`` format, read with
  ``allow_pickle=False``, so every float comes back bit for bit (label arrays go into the JSON);
* other text members (CSV tables) for reading with any tool, not read back.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._atomic import atomic_file

__all__ = ["json_value", "from_json", "frame_json", "frame_from_json", "ArrayWriter", "read_array", "record",
           "record_fields", "write_archive", "open_archive"]


def json_value(value: Any, *, tagged: bool = True) -> Any:
    """A JSON-able copy of ``value`` (numpy scalars as Python numbers; NaN and infinities as
    ``{"float": "nan"}`` so they read back, or as None when not ``tagged``)."""
    if isinstance(value, dict):
        return {str(k): json_value(v, tagged=tagged) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v, tagged=tagged) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isfinite(value):
            return value
        return {"float": repr(value)} if tagged else None
    return value


def from_json(value: Any) -> Any:
    """The value :func:`json_value` encoded (tagged floats back to floats)."""
    if isinstance(value, dict):
        if set(value) == {"float"}:
            return float(value["float"])
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def frame_json(frame: pd.DataFrame) -> dict:
    """Every column of ``frame`` with its dtype, and its ``attrs`` (the index is not kept)."""
    columns = {}
    for name in frame.columns:
        column = frame[name]
        columns[str(name)] = {"dtype": str(column.dtype), "values": json_value(column.tolist())}
    return {"columns": columns, "attrs": json_value(dict(frame.attrs))}


def frame_from_json(data: dict) -> pd.DataFrame:
    """The frame :func:`frame_json` encoded."""
    frame = pd.DataFrame({
        name: pd.Series(from_json(column["values"]), dtype=column["dtype"])
        for name, column in data["columns"].items()
    })
    frame.attrs.update(from_json(data.get("attrs", {})))
    return frame


class ArrayWriter:
    """Collects the arrays (as ``.npy`` members) of one archive; the document keeps references."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, key: str, value: Any) -> dict | None:
        """A reference to ``value`` stored as ``arrays/<key>.npy`` (labels: in the JSON, not pickled)."""
        if value is None:
            return None
        value = np.asarray(value)
        if value.dtype == object:
            return {"labels": json_value(value.tolist())}
        if key in self.arrays:
            raise ValueError(f"two arrays of the archive are named {key!r}")
        self.arrays[key] = value
        return {"npy": f"arrays/{key}.npy"}


def read_array(archive: zipfile.ZipFile, ref: Any) -> Any:
    """The array :meth:`ArrayWriter.array` referred to (None stays None)."""
    if ref is None:
        return None
    if "labels" in ref:
        return np.array(from_json(ref["labels"]), dtype=object)
    with archive.open(ref["npy"]) as handle:
        return np.load(io.BytesIO(handle.read()), allow_pickle=False)


def record(obj: Any, writer: ArrayWriter, prefix: str) -> dict:
    """Every field of a dataclass: arrays through ``writer`` (as ``<prefix>.<field>``), the rest as JSON."""
    out = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, np.ndarray):
            out[f.name] = {"array": writer.array(f"{prefix}.{f.name}", value)}
        else:
            out[f.name] = {"json": json_value(value)}
    return out


def record_fields(archive: zipfile.ZipFile, entries: dict) -> dict:
    """The field values :func:`record` stored."""
    return {name: read_array(archive, entry["array"]) if "array" in entry else from_json(entry["json"])
            for name, entry in entries.items()}


def write_archive(path: Path, document: Mapping[str, Any], writer: ArrayWriter, *, member: str,
                  texts: Mapping[str, str], what: str) -> Path:
    """Write ``document`` (as ``member``), the writer's arrays and ``texts`` (name -> text) to the
    zip file ``path``, all or nothing (:func:`~pyterrier_boot._atomic.atomic_file`)."""
    with atomic_file(path, what, binary=True) as file, zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, json.dumps(document, indent=1, allow_nan=False))
        for key, value in writer.arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, value, allow_pickle=False)
            archive.writestr(f"arrays/{key}.npy", buffer.getvalue())
        for name, text in texts.items():
            archive.writestr(name, text)
    return path


@contextlib.contextmanager
def open_archive(path: Path, *, member: str, format: str, version: int,
                 what: str) -> Iterator[tuple[zipfile.ZipFile, dict]]:
    """The open archive at ``path`` and its document ``member``, checked to be of ``format`` and
    no newer than ``version``; ValueErrors naming ``'path'`` and ``what`` (``"result"``, ``"leaderboard"``)."""
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ValueError(f"'path': no file '{path}'") from None
    except (zipfile.BadZipFile, IsADirectoryError, OSError) as error:
        raise ValueError(f"'path': '{path}' is not a saved {what} ({error})") from None
    with archive:
        try:
            document = json.loads(archive.read(member))
        except (KeyError, ValueError):
            raise ValueError(f"'path': '{path}' is not a saved {what} (no readable {member})") from None
        if not isinstance(document, dict) or document.get("format") != format \
                or not isinstance(document.get("version"), int):
            raise ValueError(f"'path': '{path}' is not a saved pyterrier-boot {what}")
        if document["version"] > version:
            raise ValueError(f"'path': '{path}' was saved in format version {document['version']}, newer than this "
                             f"pyterrier-boot reads ({version}): upgrade pyterrier-boot")
        yield archive, document
