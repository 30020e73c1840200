"""Materialised corpus images: the run and qrels an image stands for, as ordinary frames.

This is the definition the kernels are tested against (Zobel & Rashidi 2020; pt_docs/methods.md, "The corpus bootstrap"): in the image, a document
with multiplicity ``k`` appears ``k`` times at consecutive ranks where it stood in the run, and
``k`` times in the qrels with its grade; ``k = 0`` removes it. Copies are told apart by their
docno: the first copy keeps the original docno, copy ``j >= 2`` becomes ``"<docno>#<j>"``.
Image runs get strictly decreasing scores (their image rank order) so that every tool, whatever
its tie-breaking, sees the same ranking; ``source_docno`` keeps the original document.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .arrays import natural_order, trec_eval_scores

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    from .._typing import IntArray



def multiplicities_for(docnos: npt.ArrayLike, multiplicity: Any) -> IntArray:
    """Multiplicity of each docno (int64 array) from a mapping / Series / callable; missing docs: 1."""
    docnos = pd.Series(np.asarray(docnos, dtype=object))
    try:
        if callable(multiplicity) and not isinstance(multiplicity, (dict, pd.Series)):
            k = np.array([multiplicity(d) for d in docnos], dtype=np.float64)
        else:
            mapping = multiplicity if isinstance(multiplicity, pd.Series) else pd.Series(dict(multiplicity))
            mapping = mapping.astype(np.float64)
            k = np.array(mapping.reindex(docnos), dtype=np.float64)
            k[~docnos.isin(mapping.index).to_numpy()] = 1.0
    except (TypeError, ValueError) as error:
        raise ValueError(f"'multiplicity' must map docnos to numbers of copies: {error}") from None
    if not np.all(np.isfinite(k)) or np.any(k < 0) or np.any(k != np.round(k)):
        raise ValueError("'multiplicity' must map docnos to non-negative whole numbers of copies")
    return k.astype(np.int64)


def _copies(frame, k):
    """Repeat each row of ``frame`` k times, renaming copies 2..k."""
    rows = np.repeat(np.arange(len(frame)), k)
    out = frame.iloc[rows].reset_index(drop=True)
    first = np.r_[0, np.cumsum(k)[:-1]]
    copy = np.arange(len(rows)) - np.repeat(first, k) + 1
    docno = out["docno"].astype(str).to_numpy(object)
    suffixed = copy > 1
    docno[suffixed] = [f"{d}#{c}" for d, c in zip(docno[suffixed], copy[suffixed])]
    out.insert(out.columns.get_loc("docno") + 1, "source_docno", out["docno"])
    out["docno"] = docno
    return out


def image_run(run: pd.DataFrame, multiplicity: Any) -> pd.DataFrame:
    """The image of a run frame (``qid``, ``docno``, ``score``) under ``multiplicity``.

    Rows are put in trec_eval order first (score descending in single precision, ties by docno
    descending); the
    result has ``qid``, ``docno``, ``source_docno``, ``rank`` (0-based, as PyTerrier) and
    ``score`` (strictly decreasing within a topic), plus the run's other columns.
    """
    ordered = run.assign(_q=run["qid"].astype(str), _s=trec_eval_scores(run["score"])).sort_values(
        ["_q", "_s", "docno"], ascending=[True, False, False], kind="stable"
    ).drop(columns=["_q", "_s"])
    k = multiplicities_for(ordered["docno"].to_numpy(object), multiplicity)
    out = _copies(ordered.drop(columns=[c for c in ("rank", "source_docno") if c in ordered]), k)
    out["rank"] = out.groupby("qid", sort=False).cumcount()
    out["score"] = 0.0 - out["rank"].astype(np.float64)
    order = {q: i for i, q in enumerate(natural_order(pd.unique(out["qid"].astype(str))))}
    out = out.iloc[np.lexsort((out["rank"].to_numpy(), out["qid"].astype(str).map(order).to_numpy()))]
    return out.reset_index(drop=True)


def image_qrels(qrels: pd.DataFrame, multiplicity: Any) -> pd.DataFrame:
    """The image of a qrels frame (``qid``, ``docno``, ``label``): each judgement k times."""
    k = multiplicities_for(qrels["docno"].to_numpy(object), multiplicity)
    return _copies(qrels, k)
