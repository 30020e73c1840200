"""Cormack & Lynam's split of a corpus into two halves by an MD5 hash of the docno (2006, §6).

The paper splits "using an MD5 hash on the document identifier" without saying which bits; here a
document is in half ``"A"`` when the lowest bit of the MD5 digest of its docno's UTF-8 bytes is 0
(``hashlib.md5(docno.encode("utf-8")).digest()[-1] & 1 == 0``), else in ``"B"``. The same rule
splits runs and qrels, so each half is a corpus with its own runs and judgements (the split-half
validation in ``benchmarks/corpus_split_half.py`` predicts AP on B from intervals computed on A).
"""
import hashlib

import numpy as np
import pandas as pd

from ..stats._inputs import check_choice

__all__ = ["HALVES", "split_half", "corpus_split"]

HALVES = ("A", "B")


def split_half(docnos):
    """The half (``"A"`` or ``"B"``) of each docno, as an object array.

    Example:
        >>> split_half(["FBIS3-10082", "LA010189-0001", "FT911-3"]).tolist()
        ['B', 'A', 'B']
    """
    docnos = np.asarray(docnos, dtype=object)
    unique, inverse = np.unique(docnos.astype(str), return_inverse=True)
    bits = np.fromiter((hashlib.md5(d.encode("utf-8")).digest()[-1] & 1 for d in unique), dtype=np.uint8,
                       count=len(unique))
    return np.array(HALVES, dtype=object)[bits][inverse.reshape(-1)].reshape(docnos.shape)


def corpus_split(frame, half):
    """Rows of a run or qrels frame whose document lies in ``half`` (``"A"`` or ``"B"``).

    Any frame with a ``docno`` column works (a PyTerrier result frame, a qrels frame). A ``rank``
    column is recomputed within each topic (0-based, in the order of the old ranks); scores and other
    columns are kept. This is the function twin of :class:`~pyterrier_boot.CorpusSplit`.

    Example:
        >>> import pandas as pd
        >>> qrels = pd.DataFrame({"qid": ["1"] * 4, "docno": ["d1", "d2", "d3", "d4"], "label": [1, 0, 1, 0]})
        >>> a, b = corpus_split(qrels, "A"), corpus_split(qrels, "B")
        >>> len(a) + len(b) == len(qrels) and set(a.docno).isdisjoint(b.docno)
        True
    """
    half = check_choice(half, "half", HALVES)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"'frame' must be a DataFrame with a 'docno' column, got {type(frame).__name__}")
    if "docno" not in frame.columns:
        raise ValueError(f"'frame' needs a 'docno' column to be split; it has {list(frame.columns)}")
    keep = split_half(frame["docno"].to_numpy(object)) == half if len(frame) else np.zeros(0, dtype=bool)
    out = frame[keep].copy()
    if "rank" in out.columns and "qid" in out.columns and len(out):
        order = np.lexsort((out["rank"].to_numpy(), out["qid"].astype(str).to_numpy()))
        ranks = np.empty(len(out), dtype=np.int64)
        ranks[order] = out.iloc[order].groupby("qid", sort=False).cumcount().to_numpy()
        out["rank"] = ranks
    return out.reset_index(drop=True)
