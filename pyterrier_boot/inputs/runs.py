"""Runs: TREC run files, PyTerrier result frames and transformers, read into validated frames.

A run frame here has exactly the columns ``qid`` (str), ``docno`` (str) and ``score`` (float64),
in input order. Nothing is sorted: the measure engine ranks by score as trec_eval does.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
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
from ._files import fast_table, iter_lines, line_error, not_a_number, parse_number, read_file_bytes

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from .._typing import RunLike, RunsLike, TopicsLike


__all__ = ["Runs", "check_run", "check_run_columns", "is_run_folder", "iter_runs", "read_run", "read_runs"]

_RUN_LINE = "qid Q0 docno rank score tag"
_RUN_COLUMNS = {"qid": ("qid", "query_id"), "docno": ("docno", "doc_id"), "score": ("score",)}
_RUN_NEEDS = "A run needs 'qid', 'docno', 'score' (PyTerrier) or 'query_id', 'doc_id', 'score' (ir_measures)."


class Runs(dict):
    """Validated runs: a read-only dict ``name -> run frame``, as :func:`read_runs` returns.

    Each frame has exactly the columns ``qid``, ``docno`` (str) and ``score`` (float64), checked as
    :func:`read_run` checks them. Functions that take runs take a :class:`Runs` as read, without
    checking the frames again; to change the runs, edit ``dict(runs)`` (a plain dict, read again
    where it is passed).
    """

    def __init__(self, runs: dict[str, pd.DataFrame] | None = None) -> None:
        super().__init__(runs or {})
        for name, frame in self.items():
            if (
                not isinstance(name, str)
                or not isinstance(frame, pd.DataFrame)
                or list(frame.columns) != ["qid", "docno", "score"]
                or frame["score"].dtype != np.float64
            ):
                raise TypeError(
                    "Runs hold run frames with columns qid, docno, score (float64) under string names; "
                    "build Runs with read_runs(...), which checks and converts the runs"
                )

    def _read_only(self, *args, **kwargs):
        raise TypeError("Runs are read-only: change dict(runs), a plain dict, and pass that instead")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self):
        return (Runs, (dict(self),))


def read_run(source: RunLike, *, name: str | None = None) -> pd.DataFrame:
    """Read one run into a validated frame with columns ``qid``, ``docno``, ``score``.

    Args:
        source: a path (str or PathLike) to a TREC run file, or a DataFrame. The file has lines
            ``qid Q0 docno rank score tag`` separated by any whitespace, plain or gzip (recognised
            by its magic bytes). As in trec_eval 10, lines whose first non-blank character is
            ``#`` are comments and blank lines are skipped; fields after the tag are ignored; the
            ``Q0`` and ``rank`` fields are not used (ranks come from the scores). The text must be
            UTF-8 (a byte-order mark is ignored; a file saved as UTF-16 is refused). The frame is a
            PyTerrier result frame (``qid``, ``docno``, ``score``, other columns ignored) or an
            ir_measures run (``query_id``, ``doc_id``, ``score``).
        name: label for the run in error messages.

    Returns:
        A new DataFrame with columns ``qid`` and ``docno`` (pandas strings, exactly as written:
        ``"01"`` stays ``"01"``; integer ids from a frame go through ``str()``) and ``score``
        (float64), in input order.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: the file is unreadable or has a malformed line (the message gives the file,
            the 1-based line number and the line: fewer than 6 fields, a score that is not a
            finite number); a frame misses a column or has NaN, infinite or non-numeric scores;
            the same docno appears twice for a topic (trec_eval refuses such runs too); the run
            is empty. Messages name the run, and for a bad score the topic and the document.

    Example:
        >>> import pandas as pd
        >>> from pyterrier_boot import read_run
        >>> read_run(pd.DataFrame({"qid": [1, 1], "docno": ["d1", "d2"], "score": [2.0, 1]}))
          qid docno  score
        0   1    d1    2.0
        1   1    d2    1.0
    """
    if isinstance(source, pd.DataFrame):
        return _run_from_frame(source, _describe(name))
    if isinstance(source, (str, os.PathLike)):
        frame, _ = _read_run_file(source, name)
        return frame
    raise TypeError(
        f"'source' must be a path to a TREC run file or a DataFrame, got {type(source).__name__} "
        "(read_runs() reads several runs and runs transformers)"
    )


def read_runs(runs: RunsLike, *, topics: TopicsLike | None = None,
              names: Sequence[str] | None = None, batch_size: int | None = None,
              verbose: bool = False) -> Runs:
    """Read several runs into a dict ``name -> run frame`` (each as :func:`read_run` returns).

    Args:
        runs: a :class:`Runs` (returned as is); a DataFrame; a run file; a folder (its regular
            files sorted by name, hidden ones skipped); a PyTerrier Transformer (run on ``topics``
            as ``pt.Experiment`` does); a list of these; or a dict ``name -> run`` (not a folder).
        topics: the topics transformers are run on (:func:`read_topics`); required for them.
        names: names for the runs, one per run after folders are expanded (not with a dict).
        batch_size: run transformers on this many topics at a time (``transform_gen``).
        verbose: show a progress bar (``pt.tqdm``).

    Names, unless given: dict keys; for a file, its run tag (6th field) when the file has a
    single tag, else the file name without ``.gz``; for a transformer ``str(transformer)`` (as
    ``pt.Experiment``); for a frame its ``name`` column when that holds a single value, else
    ``"run <i>"`` with ``i`` the position in ``runs``.

    Returns:
        :class:`Runs`, a read-only dict ``name -> run frame``. A ValueError when two runs get the
        same name (naming both sources), ``names`` has the wrong length, a transformer comes
        without topics or a run fails :func:`read_run`'s checks; a TypeError for an element that
        is not a path, DataFrame or Transformer. E.g. ``read_runs("runs/", verbose=True)``.
    """
    _check_batch_size(batch_size)
    if isinstance(runs, Runs) and names is None:
        return runs
    return Runs(dict(iter_runs(runs, topics=topics, names=names, batch_size=batch_size, verbose=verbose)))


def iter_runs(runs: RunsLike, *, topics: TopicsLike | None = None, names: Sequence[str] | None = None,
              batch_size: int | None = None, verbose: bool = False,
              check_pairs: bool = True) -> Iterator[tuple[str, pd.DataFrame]]:
    """Read runs one at a time: ``(name, run frame)`` pairs, as :func:`read_runs` reads and names
    them (same arguments, checks and errors), for callers that need not hold every run at once,
    e.g. interning runs far larger than memory allows together. A :class:`Runs` yields its frames.

    ``check_pairs=False`` leaves one check to the caller: that no (qid, docno) pair repeats
    (:func:`check_run`, naming the run as ``frame.attrs["what"]`` says, e.g. with its file).
    :class:`~pyterrier_boot.measures.arrays.JudgedRunsBuilder` makes it on the integer ids it gives
    the docnos anyway, so the strings are hashed once rather than twice.

    Example:
        >>> for name, run in iter_runs("runs/"):         # doctest: +SKIP
        ...     print(name, len(run))
    """
    _check_batch_size(batch_size)
    if isinstance(runs, Runs) and names is None:
        yield from runs.items()
        return
    entries = _expand(runs, names)
    if any(entry.kind == "transformer" for entry in entries):
        if topics is None:
            raise ValueError(
                "'topics' are needed to run "
                + ", ".join(e.source_label for e in entries if e.kind == "transformer")
                + "; pass topics=... (a topics frame, file, PyTerrier dataset or 'irds:<id>')"
            )
        from .topics import read_topics

        topics = read_topics(topics)

    iterator = entries
    if verbose:
        import pyterrier as pt

        iterator = pt.tqdm(entries, desc="read_runs", unit="run")
    origin: dict[str, str] = {}
    for entry in iterator:
        frame, run_name = _read_entry(entry, topics, batch_size, verbose, check_pairs)
        if run_name in origin:
            raise ValueError(
                f"two runs are named {run_name!r}: {origin[run_name]} and {entry.source_label}; "
                "pass names=... or a dict to name them apart"
            )
        origin[run_name] = entry.source_label
        yield run_name, frame
        del frame  # not held while the next run is read


def _check_batch_size(batch_size) -> None:
    if batch_size is not None and (
        not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1
    ):
        raise ValueError(f"'batch_size' must be a positive integer or None, got {batch_size!r}")


class _Entry:
    """One run to read: its source, kind ('file', 'frame', 'transformer') and assigned name."""

    __slots__ = ("source", "kind", "name", "position", "source_label")

    def __init__(self, source, kind, name, position):
        self.source, self.kind, self.name, self.position = source, kind, name, position
        if kind == "file":
            self.source_label = f"file '{source}'"
        elif kind == "frame":
            self.source_label = f"the DataFrame at position {position}"
        else:
            self.source_label = f"transformer {source!r}"


def _expand(runs, names) -> list[_Entry]:
    """Flatten ``runs`` into entries (folders expanded), attaching dict keys or ``names``."""
    if isinstance(runs, dict):
        if names is not None:
            raise ValueError("'names' cannot be combined with a dict of runs: the dict keys are the names")
        if not runs:
            raise ValueError("'runs' is an empty dict: no runs to read")
        entries = []
        for position, (key, value) in enumerate(runs.items()):
            if not isinstance(key, str):
                raise TypeError(f"run names (dict keys) must be strings, got {key!r}")
            kind = _kind(value, f"runs[{key!r}]")
            if kind == "folder":
                raise ValueError(f"runs[{key!r}] is the folder '{value}': a dict value must be a single run")
            entries.append(_Entry(value, kind, key, position))
        return entries

    items = list(runs) if isinstance(runs, (list, tuple)) else [runs]
    if not items:
        raise ValueError("'runs' is empty: no runs to read")
    entries = []
    for position, item in enumerate(items):
        kind = _kind(item, f"runs[{position}]" if isinstance(runs, (list, tuple)) else "runs")
        if kind == "folder":
            files = _folder_files(item)
            entries.extend(_Entry(f, "file", None, position) for f in files)
        else:
            entries.append(_Entry(item, kind, None, position))
    if names is not None:
        names = list(names)
        if len(names) != len(entries):
            raise ValueError(f"'names' has {len(names)} name(s) but there are {len(entries)} runs")
        for entry, name in zip(entries, names, strict=True):
            if not isinstance(name, str):
                raise TypeError(f"'names' must be strings, got {name!r}")
            entry.name = name
    return entries


def is_run_folder(runs: object) -> bool:
    """Whether ``runs`` is a path to a folder, which :func:`read_runs` reads as several runs (its files)."""
    return isinstance(runs, (str, os.PathLike)) and Path(os.fspath(runs)).is_dir()


def _kind(item, label: str) -> str:
    if isinstance(item, pd.DataFrame):
        return "frame"
    if isinstance(item, (str, os.PathLike)):
        return "folder" if is_run_folder(item) else "file"
    if isinstance(item, (list, tuple, dict)):
        raise TypeError(f"{label} is a {type(item).__name__}: runs can be nested one level only (a list or dict of runs)")
    import pyterrier as pt

    if isinstance(item, pt.Transformer):
        return "transformer"
    raise TypeError(
        f"{label} must be a path to a run file or folder, a DataFrame or a PyTerrier Transformer, "
        f"got {type(item).__name__}"
    )


def _folder_files(folder) -> list[Path]:
    path = Path(os.fspath(folder))
    files = sorted(p for p in path.iterdir() if not p.name.startswith(".") and p.is_file())
    if not files:
        raise ValueError(f"run folder '{path}' has no run files (hidden files are skipped)")
    return files


def _read_entry(entry: _Entry, topics, batch_size, verbose, check_pairs=True) -> tuple[pd.DataFrame, str]:
    if entry.kind == "file":
        frame, tags = _read_run_file(entry.source, entry.name, check_pairs)
        frame.attrs["file"] = os.fspath(entry.source)  # the file's name groups runs (seeds) on the command line
        if entry.name is not None:
            return frame, entry.name
        unique_tags = tags.unique()
        if len(unique_tags) == 1:
            return frame, str(unique_tags[0])
        file_name = Path(os.fspath(entry.source)).name
        return frame, file_name[:-3] if file_name.endswith(".gz") else file_name

    if entry.kind == "frame":
        name = entry.name
        if name is None:
            name = f"run {entry.position}"
            if "name" in entry.source.columns:
                values = entry.source["name"].unique()
                if len(values) == 1:
                    name = str(values[0])
        return _run_from_frame(entry.source, _describe(name), check_pairs), name

    name = entry.name if entry.name is not None else str(entry.source)
    results = _transform(entry.source, topics, batch_size, verbose)
    what = f"run {name!r} (the output of transformer {entry.source!r} on {len(topics)} topics)"
    return _run_from_frame(results, what, check_pairs), name


def _transform(system, topics: pd.DataFrame, batch_size, verbose) -> pd.DataFrame:
    """Run a transformer on the topics as pt.Experiment does (whole, or in batches)."""
    if batch_size is None:
        return system.transform(topics)
    batches = system.transform_gen(topics, batch_size=batch_size)
    if verbose:
        import pyterrier as pt

        batches = pt.tqdm(batches, desc=str(system), unit="batch", total=math.ceil(len(topics) / batch_size), leave=False)
    frames = [frame for frame in batches if len(frame)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["qid", "docno", "score"])


def _describe(name) -> str:
    return "run" if name is None else f"run {name!r}"


def _run_from_frame(frame: pd.DataFrame, what: str, check_pairs: bool = True) -> pd.DataFrame:
    """Validate a result frame and return the new ``qid, docno, score`` frame."""
    if len(frame) == 0:
        raise ValueError(f"{what} is empty: it has no results")
    columns = pick_columns(frame, _RUN_COLUMNS, what, _RUN_NEEDS)
    qid = as_ids(columns["qid"], "qid", what)
    docno = as_ids(columns["docno"], "docno", what)
    out = pd.DataFrame({"qid": qid.array, "docno": docno.array})
    score = as_numbers(columns["score"], "score", what, out)
    out["score"] = score
    bad = ~np.isfinite(score)
    if bad.any():
        shown = first_value(columns["score"], bad)
        raise ValueError(
            f"{what} has {int(bad.sum())} score(s) that are NaN, infinite or not numeric, e.g. "
            f"{row_example(out, bad)} has score {shown!r}; every result needs a finite score"
        )
    if check_pairs:
        check_run(out, what)
    else:
        out.attrs["what"] = what
    return out


def check_run_columns(frame: pd.DataFrame, what: str) -> None:
    """Refuse a result frame without ``qid``, ``docno`` and ``score`` columns (or ir_measures'
    ``query_id``, ``doc_id``), naming ``what``, the missing columns and the columns it has."""
    pick_columns(frame, _RUN_COLUMNS, what, _RUN_NEEDS)


def check_run(run: pd.DataFrame, what: str) -> None:
    """Refuse a run (a ``qid, docno, score`` frame) with the same docno twice for a topic, naming
    the first repeated pair; ``what`` names the run in the message."""
    check_unique_pairs(
        run, what, "has the same docno more than once for a topic",
        "trec_eval refuses such runs too; keep one row per (qid, docno), "
        "e.g. run.drop_duplicates(['qid', 'docno'])",
    )


def _read_run_file(source, name, check_pairs=True) -> tuple[pd.DataFrame, pd.Series]:
    """Parse and validate a run file; also return its tag column (for naming). With
    ``check_pairs=False`` the run's description goes to ``run.attrs["what"]`` for the caller's check."""
    shown, data = read_file_bytes(source, "run")
    what = f"run file '{shown}'" if name is None else f"run {name!r} (file '{shown}')"
    table = fast_table(data, usecols=[0, 2, 4, 5], dtype={0: "str", 2: "str", 4: "float64", 5: "str"})
    if table is None or list(table.columns) != [0, 2, 4, 5] or (table[5] == "").any() or not np.isfinite(table[4].to_numpy()).all():
        table = _parse_run_lines(data, shown)
    if len(table) == 0:
        raise ValueError(f"{what} is empty: it has no results (only blank or comment lines)")
    run = pd.DataFrame({"qid": table[0], "docno": table[2], "score": table[4]})
    if check_pairs:
        check_run(run, what)
    else:
        run.attrs["what"] = what
    return run, table[5]


def _parse_run_lines(data: bytes, shown: str) -> pd.DataFrame:
    """The exact parser: trec_eval's rules line by line; raises on the first malformed line."""
    qids, docnos, scores, tags = [], [], [], []
    for lineno, raw, fields in iter_lines(data, shown, "run"):
        if len(fields) < 6:
            raise line_error(shown, "run", lineno, raw, f"expected 6 fields '{_RUN_LINE}', found {len(fields)}")
        score = parse_number(fields[4])
        if score is None:
            raise line_error(shown, "run", lineno, raw, not_a_number("score", fields[4]))
        if not math.isfinite(score):
            raise line_error(shown, "run", lineno, raw, f"score {fields[4]!r} is not a finite number")
        qids.append(fields[0])
        docnos.append(fields[2])
        scores.append(score)
        tags.append(fields[5])
    return pd.DataFrame(
        {0: pd.Series(qids, dtype="str"), 2: pd.Series(docnos, dtype="str"),
         4: pd.Series(scores, dtype="float64"), 5: pd.Series(tags, dtype="str")}
    )
