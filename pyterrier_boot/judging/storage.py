"""A judging plan as a text file: ``#`` header lines (a JSON document of the plan's settings,
fingerprints and the SHA-256 of the body), a column line, then one whitespace-separated line per
pool pair::

    qid docno rank auto_label stratum inclusion_probability sampled

Probabilities are written with 17 significant digits (read back exactly). Loading recomputes the
body's checksum and refuses a file whose pairs, probabilities or sample were changed, as well as
probabilities outside (0, 1] or that do not add up to the budget.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._checked_text import CheckedText

if TYPE_CHECKING:
    from .._typing import PathLike
    from .plan import JudgingPlan

__all__ = ["load_plan", "save_plan"]

FORMAT = CheckedText(magic="# pyterrier_boot judging plan", version=2, what="judging plan", writer="JudgingPlan.save",
                     contents="pairs, probabilities or sample", older=(1,))
_SETTINGS = ("strategy", "design", "budget", "depth", "uniform_share", "runs", "auto_fingerprint",
             "pool_fingerprint", "seed")
#: settings of version 2 (None in a version 1 file): the label map, the pairs without an automatic
#: label, the measures the plan was made for
_ADDED = ("label_map", "unlabelled", "measures")


def _body(plan: JudgingPlan) -> str:
    pool = plan.pool
    columns = [pool["qid"], pool["docno"], pool["rank"].astype(str), pool["auto_label"].astype(str),
               pool["stratum"].astype(str), pool["inclusion_probability"].map(lambda v: f"{v:.17g}"),
               pool["sampled"].astype(np.int64).astype(str)]
    lines = columns[0].astype(str)
    for column in columns[1:]:
        lines = lines + " " + column.astype(str)
    return "".join(line + "\n" for line in lines)


def save_plan(plan: JudgingPlan, path: PathLike) -> None:
    """Write ``plan`` to ``path`` (all or nothing)."""
    for column in ("qid", "docno"):
        spaced = plan.pool[column].str.contains(r"\s", regex=True)
        if spaced.any():
            raise ValueError(f"cannot save the judging plan: the {column} {plan.pool[column][spaced].iloc[0]!r} holds "
                             "white space, which the plan's text file (and a TREC file) cannot hold")
    settings = {key: getattr(plan, key) for key in (*_SETTINGS, *_ADDED)}
    settings["runs"] = list(plan.runs)
    if plan.label_map is not None:  # JSON keys are strings
        settings["label_map"] = [[int(k), int(v)] for k, v in plan.label_map.items()]
    if plan.measures is not None:
        settings["measures"] = list(plan.measures)
    FORMAT.write(Path(path), settings, " ".join(_columns()), _body(plan))


def _columns() -> tuple[str, ...]:
    from .plan import POOL_COLUMNS

    return POOL_COLUMNS


def load_plan(path: PathLike) -> JudgingPlan:
    """Read a plan written by :func:`save_plan`, checking it (see the module docstring)."""
    from .plan import JudgingPlan

    shown = str(path)
    header, columns, body = FORMAT.read(Path(path).read_text(encoding="utf-8"), shown, _SETTINGS)
    if columns.split() != list(_columns()):
        raise ValueError(f"'{shown}': line 3 must name the columns {' '.join(_columns())}")
    pool = pd.read_csv(io.StringIO(body), sep=" ", header=None, names=list(_columns()), keep_default_na=False,
                       dtype={"qid": str, "docno": str, "rank": np.int64, "auto_label": np.int64,
                              "stratum": np.int64, "inclusion_probability": np.float64, "sampled": np.int64})
    pool["sampled"] = pool["sampled"].astype(bool)
    _check_probabilities(pool, header, shown)
    settings = {key: header[key] for key in _SETTINGS}
    settings.update({key: header.get(key) for key in _ADDED})
    settings["runs"] = tuple(settings["runs"])
    if settings["label_map"] is not None:
        settings["label_map"] = {int(k): int(v) for k, v in settings["label_map"]}
    if settings["measures"] is not None:
        settings["measures"] = tuple(settings["measures"])
    return JudgingPlan(pool, **settings)


def _check_probabilities(pool: pd.DataFrame, header: dict, shown: str) -> None:
    probability = pool["inclusion_probability"].to_numpy(float)
    if not ((probability > 0) & (probability <= 1)).all():
        raise ValueError(f"'{shown}': every inclusion probability must be in (0, 1]")
    if abs(probability.sum() - header["budget"]) > 1e-6 * max(1, header["budget"]):
        raise ValueError(f"'{shown}': the inclusion probabilities add up to {probability.sum():.6g}, not to the "
                         f"plan's budget {header['budget']}")
    if header["design"] == "stratified":
        stratum = pool["stratum"].to_numpy()
        if (stratum < 0).any():
            raise ValueError(f"'{shown}': a stratified plan needs the stratum of every pair")
        expected = (np.bincount(stratum, weights=pool["sampled"]) / np.bincount(stratum))[stratum]
        if not np.allclose(expected, probability, rtol=1e-12, atol=0):
            raise ValueError(f"'{shown}': the inclusion probabilities are not each stratum's sampled share n_h / N_h")
