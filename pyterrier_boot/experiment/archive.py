"""The file a saved :class:`~pyterrier_boot.ExperimentResult` is: one zip archive of open
formats, no pickle.

* ``result.json``: labels, settings, the comparison table (every column, NaN as ``null``),
  what produced the result (``provenance``: test, correction, resample counts, the rng's seed or
  state, package versions) and the format version;
* ``arrays/<name>.npy``: every numeric array (per-topic values, intervals, bootstrap
  distributions, the resample plan, the corpus images), in numpy's ``.npy`` format, read with
  ``allow_pickle=False``, so every float comes back bit for bit;
* ``table.csv``, ``perquery.csv``: the ``pt.Experiment`` table and the per-topic values, for
  reading with any tool (not read back).

This module knows the format and the fields, not the result class: :meth:`ExperimentResult.save
<pyterrier_boot.ExperimentResult.save>` hands it the fields, and :meth:`~pyterrier_boot.ExperimentResult.load`
builds the result from what :func:`read_archive` returns, so the result and its file read in one
direction (the result imports this module, never the other way).
"""
from __future__ import annotations

import io
import json
import math
import os
import zipfile
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._atomic import atomic_file

__all__ = ["FORMAT", "VERSION", "package_versions", "json_value", "write_archive", "read_archive"]

FORMAT = "pyterrier-boot-result"
#: 2: the corpus result keeps ``found`` (the empirical-Bayes variance); version-1 files load without it.
VERSION = 2
_PACKAGES = ("pyterrier_boot", "numpy", "pandas", "scipy", "pyterrier", "ir_measures")


def package_versions() -> dict[str, str | None]:
    """Versions of the packages whose code produced a result (None where one is not installed)."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in _PACKAGES:
        if name == "pyterrier_boot":
            from .. import __version__

            out[name] = __version__
            continue
        try:
            out[name] = metadata.version({"pyterrier": "python-terrier"}.get(name, name))
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


# ---------------------------------------------------------------- encoding


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


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"float"}:
            return float(value["float"])
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def _frame_json(frame: pd.DataFrame) -> dict:
    columns = {}
    for name in frame.columns:
        column = frame[name]
        values = column.tolist()
        columns[str(name)] = {"dtype": str(column.dtype), "values": json_value(values)}
    return {"columns": columns, "attrs": json_value(dict(frame.attrs))}


def _frame_from_json(data: dict) -> pd.DataFrame:
    frame = pd.DataFrame({
        name: pd.Series(_from_json(column["values"]), dtype=column["dtype"])
        for name, column in data["columns"].items()
    })
    frame.attrs.update(_from_json(data.get("attrs", {})))
    return frame


class _Writer:
    """Collects JSON and arrays (as ``.npy`` members) for one archive."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, key: str, value: np.ndarray | None) -> dict | None:
        if value is None:
            return None
        value = np.asarray(value)
        if value.dtype == object:  # labels: JSON, not pickle
            return {"labels": json_value(value.tolist())}
        self.arrays[key] = value
        return {"npy": f"arrays/{key}.npy"}


def _read_array(archive: zipfile.ZipFile, ref: Any) -> Any:
    if ref is None:
        return None
    if "labels" in ref:
        return np.array(_from_json(ref["labels"]), dtype=object)
    with archive.open(ref["npy"]) as handle:
        return np.load(io.BytesIO(handle.read()), allow_pickle=False)


def _record(obj: Any, writer: _Writer, prefix: str) -> dict:
    """Every field of a dataclass: arrays through ``writer``, the rest as JSON."""
    out = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, np.ndarray):
            out[f.name] = {"array": writer.array(f"{prefix}.{f.name}", value)}
        else:
            out[f.name] = {"json": json_value(value)}
    return out


def _fields(archive: zipfile.ZipFile, record: dict) -> dict:
    out = {}
    for name, entry in record.items():
        out[name] = _read_array(archive, entry["array"]) if "array" in entry else _from_json(entry["json"])
    return out


# ---------------------------------------------------------------- write / read

#: the result's fields kept as ``.npy`` arrays (field -> member name); the others are JSON
_RESULT_ARRAYS = {"values": "values", "intervals": "intervals", "distribution_": "distribution"}
_RESULT_JSON = ("names", "qids", "measures", "summed", "bootstrap", "interval", "confidence_level", "mrt", "round",
                "topics", "provenance")
_TUPLES = ("names", "qids", "measures", "summed")
_COMPARISON_ARRAYS = ("system_index", "baseline_index", "intervals", "distribution")


