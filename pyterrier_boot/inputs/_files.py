"""Reading whitespace-separated TREC files (runs, qrels): a fast pandas path and an exact line parser.

The fast path hands the whole file to pandas' C tokenizer. Whenever its result looks doubtful
(a short line, a non-numeric or non-finite number, an extra field where none is allowed, bad
UTF-8), the caller re-reads the file with :func:`iter_lines`, which reproduces trec_eval's
rules line by line and names the first offending line. Both paths accept the same files.

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (old Mac files), as Python's universal newlines,
pandas, ``pt.io.read_results`` and ir_measures read them: :func:`read_file_bytes` turns a lone
``\\r`` into ``\\n``, so both paths and the line numbers in messages see the same lines. Numbers
are ASCII, as trec_eval reads them (:func:`parse_number`).
"""
from __future__ import annotations

import csv
import gzip
import io
import math
import os
import re
import zlib
from pathlib import Path

import pandas as pd

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# trec_eval 10 skips a line whose first non-blank character is '#'; '#' later in a line is data
_COMMENT_LINE = re.compile(rb"^[ \t]*#[^\n]*(?:\n|\Z)", re.MULTILINE)
_SHOWN_CHARS = 80
# a carriage return not followed by a newline ends a line (pandas, universal newlines)
_LONE_CR = re.compile(rb"\r(?!\n)")
#: an ASCII integer: read exactly (as trec_eval's atol), not through a float, which is exact only to 2**53
ASCII_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_file_bytes(source, kind: str) -> tuple[str, bytes]:
    """Return ``(path as shown in messages, uncompressed content)`` of a ``kind`` file.

    Gzip is recognised by its magic bytes, whatever the file name. A UTF-8 byte-order mark is
    dropped; ASCII text saved as UTF-16 is refused with a message saying so. A carriage return
    not followed by a newline ends a line (module docstring): it becomes ``\\n``.
    """
    path = Path(os.fspath(source))
    shown = str(path)
    if not path.exists():
        raise FileNotFoundError(f"{kind} file not found: '{shown}'")
    if path.is_dir():
        raise ValueError(f"{kind} path '{shown}' is a folder, expected a {kind} file")
    try:
        data = path.read_bytes()
    except OSError as ex:
        raise ValueError(f"cannot read {kind} file '{shown}': {ex.strerror or ex}") from ex
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as ex:
            raise ValueError(f"{kind} file '{shown}' is gzip-compressed but cannot be decompressed: {ex}") from ex
    if data.startswith(UTF16_BOMS) and _utf16_ascii(data):
        raise ValueError(f"{kind} file '{shown}' is UTF-16 text (it starts with a UTF-16 byte-order mark): "
                         "save it as UTF-8")
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    if b"\r" in data and _LONE_CR.search(data):
        data = _LONE_CR.sub(b"\n", data)
    return shown, data


def fast_table(data: bytes, *, usecols=None, names=None, dtype=None) -> pd.DataFrame | None:
    """Parse whitespace-separated ``data`` with pandas' C engine; ``None`` if pandas refuses it.

    Comment lines are removed first; blank lines are skipped; missing trailing fields come back
    as empty strings (callers check for them); quotes are ordinary characters. ``data`` comes from
    :func:`read_file_bytes` (no lone carriage return). Data that pandas would read differently
    from :func:`iter_lines` is left to it: vertical tabs and form feeds, and text that is not
    UTF-8 (pandas does not decode fields it skips).
    """
    if b"\x0b" in data or b"\x0c" in data:
        return None  # pandas does not split fields on vertical tabs or form feeds
    if not (data.isascii() or _decodes(data, "utf-8")):
        return None
    if b"#" in data and _COMMENT_LINE.search(data):  # the cheap test first: most files have no '#'
        data = _COMMENT_LINE.sub(b"", data)
    try:
        return pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=names, usecols=usecols, dtype=dtype,
            engine="c", na_filter=False, quoting=csv.QUOTE_NONE, encoding="utf-8",
        )
    except (ValueError, OverflowError):  # ParserError, EmptyDataError, UnicodeDecodeError, bad numbers
        return None


def _utf16_ascii(data: bytes) -> bool:
    """Whether ``data`` is ASCII text encoded as UTF-16 (a TREC file saved by a Windows editor)."""
    try:
        return data.decode("utf-16").isascii()
    except UnicodeDecodeError:
        return False


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def iter_lines(data: bytes, shown: str, kind: str):
    """Yield ``(line number, raw line, fields)`` for each line that is neither blank nor a comment.

    Fields are split on ASCII whitespace (as trec_eval and pandas do) and decoded as UTF-8.
    """
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        try:
            yield lineno, raw, [field.decode("utf-8") for field in fields]
        except UnicodeDecodeError:
            raise line_error(shown, kind, lineno, raw, "not valid UTF-8 text") from None


def line_error(shown: str, kind: str, lineno: int, raw: bytes, problem: str) -> ValueError:
    """``ValueError`` naming the file, the 1-based line, the problem and the (truncated) line."""
    text = raw.decode("utf-8", "replace").rstrip("\r")
    if len(text) > _SHOWN_CHARS:
        text = text[: _SHOWN_CHARS - 3] + "..."
    return ValueError(f"malformed {kind} file '{shown}', line {lineno}: {problem}: {text!r}")


def parse_number(text: str) -> float | None:
    """``float(text)`` of an ASCII number, or ``None`` where pandas' parser would refuse it too
    (``1_000``) and where trec_eval would not read a number: digits other than ASCII (``'١٢'``,
    ``'１２'``), other Unicode characters such as a no-break space (``'0\\xa0'``)."""
    if "_" in text or not text.isascii():
        return None
    try:
        return float(text)
    except ValueError:
        return None


def not_a_number(name: str, text: str, kind: str = "a number") -> str:
    """``"score 'x' is not a number"``, saying why when the text holds non-ASCII characters."""
    why = "" if text.isascii() else " (numbers are read as ASCII digits, as trec_eval reads them)"
    return f"{name} {text!r} is not {kind}{why}"


def parse_integer(text: str) -> int | None:
    """An integer label: ``"2"`` (exactly, as trec_eval's ``atol``, within int64, as the fast path
    reads it), or an integral number up to 2^53 such as ``"2.0"``; ``None`` otherwise."""
    if ASCII_INTEGER.fullmatch(text):
        exact = int(text)
        return exact if -(2**63) <= exact < 2**63 else None
    value = parse_number(text)
    if value is None or not math.isfinite(value) or value != math.floor(value) or abs(value) >= 2**53:
        return None
    return int(value)
