"""Saving an :class:`~pyterrier_boot.ExperimentResult` to one file and reading it back.

The file is a zip archive of open formats, no pickle:

* ``result.json``: labels, settings, the comparison table (every column, NaN as ``null``),
  what produced the result (``provenance``: test, correction, resample counts, the rng's seed or
  state, package versions) and the format version;
* ``arrays/<name>.npy``: every numeric array (per-topic values, intervals, bootstrap
  distributions, the resample plan, the corpus images), in numpy's ``.npy`` format, read with
  ``allow_pickle=False``, so every float comes back bit for bit;
* ``table.csv``, ``perquery.csv``: the ``pt.Experiment`` table and the per-topic values, for
  reading with any tool (not read back).
"""
from __future__ import annotations

import io
import json
import math
import os
import zipfile
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._atomic import atomic_file

__all__ = ["save_result", "load_result", "package_versions"]

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


def _json_value(value: Any, *, tagged: bool = True) -> Any:
    """A JSON-able copy of ``value`` (numpy scalars as Python numbers; NaN and infinities as
    ``{"float": "nan"}`` so they read back, or as None when not ``tagged``)."""
    if isinstance(value, dict):
        return {str(k): _json_value(v, tagged=tagged) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v, tagged=tagged) for v in value]
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
        columns[str(name)] = {"dtype": str(column.dtype), "values": _json_value(values)}
    return {"columns": columns, "attrs": _json_value(dict(frame.attrs))}


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
            return {"labels": _json_value(value.tolist())}
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
            out[f.name] = {"json": _json_value(value)}
    return out


def _fields(archive: zipfile.ZipFile, record: dict) -> dict:
    out = {}
    for name, entry in record.items():
        out[name] = _read_array(archive, entry["array"]) if "array" in entry else _from_json(entry["json"])
    return out


# ---------------------------------------------------------------- save / load


def save_result(result: Any, path: str | os.PathLike) -> Path:
    """Write ``result`` (an :class:`~pyterrier_boot.ExperimentResult`) to the zip file ``path``
    (parent folders created; written beside it and renamed, so never half-written)."""
    from ..corpus.result import CorpusBootstrapResult
    from .result import ExperimentResult

    if not isinstance(result, ExperimentResult):
        raise TypeError(f"'result' must be an ExperimentResult, got {type(result).__name__}")
    path = Path(path)
    writer = _Writer()
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    doc["result"] = {
        "names": _json_value(result.names), "qids": _json_value(result.qids),
        "measures": _json_value(result.measures), "summed": _json_value(result.summed),
        "values": writer.array("values", result.values),
        "bootstrap": result.bootstrap, "interval": result.interval,
        "confidence_level": _json_value(result.confidence_level),
        "intervals": writer.array("intervals", result.intervals),
        "distribution_": writer.array("distribution", result.distribution_),
        "mrt": _json_value(result.mrt), "round": _json_value(result.round),
        "topics": _json_value(result.topics), "provenance": _json_value(result.provenance),
    }
    doc["plan"] = None if result.plan is None else {
        "type": type(result.plan).__name__, "fields": _record(result.plan, writer, "plan")}
    if result.corpus is not None:
        if not isinstance(result.corpus, CorpusBootstrapResult):
            raise TypeError(f"cannot save a corpus result of type {type(result.corpus).__name__}")
        doc["corpus"] = _record(result.corpus, writer, "corpus")
    comp = result.comparisons
    if comp is not None:
        doc["comparisons"] = {
            "names": _json_value(comp.names), "measures": _json_value(comp.measures),
            "system_index": writer.array("comparisons.system_index", comp.system_index),
            "baseline_index": writer.array("comparisons.baseline_index", comp.baseline_index),
            "frame": _frame_json(comp.frame), "correction": comp.correction,
            "intervals": writer.array("comparisons.intervals", comp.intervals),
            "distribution": writer.array("comparisons.distribution", comp.distribution),
        }
    with atomic_file(path, "save the result to", binary=True) as file, \
            zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("result.json", json.dumps(doc, indent=1, allow_nan=False))
        for key, value in writer.arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, value, allow_pickle=False)
            archive.writestr(f"arrays/{key}.npy", buffer.getvalue())
        archive.writestr("table.csv", result.table().to_csv(index=False))
        archive.writestr("perquery.csv", result.per_query().to_csv(index=False))
    return path


def load_result(path: str | os.PathLike) -> Any:
    """Read an :class:`~pyterrier_boot.ExperimentResult` written by ``save`` / :func:`save_result`."""
    from ..corpus.result import CorpusBootstrapResult
    from ..stats import resampling
    from .result import Comparisons, ExperimentResult

    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ValueError(f"'path': no file '{path}'") from None
    except (zipfile.BadZipFile, IsADirectoryError, OSError) as error:
        raise ValueError(f"'path': '{path}' is not a saved result ({error})") from None
    with archive:
        try:
            doc = json.loads(archive.read("result.json"))
        except (KeyError, ValueError):
            raise ValueError(f"'path': '{path}' is not a saved result (no readable result.json)") from None
        if doc.get("format") != FORMAT or not isinstance(doc.get("version"), int):
            raise ValueError(f"'path': '{path}' is not a saved pyterrier-boot result")
        if doc["version"] > VERSION:
            raise ValueError(f"'path': '{path}' was saved in format version {doc['version']}, newer than this "
                             f"pyterrier-boot reads ({VERSION}): upgrade pyterrier-boot")
        r = doc["result"]
        plan = None
        if doc.get("plan") is not None:
            plan = getattr(resampling, doc["plan"]["type"])(**_fields(archive, doc["plan"]["fields"]))
        corpus = None
        if doc.get("corpus") is not None:
            values = _fields(archive, doc["corpus"])
            for key in ("systems", "qids", "measures", "unit"):
                values[key] = tuple(values[key])
            corpus = CorpusBootstrapResult(**values)
        comparisons = None
        if doc.get("comparisons") is not None:
            c = doc["comparisons"]
            comparisons = Comparisons(
                tuple(c["names"]), tuple(c["measures"]), _read_array(archive, c["system_index"]),
                _read_array(archive, c["baseline_index"]), _frame_from_json(c["frame"]), c["correction"],
                _read_array(archive, c["intervals"]), _read_array(archive, c["distribution"]))
        return ExperimentResult(
            names=tuple(r["names"]), qids=tuple(r["qids"]), measures=tuple(r["measures"]),
            summed=tuple(r["summed"]), values=_read_array(archive, r["values"]), bootstrap=r["bootstrap"],
            interval=r["interval"], confidence_level=r["confidence_level"],
            intervals=_read_array(archive, r["intervals"]), distribution_=_read_array(archive, r["distribution_"]),
            corpus=corpus, comparisons=comparisons, mrt=r["mrt"], round=r["round"],
            topics=None if r["topics"] is None else tuple(r["topics"]), plan=plan,
            provenance=_from_json(r["provenance"]),
        )
