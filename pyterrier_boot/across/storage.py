"""Saving an :class:`~pyterrier_boot.across.result.AcrossCollections` to one file and reading it
back: the zip archive of open formats of :mod:`pyterrier_boot._archive` (no pickle):

* ``across.json``: the settings (measure, baseline, random-effects model, confidence level), the
  collections' and systems' names, and the format version;
* ``arrays/effects.<name>.npy``: each collection's means and pairwise differences with their
  standard errors, read back bit for bit;
* ``per_collection.csv``, ``average.csv``, ``pooled.csv``: the tables, for reading with any tool
  (not read back).

The collections' own results are not kept: save them with ``ExperimentResult.save``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._archive import (
    ArrayWriter,
    from_json,
    json_value,
    open_archive,
    record,
    record_fields,
    write_archive,
)
from .effects import CollectionEffects

if TYPE_CHECKING:
    from pathlib import Path

    from .result import AcrossCollections

__all__ = ["FORMAT", "VERSION", "save_across", "read_across"]

FORMAT = "pyterrier-boot-across"
VERSION = 1
_SETTINGS = ("measure", "labels", "baseline", "standardize", "tau2_method", "hksj", "prediction", "confidence_level")


def save_across(result: AcrossCollections, path: Path) -> Path:
    """Write ``result`` to the zip file ``path`` (parent folders created; all or nothing)."""
    writer = ArrayWriter()
    doc = {"format": FORMAT, "version": VERSION, "effects": record(result.effects, writer, "effects"),
           "settings": json_value({key: getattr(result, key) for key in _SETTINGS})}
    texts = {f"{name}.csv": getattr(result, name)().to_csv(index=False)
             for name in ("per_collection", "average", "pooled")}
    return write_archive(path, doc, writer, member="across.json", texts=texts, what="save the analysis to")


def read_across(path: Path) -> dict[str, Any]:
    """The fields of the :class:`~pyterrier_boot.across.result.AcrossCollections` saved at ``path``."""
    with open_archive(path, member="across.json", format=FORMAT, version=VERSION,
                      what="analysis across collections") as (archive, doc):
        values = record_fields(archive, doc["effects"])
        settings = from_json(doc["settings"])
    values["collections"], values["systems"] = tuple(values["collections"]), tuple(values["systems"])
    settings["labels"] = tuple(settings["labels"])
    return {"effects": CollectionEffects(**values), **settings}
