"""Text files that check themselves: a first line naming the kind of file, a ``# {json}`` header
(settings, a version and the SHA-256 of the body), a line naming the columns, then the body.

A judging plan (:mod:`pyterrier_boot.judging.storage`) and a sequential evaluation
(:mod:`pyterrier_boot.sequential.storage`) are kept this way: readable, diffable, and refused when
edited after they were written.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._atomic import atomic_file

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = ["CheckedText"]


@dataclass(frozen=True)
class CheckedText:
    """One kind of checked text file.

    Attributes:
        magic: its first line.
        version: the format version written in the header and required on reading.
        what: its name in messages ("judging plan").
        writer: what writes it ("JudgingPlan.save").
        contents: what its body holds, for the checksum's message ("pairs, probabilities or sample").
        older: earlier versions still read (the reader fills the settings they lack).
    """

    magic: str
    version: int
    what: str
    writer: str
    contents: str
    older: tuple[int, ...] = ()

    def write(self, path: Path, settings: dict[str, Any], columns: str, body: str) -> None:
        """Write ``settings`` (with the version and the body's checksum), ``columns`` and ``body``
        to ``path``, all or nothing."""
        header = {"version": self.version, **settings, "body_sha256": _sha256(body)}
        with atomic_file(path, f"write the {self.what}") as file:
            file.write(f"{self.magic}\n# {json.dumps(header)}\n{columns}\n{body}")

    def read(self, text: str, shown: str, needed: Iterable[str]) -> tuple[dict[str, Any], str, str]:
        """``(header, columns line, body)`` of ``text`` (the file ``shown``); a ValueError when it is
        not such a file, is of another version, lacks a ``needed`` setting or its body does not match
        its checksum."""
        lines = text.split("\n", 3)
        if len(lines) < 4 or lines[0] != self.magic or not lines[1].startswith("# "):
            raise ValueError(f"'{shown}' is not a {self.what} written by {self.writer} (its first line is not "
                             f"{self.magic!r})")
        try:
            header = json.loads(lines[1][2:])
        except json.JSONDecodeError:
            raise ValueError(f"'{shown}': the header (line 2) of the {self.what} is not valid JSON") from None
        if (not isinstance(header, dict) or header.get("version") not in (self.version, *self.older)
                or {*needed, "body_sha256"} - set(header)):
            raise ValueError(f"'{shown}': a {self.what} of another version, or its header lacks settings")
        if _sha256(lines[3]) != header["body_sha256"]:
            raise ValueError(f"'{shown}': the {self.contents} of this {self.what} do not match the checksum written "
                             "with them: the file was changed after it was saved")
        return header, lines[2], lines[3]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
