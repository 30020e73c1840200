"""Checks and conversions shared by the run, qrels and topics frames."""
from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd


def pick_columns(frame: pd.DataFrame, wanted: Mapping[str, tuple[str, ...]], what: str, needs: str) -> dict[str, pd.Series]:
    """Find each wanted column under its accepted names (first match wins).

    ``wanted`` maps our name to the accepted spellings, e.g. ``{"qid": ("qid", "query_id")}``.
    Raises a ValueError listing what is missing and what the frame has; ``needs`` describes the
    expected columns for the message.
    """
    found, missing = {}, []
    for ours, spellings in wanted.items():
        name = next((s for s in spellings if s in frame.columns), None)
        if name is None:
            missing.append(spellings[0])
            continue
        column = frame[name]
        if isinstance(column, pd.DataFrame):
            raise ValueError(f"{what} has {column.shape[1]} columns named {name!r}; expected one")
        found[ours] = column
    if missing:
        raise ValueError(
            f"{what} is missing column(s) {', '.join(repr(m) for m in missing)}; it has columns "
            f"{[str(c) for c in frame.columns]}. {needs}"
        )
    return found


def as_ids(column: pd.Series, name: str, what: str) -> pd.Series:
    """Identifiers as pandas strings: strings kept exactly as written, integers through ``str()``.

    Floats, missing values and other objects are refused (``1.0`` is not a reliable id). A
    categorical column is read through its values (``pd.read_parquet`` often returns one).
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(column.cat.categories.dtype)
    missing = column.isna().to_numpy()
    if missing.any():
        raise ValueError(
            f"{what} has {int(missing.sum())} missing {name!r} value(s) (NaN or None), the first at row "
            f"{int(missing.argmax())}; every row needs a {name}"
        )
    kind = pd.api.types.infer_dtype(column, skipna=False)
    if kind in ("string", "empty"):
        return column.astype(str)
    if pd.api.types.is_integer_dtype(column.dtype) or kind == "integer":
        return column.astype(str)
    if kind == "mixed-integer":  # ints and strings together; anything else is refused below
        bad = column.map(lambda v: not isinstance(v, (str, int, np.integer)) or isinstance(v, bool))
        if not bad.any():
            return column.map(str).astype(str)
    else:
        bad = column.map(lambda v: not isinstance(v, str))
    example = first_value(column, bad)
    raise ValueError(
        f"{what} has {int(bad.sum())} {name!r} value(s) that are not strings or integers, "
        f"e.g. {example!r} ({type(example).__name__}); {name} values must be strings (or integers)"
    )


def as_numbers(column: pd.Series, name: str, what: str, rows: pd.DataFrame) -> np.ndarray:
    """float64 values of a column of real numbers; NaN where a value is missing or is text that is
    not an ASCII number (``'2.5'`` is read, ``'١٢'``, ``'１２'`` and ``'0\\xa0'`` are not, as trec_eval).

    Raises a TypeError for a column whose type holds no real numbers (booleans, dates, durations,
    complex numbers, ...) and a ValueError, naming the first such row of ``rows`` (its qid and
    docno), for values of those types in a column of Python objects.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(column.cat.categories.dtype)
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_complex_dtype(dtype) or not (
        pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    ):
        raise TypeError(f"{what} has a {name!r} column of {dtype}, not of real numbers; {name} values must be "
                        f"numbers (convert the column, e.g. with .astype(float))")
    if pd.api.types.is_numeric_dtype(dtype):
        return column.to_numpy(dtype="float64", na_value=np.nan)
    wrong = column.map(_not_real).to_numpy(dtype=bool)
    if wrong.any():
        example = first_value(column, wrong)
        raise ValueError(
            f"{what} has {int(wrong.sum())} {name!r} value(s) that are not real numbers, e.g. "
            f"{row_example(rows, wrong)} has {name} {example!r} ({type(example).__name__})"
        )
    text = column.map(lambda v: isinstance(v, str) and not v.isascii()).to_numpy(dtype=bool)
    values = pd.to_numeric(column.mask(text), errors="coerce")
    return values.to_numpy(dtype="float64", na_value=np.nan)


def _not_real(value) -> bool:
    """Whether an object is of a type that is not a real number nor text nor missing."""
    if value is None or value is pd.NA or isinstance(value, str):
        return False
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Number):
        return True
    return isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real)  # Decimal is a Number only


def first_value(column: pd.Series, mask):
    """The first value of ``column`` where ``mask`` holds, as a plain Python object (for messages)."""
    return column.to_numpy()[np.asarray(mask)][:1].tolist()[0]


def row_example(frame: pd.DataFrame, mask, columns=("qid", "docno")) -> str:
    """``qid '1' docno 'd3'`` for the first row where ``mask`` holds."""
    return " ".join(f"{c} {first_value(frame[c], mask)!r}" for c in columns)


def check_unique_pairs(frame: pd.DataFrame, what: str, problem: str, advice: str) -> None:
    """Refuse a frame with the same (qid, docno) twice, naming the first such pair and the count."""
    repeated = frame.duplicated(["qid", "docno"])
    if repeated.any():
        raise ValueError(
            f"{what} {problem}: {row_example(frame, repeated)} "
            f"({int(repeated.sum())} repeated row(s) in total). {advice}"
        )
