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

The encoding is :mod:`pyterrier_boot._archive`'s; :func:`encode_result` and :func:`decode_result`
put a result into another archive's document and take it out (a saved leaderboard holds one).
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

from .._archive import (
    ArrayWriter,
    frame_from_json,
    frame_json,
    from_json,
    json_value,
    open_archive,
    read_array,
    record,
    record_fields,
    write_archive,
)

__all__ = ["save_result", "load_result", "encode_result", "decode_result", "package_versions"]

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


# ---------------------------------------------------------------- save / load


def encode_result(result: Any, writer: ArrayWriter) -> dict:
    """The document of ``result`` (an :class:`~pyterrier_boot.ExperimentResult`): keys ``result``,
    ``plan``, ``corpus`` and ``comparisons``, its arrays given to ``writer``."""
    from ..corpus.result import CorpusBootstrapResult
    from .result import ExperimentResult

    if not isinstance(result, ExperimentResult):
        raise TypeError(f"'result' must be an ExperimentResult, got {type(result).__name__}")
    doc: dict[str, Any] = {"result": {
        "names": json_value(result.names), "qids": json_value(result.qids),
        "measures": json_value(result.measures), "summed": json_value(result.summed),
        "values": writer.array("values", result.values),
        "bootstrap": result.bootstrap, "interval": result.interval,
        "confidence_level": json_value(result.confidence_level),
        "intervals": writer.array("intervals", result.intervals),
        "distribution_": writer.array("distribution", result.distribution_),
        "mrt": json_value(result.mrt), "round": json_value(result.round),
        "topics": json_value(result.topics), "provenance": json_value(result.provenance),
    }}
    doc["plan"] = None if result.plan is None else {
        "type": type(result.plan).__name__, "fields": record(result.plan, writer, "plan")}
    if result.corpus is not None:
        if not isinstance(result.corpus, CorpusBootstrapResult):
            raise TypeError(f"cannot save a corpus result of type {type(result.corpus).__name__}")
        doc["corpus"] = record(result.corpus, writer, "corpus")
    comp = result.comparisons
    if comp is not None:
        doc["comparisons"] = {
            "names": json_value(comp.names), "measures": json_value(comp.measures),
            "system_index": writer.array("comparisons.system_index", comp.system_index),
            "baseline_index": writer.array("comparisons.baseline_index", comp.baseline_index),
            "frame": frame_json(comp.frame), "correction": comp.correction,
            "intervals": writer.array("comparisons.intervals", comp.intervals),
            "distribution": writer.array("comparisons.distribution", comp.distribution),
        }
    return doc


def save_result(result: Any, path: str | os.PathLike) -> Path:
    """Write ``result`` (an :class:`~pyterrier_boot.ExperimentResult`) to the zip file ``path``
    (parent folders created; written beside it and renamed, so never half-written)."""
    writer = ArrayWriter()
    doc = {"format": FORMAT, "version": VERSION, **encode_result(result, writer)}
    texts = {"table.csv": result.table().to_csv(index=False), "perquery.csv": result.per_query().to_csv(index=False)}
    return write_archive(Path(path), doc, writer, member="result.json", texts=texts, what="save the result to")


def load_result(path: str | os.PathLike) -> Any:
    """Read an :class:`~pyterrier_boot.ExperimentResult` written by ``save`` / :func:`save_result`."""
    with open_archive(Path(path), member="result.json", format=FORMAT, version=VERSION, what="result") as (archive, doc):
        return decode_result(archive, doc)


def decode_result(archive: zipfile.ZipFile, doc: dict) -> Any:
    """The :class:`~pyterrier_boot.ExperimentResult` that :func:`encode_result` put into ``doc``."""
    from ..corpus.result import CorpusBootstrapResult
    from ..stats import resampling
    from .result import Comparisons, ExperimentResult

    r = doc["result"]
    plan = None
    if doc.get("plan") is not None:
        plan = getattr(resampling, doc["plan"]["type"])(**record_fields(archive, doc["plan"]["fields"]))
    corpus = None
    if doc.get("corpus") is not None:
        values = record_fields(archive, doc["corpus"])
        for key in ("systems", "qids", "measures", "unit"):
            values[key] = tuple(values[key])
        corpus = CorpusBootstrapResult(**values)
    comparisons = None
    if doc.get("comparisons") is not None:
        c = doc["comparisons"]
        comparisons = Comparisons(
            tuple(c["names"]), tuple(c["measures"]), read_array(archive, c["system_index"]),
            read_array(archive, c["baseline_index"]), frame_from_json(c["frame"]), c["correction"],
            read_array(archive, c["intervals"]), read_array(archive, c["distribution"]))
    return ExperimentResult(
        names=tuple(r["names"]), qids=tuple(r["qids"]), measures=tuple(r["measures"]),
        summed=tuple(r["summed"]), values=read_array(archive, r["values"]), bootstrap=r["bootstrap"],
        interval=r["interval"], confidence_level=r["confidence_level"],
        intervals=read_array(archive, r["intervals"]), distribution_=read_array(archive, r["distribution_"]),
        corpus=corpus, comparisons=comparisons, mrt=r["mrt"], round=r["round"],
        topics=None if r["topics"] is None else tuple(r["topics"]), plan=plan,
        provenance=from_json(r["provenance"]),
    )
