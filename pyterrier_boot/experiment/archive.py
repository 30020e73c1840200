"""The document of a saved :class:`~pyterrier_boot.ExperimentResult`, in the zip archive of open
formats of :mod:`pyterrier_boot._archive` (no pickle):

* ``result.json``: labels, settings, the comparison table (every column, NaN as ``null``),
  what produced the result (``provenance``: test, correction, resample counts, the rng's seed or
  state, package versions) and the format version;
* ``arrays/<name>.npy``: every numeric array (per-topic values, intervals, bootstrap
  distributions, the resample plan, the corpus images), in numpy's ``.npy`` format, read with
  ``allow_pickle=False``, so every float comes back bit for bit;
* ``table.csv``, ``perquery.csv``: the ``pt.Experiment`` table and the per-topic values, for
  reading with any tool (not read back).

This module knows the document's fields, not the result class: :meth:`ExperimentResult.save
<pyterrier_boot.ExperimentResult.save>` hands it the result, and :meth:`ExperimentResult.decode
<pyterrier_boot.ExperimentResult.decode>` builds the result from what :func:`decode_fields`
returns, so the result and its file read in one direction (the result imports this module, never
the other way).
"""
from __future__ import annotations

import zipfile
from typing import Any

from .._archive import (
    ArrayWriter,
    frame_from_json,
    frame_json,
    from_json,
    json_value,
    read_array,
    record,
    record_fields,
)

__all__ = ["FORMAT", "VERSION", "package_versions", "encode_fields", "decode_fields"]

FORMAT = "pyterrier-boot-result"
#: 2: the corpus result keeps ``found`` (the empirical-Bayes variance); version-1 files load without it.
#: 3: ``seeds`` and the runs' scores of systems given as several runs; older files load without them.
VERSION = 3
_PACKAGES = ("pyterrier_boot", "numpy", "pandas", "scipy", "pyterrier", "ir_measures")
#: the result's fields kept as ``.npy`` arrays (field -> member name); the others are JSON
_RESULT_ARRAYS = {"values": "values", "intervals": "intervals", "distribution_": "distribution"}
_RESULT_JSON = ("names", "qids", "measures", "summed", "bootstrap", "interval", "confidence_level", "mrt", "round",
                "topics", "provenance", "unit", "seeds")
_TUPLES = ("names", "qids", "measures", "summed", "unit")
#: fields files written before them lack, with the value they then mean
_RESULT_DEFAULTS: dict[str, Any] = {"unit": [], "seeds": None}
_COMPARISON_ARRAYS = ("system_index", "baseline_index", "intervals", "distribution")


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


def encode_fields(result: Any, writer: ArrayWriter) -> dict:
    """The document of ``result`` (an :class:`~pyterrier_boot.ExperimentResult`'s fields): keys
    ``result``, ``plan``, ``corpus`` and ``comparisons``, its arrays given to ``writer``."""
    from ..corpus.result import CorpusBootstrapResult

    doc: dict[str, Any] = {"result": {key: json_value(getattr(result, key)) for key in _RESULT_JSON}}
    doc["result"].update({key: writer.array(member, getattr(result, key)) for key, member in _RESULT_ARRAYS.items()})
    plan = result.plan
    doc["plan"] = None if plan is None else {"type": type(plan).__name__, "fields": record(plan, writer, "plan")}
    if result.corpus is not None:
        if not isinstance(result.corpus, CorpusBootstrapResult):
            raise TypeError(f"cannot save a corpus result of type {type(result.corpus).__name__}")
        doc["corpus"] = record(result.corpus, writer, "corpus")
    if result.run_scores is not None:
        doc["run_scores"] = record(result.run_scores, writer, "run_scores")
    comp = result.comparisons
    if comp is not None:
        doc["comparisons"] = {
            "names": json_value(comp.names), "measures": json_value(comp.measures),
            "frame": frame_json(comp.frame), "correction": comp.correction,
            **{key: writer.array(f"comparisons.{key}", getattr(comp, key)) for key in _COMPARISON_ARRAYS}}
    return doc


def decode_fields(archive: zipfile.ZipFile, doc: dict) -> dict[str, Any]:
    """What :func:`encode_fields` put into ``doc``: ``{"result": the result's own fields, "plan":
    the plan or None, "corpus": the CorpusBootstrapResult or None, "comparisons": the comparisons'
    fields or None}``."""
    from ..corpus.result import CorpusBootstrapResult
    from ..seeds.scores import RunScores
    from ..stats import resampling

    r = doc["result"]
    result = {key: from_json(r[key]) if key in r else _RESULT_DEFAULTS[key] for key in _RESULT_JSON}
    if doc.get("run_scores") is not None:
        values = record_fields(archive, doc["run_scores"])
        result["run_scores"] = RunScores(**{**values, "runs": tuple(values["runs"]), "names": tuple(values["names"])})
    result.update({key: read_array(archive, r[key]) for key in _RESULT_ARRAYS})
    result.update({key: tuple(result[key]) for key in _TUPLES})
    result["topics"] = None if result["topics"] is None else tuple(result["topics"])
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
        comparisons = {"names": tuple(c["names"]), "measures": tuple(c["measures"]),
                       "frame": frame_from_json(c["frame"]), "correction": c["correction"],
                       **{key: read_array(archive, c[key]) for key in _COMPARISON_ARRAYS}}
    return {"result": result, "plan": plan, "corpus": corpus, "comparisons": comparisons}
