"""Saving a :class:`~pyterrier_boot.leaderboards.Leaderboard` to one file and reading it back.

The same zip of open formats as a saved :class:`~pyterrier_boot.ExperimentResult`
(:mod:`pyterrier_boot._archive`, no pickle):

* ``leaderboard.json``: the experiment behind the board (as ``ExperimentResult.save`` writes it,
  its provenance included: test, resample counts, the rng's seed, package versions), the all-pairs
  table, the letters, the rank intervals' labels and level, how the pairs were tested and the
  letters found, whether the board is sequential (anytime-valid, format version 2; version 1 files
  read as fixed-n boards), the package versions that saved it, and the format version;
* ``arrays/<name>.npy``: every numeric array (per-topic values, intervals, bootstrap
  distributions, ranks on every replicate, a sequential board's mean intervals), bit for bit;
* ``leaderboard.csv``, ``perquery.csv``, ``pairwise.csv``: the site's tables, for any tool (not read back;
  no ``pairwise.csv`` when no pair is tested, on one topic).

This module does not import ``board``: :meth:`Leaderboard.load` builds the board from
:func:`read_board`'s fields, so the import graph reads board -> storage.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from .._archive import (
    ArrayWriter,
    frame_from_json,
    frame_json,
    from_json,
    json_value,
    open_archive,
    read_array,
    write_archive,
)
from .._results import ConfidenceInterval
from ..experiment.pairwise import PairwiseTable
from ..experiment.storage import decode_result, encode_result, package_versions
from ..stats.ranking import RankIntervals

__all__ = ["save_board", "read_board"]

FORMAT = "pyterrier-boot-leaderboard"
#: 2 added ``sequential`` to the settings and the sequential board's ``mean_intervals``; version 1
#: files read as fixed-n boards
VERSION = 2
_SETTINGS = ("baseline", "test", "correction", "alpha", "letters_method", "sequential")


def _ranks_json(ranks: RankIntervals | None, writer: ArrayWriter, key: str) -> dict | None:
    if ranks is None:
        return None
    return {"statistic": writer.array(f"{key}.statistic", ranks.statistic),
            "bootstrap_distribution": writer.array(f"{key}.bootstrap_distribution", ranks.bootstrap_distribution),
            "low": writer.array(f"{key}.low", ranks.confidence_interval.low),
            "high": writer.array(f"{key}.high", ranks.confidence_interval.high),
            "systems": json_value(ranks.systems), "measures": json_value(ranks.measures),
            "statistic_name": ranks.statistic_name, "confidence_level": json_value(ranks.confidence_level)}


def _ranks_from_json(archive: Any, data: dict | None) -> RankIntervals | None:
    if data is None:
        return None
    return RankIntervals(
        statistic=read_array(archive, data["statistic"]),
        bootstrap_distribution=read_array(archive, data["bootstrap_distribution"]),
        confidence_interval=ConfidenceInterval(read_array(archive, data["low"]), read_array(archive, data["high"])),
        systems=tuple(data["systems"]), measures=tuple(data["measures"]), statistic_name=data["statistic_name"],
        confidence_level=from_json(data["confidence_level"]))


def save_board(board: Any, path: str | os.PathLike) -> Path:
    """Write ``board`` (a :class:`~pyterrier_boot.leaderboards.Leaderboard`) to the zip file
    ``path`` (parent folders created; written beside it and renamed, so never half-written)."""
    writer = ArrayWriter()
    doc = {
        "format": FORMAT, "version": VERSION,
        "experiment": encode_result(board.result, writer),
        "pairwise": frame_json(board.pairwise),
        "letters": {"index": json_value(list(board.letters.index)), "index_name": board.letters.index.name,
                    **frame_json(board.letters)},
        "ranks": _ranks_json(board.ranks, writer, "ranks"),
        "topic_ranks": _ranks_json(board.topic_ranks, writer, "topic_ranks"),
        "mean_intervals": None if board.mean_intervals is None else writer.array("mean_intervals",
                                                                                 board.mean_intervals),
        "settings": json_value({name: getattr(board, name) for name in _SETTINGS}),
        "provenance": {"versions": package_versions()},
    }
    texts = {"leaderboard.csv": board.to_frame().to_csv(index=False),
             "perquery.csv": board.result.per_query().to_csv(index=False)}
    if board.ranks is not None:  # as the site: no pairwise.csv when no pair is tested (1 topic)
        texts["pairwise.csv"] = board.pairwise.to_csv(index=False)
    return write_archive(Path(path), doc, writer, member="leaderboard.json", texts=texts,
                         what="save the leaderboard to")


def read_board(path: str | os.PathLike) -> dict[str, Any]:
    """The fields of the :class:`~pyterrier_boot.leaderboards.Leaderboard` saved at ``path``
    (:meth:`Leaderboard.load <pyterrier_boot.leaderboards.Leaderboard.load>` builds it)."""
    with open_archive(Path(path), member="leaderboard.json", format=FORMAT, version=VERSION,
                      what="leaderboard") as (archive, doc):
        letters = frame_from_json(doc["letters"])
        letters.index = pd.Index(doc["letters"]["index"], name=doc["letters"]["index_name"])
        settings = from_json(doc["settings"])
        pairwise = frame_from_json(doc["pairwise"])
        intervals = doc.get("mean_intervals")  # absent from version 1
        return {"result": decode_result(archive, doc["experiment"]),
                # as result.pairwise() gives it; a sequential board's is sequential_comparisons' frame
                "pairwise": pairwise if settings.get("sequential") else PairwiseTable.of(pairwise),
                "letters": letters,
                "mean_intervals": None if intervals is None else read_array(archive, intervals),
                "ranks": _ranks_from_json(archive, doc["ranks"]),
                "topic_ranks": _ranks_from_json(archive, doc["topic_ranks"]),
                **settings}
