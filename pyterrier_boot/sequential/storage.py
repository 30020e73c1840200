"""A sequential evaluation as a text file: ``#`` header lines (a JSON document of the settings,
the systems, the measures and the SHA-256 of the body), a column line, then one tab-separated line
per topic and measure, in the order the topics were added::

    qid  measure  <system 1>  <system 2>  ...

Scores are written with 17 significant digits (read back exactly). Loading recomputes the body's
checksum and refuses a file whose topics or scores were changed by hand. A state made from a judging
plan also keeps the plan's identity and sampled pairs per topic (``plan``; null otherwise, and
absent in files written before plans were supported).
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._checked_text import CheckedText

if TYPE_CHECKING:
    from .._typing import PathLike

__all__ = ["save_state", "load_state", "FORMAT"]

FORMAT = CheckedText(magic="# pyterrier_boot sequential evaluation", version=1, what="sequential evaluation",
                     writer="SequentialEvaluation.save", contents="topics or scores")
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
    header = {**{key: settings[key] for key in SETTINGS}, "plan": settings.get("plan"), "systems": systems,
              "measures": measures, "n_topics": len(qids)}
    path = Path(path)
    FORMAT.write(path, header, "\t".join(["qid", "measure", *systems]), _body(qids, measures, values))
    return path


def _plan(value: Any, shown: str) -> dict[str, Any] | None:
    """The header's ``plan`` entry, checked."""
    if value is None:
        return None
    if (not isinstance(value, dict) or set(value) != {"identity", "labels_per_topic"}
            or not isinstance(value["identity"], str) or isinstance(value["labels_per_topic"], bool)
            or not isinstance(value["labels_per_topic"], int | float)):
        raise ValueError(f"'{shown}': the header's 'plan' must hold the judging plan's identity and labels_per_topic")
    return {"identity": value["identity"], "labels_per_topic": float(value["labels_per_topic"])}


def load_state(path: PathLike) -> dict[str, Any]:
    """``qids, systems, measures, values`` and the settings of a file written by :func:`save_state`."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"'path': no file '{shown}'") from None
    except (UnicodeDecodeError, IsADirectoryError) as error:
        raise ValueError(f"'{shown}' is not a sequential evaluation ({error})") from None
    header, columns, body = FORMAT.read(text, shown, (*SETTINGS, "systems", "measures", "n_topics"))
    systems, measures = list(header["systems"]), list(header["measures"])
    if columns.split("\t") != ["qid", "measure", *systems]:
        raise ValueError(f"'{shown}': line 3 must name the columns qid, measure and the systems of the header")
    table = pd.read_csv(io.StringIO(body), sep="\t", header=None, names=["qid", "measure", *range(len(systems))],
                        dtype={"qid": str, "measure": str}, keep_default_na=False)
    n = header["n_topics"]
    if len(table) != n * len(measures) or list(table["measure"]) != measures * n:
        raise ValueError(f"'{shown}': the body must hold one line per topic and measure, measures in the header's order")
    values = table[list(range(len(systems)))].to_numpy(float).reshape(n, len(measures), len(systems))
    settings = {key: header[key] for key in SETTINGS}
    settings["bounds"] = tuple(settings["bounds"])
    settings["plan"] = _plan(header.get("plan"), shown)
    return {"qids": list(table["qid"].iloc[:: len(measures)]), "systems": systems, "measures": measures,
            "values": values.transpose(0, 2, 1).copy(), **settings}
