"""Topics: the queries transformers are run on, from frames, files and datasets."""
from __future__ import annotations

import gzip
import os
import re
from typing import TYPE_CHECKING

import pandas as pd

from ._columns import as_ids, first_value, pick_columns
from ._files import GZIP_MAGIC, line_error, read_file_bytes
from ._sources import IRDS_PREFIX, irds_id, irds_reading, load_irds, not_loadable, split_source

if TYPE_CHECKING:
    from .._typing import TopicsLike


__all__ = ["read_topics"]

_FORMATS = ("trec", "trecxml", "singleline")
_TOPICS_NEEDS = "Topics need 'qid' and 'query' columns."
_SINGLELINE = re.compile(r"^([^:\s]+)[\s:]+(.*)$")  # pt.io.read_topics' singleline format


def read_topics(source: TopicsLike, *, format: str | None = None) -> pd.DataFrame:
    """Read topics into a validated frame with columns ``qid`` (str), ``query`` (str) and any others.

    Args:
        source: a DataFrame (``qid``/``query``; ir_datasets' ``query_id``/``text`` are renamed;
            other columns are kept); a path to a topics file in one of ``pt.io.read_topics``'
            formats; a PyTerrier dataset (``get_topics()``); an ir_datasets dataset object; or an
            id ``"irds:<id>"`` (a bare id such as ``"vaswani"`` works when no such file exists).
        format: the file format, ``"trec"`` (SGML ``<top>``), ``"trecxml"`` or ``"singleline"``
            (``qid query`` per line, e.g. a TSV). Detected from the content when None: ``<top>``
            means trec, ``<topic`` trecxml, anything else singleline. trec and trecxml files are
            read by ``pt.io.read_topics``, as ``pt.Experiment`` reads them (so its trec reader's
            rules, such as dropping one leading ``0`` from a topic number, apply); singleline files
            are split as it splits them, read as run files are (gzip, a UTF-8 byte-order mark
            dropped, a lone ``\\r`` ending a line), and a line with a qid and no query is an error
            naming the file and the line.

    Returns:
        A new frame, rows in input order.

    Raises:
        FileNotFoundError: a missing path. ValueError: missing ``qid``/``query`` columns, missing
        query text, the same qid twice, no topics, an unknown format or dataset id, or a dataset
        whose topics cannot be loaded offline. TypeError: an unsupported ``source``.

    Example:
        >>> from pyterrier_boot.inputs import read_topics
        >>> read_topics("topics.dl20.tsv").head(1)            # doctest: +SKIP
               qid               query
        0  1030303  who is aziz hashim
    """
    if format is not None and format not in _FORMATS:
        raise ValueError(f"'format' must be one of {', '.join(map(repr, _FORMATS))} or None, got {format!r}")
    if isinstance(source, pd.DataFrame):
        return _topics_from_frame(source, "topics frame")
    if isinstance(source, (str, os.PathLike)):
        kind, value = split_source(source, "topics")
        if kind == "file":
            return _read_topics_file(value, format)
        with irds_reading():
            return _from_pt_dataset(_pt_irds_dataset(value), f"'{IRDS_PREFIX}{value}'", irds=True)
    if hasattr(source, "get_topics"):
        ref = source.irds_ref() if hasattr(source, "irds_ref") else None
        if ref is not None and irds_id(ref):
            label = f"'{IRDS_PREFIX}{irds_id(ref)}'"
        else:
            label = f"PyTerrier dataset {getattr(source, 'name', None) or type(source).__name__}"
        with irds_reading():
            return _from_pt_dataset(source, label, irds=ref is not None)
    if hasattr(source, "queries_iter"):
        dataset_id = irds_id(source)
        if dataset_id is None:
            raise ValueError("this ir_datasets dataset has no id; pass 'irds:<id>' or a topics frame instead")
        with irds_reading():
            return _from_pt_dataset(_pt_irds_dataset(dataset_id), f"'{IRDS_PREFIX}{dataset_id}'", irds=True)
    raise TypeError(
        "'topics' must be a DataFrame, a path to a topics file, a PyTerrier or ir_datasets dataset, "
        f"or an id such as 'irds:vaswani'; got {type(source).__name__}"
    )


