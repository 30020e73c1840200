"""Shallow pools: qrels restricted to what a few systems retrieved at the top (Zobel & Rashidi §7).

A TREC pool is the union of the top ``depth`` documents of the contributing runs; documents
outside it are unjudged. :func:`pool` simulates a shallower (or smaller) pool from existing qrels:
it keeps only the judgements of documents in the union of the chosen systems' top ``depth``, so
the effect of pool depth on a comparison can be measured (Zobel & Rashidi 2020, §7: AP's
differences and p-values become misleading as the pool gets shallow while RBP's stay stable).
"""
from __future__ import annotations

import dataclasses
import numbers
import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..._checks import describe
from ..._warnings import InputWarning

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ..._typing import QrelsLike, RunsLike
    from ...inputs.qrels import Qrels


__all__ = ["pool", "top_documents"]


def top_documents(run: pd.DataFrame, depth: int) -> pd.DataFrame:
    """The ``(qid, docno)`` pairs of a run's top ``depth`` per topic, in trec_eval's ranking order
    (score descending, ties by docno descending)."""
    ranked = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="mergesort")
    top = ranked[ranked.groupby("qid", sort=False).cumcount() < depth]
    return top[["qid", "docno"]]


def pooled_runs(names: str | Sequence[str], runs: Mapping[str, Any], argument: str) -> list[Any]:
    """The distinct run names ``names`` (a name or a list) chosen for a pool, checked against ``runs``."""
    chosen = [names] if isinstance(names, str) else list(names)
    if not chosen:
        raise ValueError(f"{argument!r} is empty: name at least one run to pool")
    unknown = [s for s in chosen if s not in runs]
    if unknown:
        raise ValueError(f"{argument!r} names run(s) not in 'runs': {describe(unknown)}; the runs are "
                         f"{describe(list(runs))}")
    return list(dict.fromkeys(chosen))


def pool(qrels: QrelsLike, runs: RunsLike, depth: int, *, systems: Sequence[str] | None = None) -> Qrels:
    """Qrels restricted to the union of the chosen systems' top ``depth`` documents per topic.

    Args:
        qrels: relevance judgements (anything :func:`pyterrier_boot.read_qrels` accepts).
        runs: runs (anything :func:`pyterrier_boot.read_runs` accepts, e.g. a dict name -> run).
        depth: pool depth ``k`` (positive int): each chosen run contributes its first ``k``
            documents per topic, ranked as trec_eval ranks them (score descending, ties broken
            by docno descending; the file's rank column is ignored).
        systems: names of the contributing runs (default: all).

    Returns:
        :class:`~pyterrier_boot.Qrels` (same ``corpus_size``; ``source`` says how it was made)
        holding the judgements of pooled documents only. A pooled document without a judgement
        stays unjudged (nothing is invented). Topics none of whose judged documents were pooled
        disappear from the qrels, as from a real pool: they are named in an
        :class:`~pyterrier_boot.InputWarning` (measures then no longer score them).

    Example:
        >>> import pandas as pd
        >>> qrels = pd.DataFrame({"qid": ["1"] * 4, "docno": ["a", "b", "c", "d"], "label": [1, 0, 1, 1]})
        >>> runs = {"x": pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": [3., 2., 1.]}),
        ...         "y": pd.DataFrame({"qid": ["1"] * 3, "docno": ["d", "c", "a"], "score": [5., 5., 1.]})}
        >>> pool(qrels, runs, 1).frame            # y's tie at 5.0 goes to docno 'd' (descending)
          qid docno  label
        0   1     a      1
        3   1     d      1
    """
    from ...inputs.qrels import read_qrels
    from ...inputs.runs import read_runs

    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral):
        raise TypeError(f"'depth' must be a positive integer, got {type(depth).__name__}")
    if depth < 1:
        raise ValueError(f"'depth' must be a positive integer, got {depth}")
    qrels = read_qrels(qrels)
    read = read_runs(runs)
    chosen = list(read) if systems is None else pooled_runs(systems, read, "systems")
    pooled = pd.concat([top_documents(read[name], depth) for name in chosen],
                       ignore_index=True).drop_duplicates()
    frame = qrels.frame
    keys = pd.MultiIndex.from_frame(pooled[["qid", "docno"]].astype(str))
    mask = pd.MultiIndex.from_frame(frame[["qid", "docno"]].astype(str)).isin(keys)
    kept = frame[np.asarray(mask)]
    lost = [q for q in pd.unique(frame["qid"]) if q not in set(kept["qid"])]
    if lost:
        warnings.warn(f"pool(depth={depth}): {len(lost)} topic(s) have no judged document in the pool "
                      f"and drop out of the qrels: {describe(lost)}", InputWarning, stacklevel=2)
    if kept.empty:
        raise ValueError(f"pool(depth={depth}) keeps no judgement: the chosen runs retrieved no judged "
                         "document in their top ranks")
    names = ", ".join(map(str, dict.fromkeys(chosen)))
    return dataclasses.replace(qrels, frame=kept,
                               source=f"pool(depth={depth}, systems=[{names}]) of {qrels.source}")
