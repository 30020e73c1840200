"""A sequential evaluation as a text file: ``#`` header lines (a JSON document of the settings,
the systems, the measures and the SHA-256 of the body), a column line, then one tab-separated line
per topic and measure, in the order the topics were added::

    qid  measure  <system 1>  <system 2>  ...

Scores are written with 17 significant digits (read back exactly). Loading recomputes the body's
checksum and refuses a file whose topics or scores were changed by hand.
"""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._atomic import atomic_file

if TYPE_CHECKING:
    from .._typing import PathLike

__all__ = ["save_state", "load_state", "MAGIC", "VERSION"]

MAGIC = "# pyterrier_boot sequential evaluation"
VERSION = 1
SETTINGS = ("baseline", "correction", "confidence_level", "bounds")


def _check_names(labels: list[str], what: str) -> None:
    for label in labels:
        if not label or any(c in label for c in "\t\r\n"):
            raise ValueError(f"cannot save the sequential evaluation: the {what} {label!r} is empty or holds a tab "
                             "or a line break, which its tab-separated file cannot hold")


def _body(qids: list[str], measures: list[str], values: np.ndarray) -> str:
    lines = []
    for t, qid in enumerate(qids):
        for j, measure in enumerate(measures):
            lines.append("\t".join([qid, measure, *(f"{v:.17g}" for v in values[t, :, j])]) + "\n")
    return "".join(lines)


def save_state(path: PathLike, *, qids: list[str], systems: list[str], measures: list[str], values: np.ndarray,
               settings: dict[str, Any]) -> Path:
    """Write the state (``values``: topics x systems x measures) to ``path``, all or nothing."""
    for labels, what in ((qids, "topic"), (systems, "system"), (measures, "measure")):
        _check_names(labels, what)
    body = _body(qids, measures, values)
    header = {"version": VERSION, **{key: settings[key] for key in SETTINGS}, "systems": systems,
              "measures": measures, "n_topics": len(qids), "body_sha256": hashlib.sha256(body.encode()).hexdigest()}
    path = Path(path)
    with atomic_file(path, "write the sequential evaluation") as file:
        file.write(f"{MAGIC}\n# {json.dumps(header)}\n" + "\t".join(["qid", "measure", *systems]) + f"\n{body}")
    return path


def _split(text: str, shown: str) -> tuple[dict, str, str]:
    lines = text.split("\n", 3)
    if len(lines) < 4 or lines[0] != MAGIC or not lines[1].startswith("# "):
        raise ValueError(f"'{shown}' is not a sequential evaluation written by SequentialEvaluation.save (its first "
                         f"line is not {MAGIC!r})")
    try:
        header = json.loads(lines[1][2:])
    except json.JSONDecodeError:
        raise ValueError(f"'{shown}': the header (line 2) of the sequential evaluation is not valid JSON") from None
    needed = {*SETTINGS, "systems", "measures", "n_topics", "body_sha256"}
    if not isinstance(header, dict) or header.get("version") != VERSION or needed - set(header):
        raise ValueError(f"'{shown}': a sequential evaluation of another version, or its header lacks settings")
    return header, lines[2], lines[3]


def load_state(path: PathLike) -> dict[str, Any]:
    """``qids, systems, measures, values`` and the settings of a file written by :func:`save_state`."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"'path': no file '{shown}'") from None
    except (UnicodeDecodeError, IsADirectoryError) as error:
        raise ValueError(f"'{shown}' is not a sequential evaluation ({error})") from None
    header, columns, body = _split(text, shown)
    systems, measures = list(header["systems"]), list(header["measures"])
    if columns.split("\t") != ["qid", "measure", *systems]:
        raise ValueError(f"'{shown}': line 3 must name the columns qid, measure and the systems of the header")
    if hashlib.sha256(body.encode()).hexdigest() != header["body_sha256"]:
        raise ValueError(f"'{shown}': the topics or scores of this sequential evaluation do not match the checksum "
                         "written with them: the file was changed after it was saved")
    table = pd.read_csv(io.StringIO(body), sep="\t", header=None, names=["qid", "measure", *range(len(systems))],
                        dtype={"qid": str, "measure": str}, keep_default_na=False)
    n = header["n_topics"]
    if len(table) != n * len(measures) or list(table["measure"]) != measures * n:
        raise ValueError(f"'{shown}': the body must hold one line per topic and measure, measures in the header's order")
    values = table[list(range(len(systems)))].to_numpy(float).reshape(n, len(measures), len(systems))
    settings = {key: header[key] for key in SETTINGS}
    settings["bounds"] = tuple(settings["bounds"])
    return {"qids": list(table["qid"].iloc[:: len(measures)]), "systems": systems, "measures": measures,
            "values": values.transpose(0, 2, 1).copy(), **settings}