def _pt_irds_dataset(dataset_id: str):
    load_irds(dataset_id, "topics")  # a clear error for unknown ids
    import pyterrier as pt

    return pt.get_dataset(IRDS_PREFIX + dataset_id)


def _from_pt_dataset(dataset, label: str, *, irds: bool) -> pd.DataFrame:
    try:
        frame = dataset.get_topics()
    except NotImplementedError as ex:
        raise ValueError(f"{label} has no topics ({ex})") from ex
    except Exception as ex:
        raise not_loadable(label, "topics", ex, "Pass a local topics file or frame instead.", irds=irds) from ex
    return _topics_from_frame(frame, f"topics of {label}")


def _read_topics_file(path: str, format: str | None) -> pd.DataFrame:
    if os.path.isdir(path):
        raise ValueError(f"topics path '{path}' is a folder, expected a topics file")
    if format is None:
        format = _detect_format(path)
    if format == "singleline":
        return _topics_from_frame(_read_singleline(path), f"topics file '{path}' (read as 'singleline')")
    import pyterrier as pt

    try:
        frame = pt.io.read_topics(path, format=format)  # type: ignore[arg-type]  # a format pt knows, checked by _detect_format
    except Exception as ex:  # parser errors of the format readers (ParseError, UnicodeDecodeError, ...)
        raise ValueError(f"cannot read topics file '{path}' as {format!r} topics: {type(ex).__name__}: {ex}") from ex
    return _topics_from_frame(frame, f"topics file '{path}' (read as {format!r})")


def _read_singleline(path: str) -> pd.DataFrame:
    """``qid query`` lines read as ``pt.io.read_topics(format="singleline")`` reads them (``#``
    comment and blank lines skipped, the qid ends at the first space or colon), from bytes read as
    the run and qrels files are (gzip, a byte-order mark dropped, a lone carriage return ending a
    line); a line with a qid and no query is an error naming the file and the line."""
    shown, data = read_file_bytes(path, "topics")
    rows = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise line_error(shown, "topics", lineno, raw, "not valid UTF-8 text") from None
        if not line or line.startswith("#"):
            continue
        match = _SINGLELINE.match(line)
        if match is None or not match.group(2):
            raise line_error(shown, "topics", lineno, raw, "a qid and no query ('qid query' expected)")
        rows.append(match.groups())
    return pd.DataFrame(rows, columns=["qid", "query"], dtype=object)


def _detect_format(path: str) -> str:
    try:
        with open(path, "rb") as f:
            head = f.read(2)
            f.seek(0)
            head = (gzip.open(f) if head == GZIP_MAGIC else f).read(1 << 16)
    except OSError as ex:
        raise ValueError(f"cannot read topics file '{path}': {ex}") from ex
    if re.search(rb"<top>", head, re.IGNORECASE):
        return "trec"
    if re.search(rb"<topics?[\s>]", head, re.IGNORECASE):
        return "trecxml"
    return "singleline"


def _topics_from_frame(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    if len(frame) == 0:
        raise ValueError(f"{what} is empty: no topics")
    renames = {}
    if "qid" not in frame.columns and "query_id" in frame.columns:
        renames["query_id"] = "qid"
    if "query" not in frame.columns and "text" in frame.columns:
        renames["text"] = "query"
    frame = frame.rename(columns=renames)
    columns = pick_columns(frame, {"qid": ("qid",), "query": ("query",)}, what, _TOPICS_NEEDS)
    out = frame.reset_index(drop=True)
    out["qid"] = as_ids(columns["qid"], "qid", what).array
    query = columns["query"]
    bad = query.isna().to_numpy()
    if not bad.any() and pd.api.types.infer_dtype(query, skipna=False) != "string":
        bad = query.map(lambda v: not isinstance(v, str)).to_numpy()
    if bad.any():
        raise ValueError(
            f"{what} has {int(bad.sum())} query value(s) that are not text, e.g. qid "
            f"{first_value(out['qid'], bad)!r} has query {first_value(query, bad)!r}"
        )
    out["query"] = query.astype(str).array
    repeated = out["qid"].duplicated()
    if repeated.any():
        raise ValueError(
            f"{what} has the same qid more than once: {first_value(out['qid'], repeated)!r} "
            f"({int(repeated.sum())} repeated row(s)); each topic needs one row"
        )
    return out