def write_archive(path: str | os.PathLike, result: Mapping[str, Any], *, plan: Any, corpus: Any,
                  comparisons: Any, tables: Mapping[str, str]) -> Path:
    """Write one result to the zip file ``path`` (parent folders created; written beside it and
    renamed, so never half-written): ``result`` maps the result's own fields to their values,
    ``plan``, ``corpus`` and ``comparisons`` are its dataclass fields (or None), ``tables`` maps a
    member name (``table.csv``) to its text."""
    from ..corpus.result import CorpusBootstrapResult

    path = Path(path)
    writer = _Writer()
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    doc["result"] = {key: json_value(result[key]) for key in _RESULT_JSON}
    doc["result"].update({key: writer.array(member, result[key]) for key, member in _RESULT_ARRAYS.items()})
    doc["plan"] = None if plan is None else {"type": type(plan).__name__, "fields": _record(plan, writer, "plan")}
    if corpus is not None:
        if not isinstance(corpus, CorpusBootstrapResult):
            raise TypeError(f"cannot save a corpus result of type {type(corpus).__name__}")
        doc["corpus"] = _record(corpus, writer, "corpus")
    if comparisons is not None:
        doc["comparisons"] = {
            "names": json_value(comparisons.names), "measures": json_value(comparisons.measures),
            "frame": _frame_json(comparisons.frame), "correction": comparisons.correction,
            **{key: writer.array(f"comparisons.{key}", getattr(comparisons, key)) for key in _COMPARISON_ARRAYS}}
    with atomic_file(path, "save the result to", binary=True) as file, \
            zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("result.json", json.dumps(doc, indent=1, allow_nan=False))
        for key, value in writer.arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, value, allow_pickle=False)
            archive.writestr(f"arrays/{key}.npy", buffer.getvalue())
        for name, text in tables.items():
            archive.writestr(name, text)
    return path


def read_archive(path: str | os.PathLike) -> dict[str, Any]:
    """What :func:`write_archive` wrote: ``{"result": the result's own fields, "plan": the plan or
    None, "corpus": the CorpusBootstrapResult or None, "comparisons": the comparisons' fields or
    None}``; a file that is not a saved result (or is newer than this version reads) is a
    ValueError naming ``path``."""
    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ValueError(f"'path': no file '{path}'") from None
    except (zipfile.BadZipFile, IsADirectoryError, OSError) as error:
        raise ValueError(f"'path': '{path}' is not a saved result ({error})") from None
    with archive:
        doc = _document(archive, path)
        r = doc["result"]
        result = {key: _from_json(r[key]) for key in _RESULT_JSON}
        result.update({key: _read_array(archive, r[key]) for key in _RESULT_ARRAYS})
        result.update({key: tuple(result[key]) for key in _TUPLES})
        result["topics"] = None if result["topics"] is None else tuple(result["topics"])
        comparisons = None
        if doc.get("comparisons") is not None:
            c = doc["comparisons"]
            comparisons = {"names": tuple(c["names"]), "measures": tuple(c["measures"]),
                           "frame": _frame_from_json(c["frame"]), "correction": c["correction"],
                           **{key: _read_array(archive, c[key]) for key in _COMPARISON_ARRAYS}}
        return {"result": result, "plan": _plan(archive, doc.get("plan")),
                "corpus": _corpus(archive, doc.get("corpus")), "comparisons": comparisons}


def _document(archive: zipfile.ZipFile, path: Path) -> dict:
    """``result.json`` of a saved result, its format and version checked."""
    try:
        doc = json.loads(archive.read("result.json"))
    except (KeyError, ValueError):
        raise ValueError(f"'path': '{path}' is not a saved result (no readable result.json)") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("version"), int):
        raise ValueError(f"'path': '{path}' is not a saved pyterrier-boot result")
    if doc["version"] > VERSION:
        raise ValueError(f"'path': '{path}' was saved in format version {doc['version']}, newer than this "
                         f"pyterrier-boot reads ({VERSION}): upgrade pyterrier-boot")
    return doc


def _plan(archive: zipfile.ZipFile, record: dict | None) -> Any:
    from ..stats import resampling

    if record is None:
        return None
    return getattr(resampling, record["type"])(**_fields(archive, record["fields"]))


def _corpus(archive: zipfile.ZipFile, record: dict | None) -> Any:
    from ..corpus.result import CorpusBootstrapResult

    if record is None:
        return None
    values = _fields(archive, record)
    for key in ("systems", "qids", "measures", "unit"):
        values[key] = tuple(values[key])
    return CorpusBootstrapResult(**values)
