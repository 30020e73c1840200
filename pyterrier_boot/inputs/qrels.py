"""Qrels: relevance judgements from frames, TREC files, ir_datasets and PyTerrier datasets.

Every source becomes a :class:`Qrels`: a validated ``qid, docno, label`` frame plus the size of
the collection when it is known (the corpus bootstrap needs it).
"""
from __future__ import annotations

import dataclasses
import numbers
import os
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._columns import (
    as_ids,
    as_numbers,
    check_unique_pairs,
    first_value,
    pick_columns,
    row_example,
)
from ._files import (
    ASCII_INTEGER,
    fast_table,
    iter_lines,
    line_error,
    not_a_number,
    parse_integer,
    read_file_bytes,
)
from ._sources import (
    IRDS_PREFIX,
    irds_docs_count,
    irds_id,
    irds_reading,
    load_irds,
    not_loadable,
    split_source,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .._typing import QrelsLike


__all__ = ["Qrels", "read_qrels"]

_QRELS_LINE = "qid iter docno label"
_QRELS_COLUMNS = {"qid": ("qid", "query_id"), "docno": ("docno", "doc_id"), "label": ("label", "relevance")}
_QRELS_NEEDS = "Qrels need 'qid', 'docno', 'label' (PyTerrier) or 'query_id', 'doc_id', 'relevance' (ir_measures)."
_LOCAL_FILE = "Pass a local qrels file instead, e.g. read_qrels('path/to/qrels.txt')."


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Qrels:
    """Validated relevance judgements. Build with :func:`read_qrels`.

    Attributes:
        frame: columns ``qid`` (str), ``docno`` (str), ``label`` (int64), in input order, one row
            per judged (qid, docno). Negative labels are kept as given (trec_eval's
            form_res_rels treats a negative grade as "in the pool but unjudged": never relevant).
        corpus_size: number of documents in the collection when known (ir_datasets'
            ``docs_count()``), else None.
        source: where the judgements came from, e.g. ``"irds:vaswani"`` or a file path.
    """

    frame: pd.DataFrame
    corpus_size: int | None = None
    source: str = "DataFrame"

    def __post_init__(self):
        frame = self.frame
        if (
            not isinstance(frame, pd.DataFrame)
            or list(frame.columns) != ["qid", "docno", "label"]
            or frame["label"].dtype != np.int64
        ):
            raise TypeError(
                "Qrels.frame must be a DataFrame with columns qid, docno, label (int64); "
                "build Qrels with read_qrels(...), which checks and converts the judgements"
            )
        object.__setattr__(self, "corpus_size", _check_corpus_size(self.corpus_size))

    @property
    def judged_order(self) -> list[str]:
        """The topics in the order they first appear in :attr:`frame`: the order judged, when the
        qrels list topics as their assessors finished them (what anytime-valid sequences read)."""
        return list(dict.fromkeys(self.frame["qid"]))

    def restrict(self, qids: Iterable[str]) -> Qrels:
        """The judgements of the topics in ``qids`` only (same ``corpus_size`` and ``source``)."""
        inside = self.frame["qid"].isin(set(qids))
        if inside.all():
            return self
        return dataclasses.replace(self, frame=self.frame[inside].reset_index(drop=True))

    def __repr__(self):
        return (
            f"Qrels(source={self.source!r}, {len(self.frame)} judgements, "
            f"{self.frame['qid'].nunique()} topics, corpus_size={self.corpus_size})"
        )


def read_qrels(source: QrelsLike, *, corpus_size: int | None = None) -> Qrels:
    """Read relevance judgements into a validated :class:`Qrels`.

    Args:
        source: one of
            * a :class:`Qrels` (returned as is; ``corpus_size`` replaced when given);
            * a DataFrame with ``qid, docno, label`` (PyTerrier) or ``query_id, doc_id,
              relevance`` (ir_measures); other columns (e.g. ``iteration``) are ignored;
            * a path to a TREC qrels file: lines ``qid iter docno label`` (exactly 4 fields,
              whitespace separated; plain or gzip; ``#`` comment and blank lines skipped; UTF-8,
              a byte-order mark ignored);
            * an ir_datasets dataset object, or a PyTerrier dataset (``get_qrels()``);
            * an id string: ``"irds:<id>"`` or a bare ir_datasets id such as ``"vaswani"``
              (a string naming an existing file is read as a file).
        corpus_size: documents in the collection; overrides the size found in an ir_datasets
            dataset (``docs_count()``, or ir_datasets' metadata).

    Labels must be integers; integral floats such as ``1.0`` are converted. Negative labels are
    kept, not refused (Cranfield has -1; trec_eval treats them as pooled but unjudged, so never
    relevant).

    Raises:
        FileNotFoundError: a path that does not exist (and is not an ir_datasets id).
        ValueError: a malformed file line (with file name and line number); missing columns;
            non-integer labels; the same (qid, docno) twice; no judgements; an unknown
            ir_datasets id; a dataset whose qrels cannot be loaded offline (pass a local file).
        TypeError: an unsupported ``source``.

    Example:
        >>> from pyterrier_boot import read_qrels
        >>> qrels = read_qrels("irds:vaswani")                # doctest: +SKIP
        >>> qrels.corpus_size, len(qrels.frame)               # doctest: +SKIP
        (11429, 2083)
    """
    if corpus_size is not None:
        corpus_size = _check_corpus_size(corpus_size)
    if isinstance(source, Qrels):
        return source if corpus_size is None else dataclasses.replace(source, corpus_size=corpus_size)
    if isinstance(source, pd.DataFrame):
        return Qrels(_qrels_from_frame(source, "qrels frame"), corpus_size, "DataFrame")
    if isinstance(source, (str, os.PathLike)):
        kind, value = split_source(source, "qrels")
        if kind == "file":
            shown, frame = _read_qrels_file(value)
            return Qrels(frame, corpus_size, shown)
        with irds_reading():
            return _from_irds(load_irds(value, "qrels"), value, corpus_size)
    if hasattr(source, "get_qrels"):
        with irds_reading():
            return _from_pt_dataset(source, corpus_size)
    if hasattr(source, "qrels_iter"):
        with irds_reading():
            return _from_irds(source, irds_id(source), corpus_size)
    raise TypeError(
        "'source' must be a Qrels, a DataFrame, a path to a TREC qrels file, an ir_datasets or "
        f"PyTerrier dataset, or an id such as 'irds:vaswani'; got {type(source).__name__}"
    )


def _check_corpus_size(value):
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"'corpus_size' must be a positive integer or None, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"'corpus_size' must be a positive integer or None, got {value}")
    return int(value)


def _from_irds(dataset, dataset_id: str | None, corpus_size) -> Qrels:
    label = f"{IRDS_PREFIX}{dataset_id}" if dataset_id else repr(dataset)
    if not dataset.has_qrels():
        raise ValueError(f"ir_datasets dataset '{label}' has no qrels")
    try:
        rows = pd.DataFrame(dataset.qrels_iter())
    except Exception as ex:  # download failures surface as RuntimeError, OSError, requests errors...
        raise not_loadable(f"ir_datasets dataset '{label}'", "qrels", ex, _LOCAL_FILE, irds=True) from ex
    frame = _qrels_from_frame(rows, f"qrels of '{label}'")
    if corpus_size is None:
        corpus_size = irds_docs_count(dataset)
    return Qrels(frame, corpus_size, label)


def _from_pt_dataset(dataset, corpus_size) -> Qrels:
    ref = dataset.irds_ref() if hasattr(dataset, "irds_ref") else None
    if ref is not None and irds_id(ref):
        label = f"{IRDS_PREFIX}{irds_id(ref)}"
    else:
        label = f"PyTerrier dataset {getattr(dataset, 'name', None) or type(dataset).__name__}"
    try:
        rows = dataset.get_qrels()
    except NotImplementedError as ex:
        raise ValueError(f"{label} has no qrels ({ex})") from ex
    except Exception as ex:
        raise not_loadable(label, "qrels", ex, _LOCAL_FILE, irds=ref is not None) from ex
    frame = _qrels_from_frame(rows, f"qrels of {label}")
    if corpus_size is None and ref is not None:
        corpus_size = irds_docs_count(ref)
    return Qrels(frame, corpus_size, label)


def _qrels_from_frame(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    if len(frame) == 0:
        raise ValueError(f"{what} is empty: no judgements")
    columns = pick_columns(frame, _QRELS_COLUMNS, what, _QRELS_NEEDS)
    out = pd.DataFrame({
        "qid": as_ids(columns["qid"], "qid", what).array,
        "docno": as_ids(columns["docno"], "docno", what).array,
    })
    raw = columns["label"]
    if pd.api.types.is_integer_dtype(raw.dtype) and not raw.hasnans:
        _check_int64(raw, out, what)
        labels = raw.to_numpy(dtype="int64")
    else:
        values = as_numbers(raw, "label", what, out)
        bad = ~np.isfinite(values) | (values != np.floor(values)) | (np.abs(values) > 2**53)
        if bad.any():
            raise ValueError(
                f"{what} has {int(bad.sum())} label(s) that are not integers, e.g. "
                f"{row_example(out, bad)} has label {first_value(raw, bad)!r}; labels must be "
                "integer relevance grades (negative grades are allowed)"
            )
        labels = values.astype("int64")
    out["label"] = labels
    _check_qrels(out, what)
    return out


def _check_int64(raw: pd.Series, out: pd.DataFrame, what: str) -> None:
    """Refuse unsigned labels beyond int64, which would wrap (trec_eval reads a label as a long)."""
    if pd.api.types.is_unsigned_integer_dtype(raw.dtype):
        bad = raw.to_numpy() > np.iinfo(np.int64).max
        if bad.any():
            raise ValueError(
                f"{what} has {int(bad.sum())} label(s) beyond int64, e.g. {row_example(out, bad)} has label "
                f"{first_value(raw, bad)!r}; labels are integer grades of at most {np.iinfo(np.int64).max} "
                "(trec_eval reads them as a long)"
            )


def _check_qrels(frame: pd.DataFrame, what: str) -> None:
    check_unique_pairs(
        frame, what, "judges the same docno more than once for a topic",
        "Keep one judgement per (qid, docno).",
    )


def _read_qrels_file(path) -> tuple[str, pd.DataFrame]:
    shown, data = read_file_bytes(path, "qrels")
    what = f"qrels file '{shown}'"
    # a fifth column catches lines with extra fields, which trec_eval refuses
    table = fast_table(data, names=range(5), dtype={0: "str", 1: "str", 2: "str", 4: "str"})
    labels = None if table is None or (table[4] != "").any() else _integral(table[3])
    if labels is None:
        table = _parse_qrels_lines(data, shown)
        labels = table[3].to_numpy(dtype="int64")
    if len(table) == 0:  # type: ignore[arg-type]  # table is parsed when the fast reader failed
        raise ValueError(f"{what} is empty: no judgements (only blank or comment lines)")
    frame = pd.DataFrame({"qid": table[0], "docno": table[2], "label": labels})  # type: ignore[index]  # as above
    _check_qrels(frame, what)
    return shown, frame


def _integral(column: pd.Series) -> np.ndarray | None:
    """int64 labels from the fast parser's column, or None when the exact parser must decide."""
    if column.dtype == np.int64:
        return column.to_numpy()
    if column.dtype == np.float64:
        values = column.to_numpy()
        if (np.isfinite(values) & (values == np.floor(values)) & (np.abs(values) < 2**53)).all():
            return values.astype("int64")
    return None


def _parse_qrels_lines(data: bytes, shown: str) -> pd.DataFrame:
    qids, docnos, labels = [], [], []
    for lineno, raw, fields in iter_lines(data, shown, "qrels"):
        if len(fields) != 4:
            raise line_error(shown, "qrels", lineno, raw, f"expected 4 fields '{_QRELS_LINE}', found {len(fields)}")
        label = parse_integer(fields[3])  # exact within int64
        if label is None and ASCII_INTEGER.fullmatch(fields[3]):
            raise line_error(shown, "qrels", lineno, raw, f"label {fields[3]!r} is beyond int64 (trec_eval "
                             "reads a label as a long)")
        if label is None:
            raise line_error(shown, "qrels", lineno, raw, not_a_number("label", fields[3], "an integer"))
        qids.append(fields[0])
        docnos.append(fields[2])
        labels.append(label)
    return pd.DataFrame(
        {0: pd.Series(qids, dtype="str"), 2: pd.Series(docnos, dtype="str"), 3: pd.Series(labels, dtype="int64")}
    )
