"""Cormack & Lynam's split of a corpus into two halves by an MD5 hash of the docno (2006, §6).

The paper splits "using an MD5 hash on the document identifier" without saying which bits; here a
document is in half ``"A"`` when the lowest bit of the MD5 digest of its docno's UTF-8 bytes is 0
(``hashlib.md5(docno.encode("utf-8")).digest()[-1] & 1 == 0``), else in ``"B"``. The same rule
splits runs and qrels, so each half is a corpus with its own runs and judgements.

Other random splits: with a ``salt`` (a non-negative integer), a document is in ``"A"`` when the
lowest bit of ``splitmix64_finaliser(FNV-1a(docno) ^ splitmix64_finaliser(salt ^ c))`` is 0 (the
hash and mixer of the Poisson images, :mod:`~pyterrier_boot.corpus.multiplicity`; ``c`` a fixed
constant), so each salt gives another split, independent of the default one and fast to draw.
:func:`~pyterrier_boot.split_half_validation` repeats the split-half check over many salted
splits, and ``corpus_split(frame, half, salt=s)`` reproduces any of them.
"""
from __future__ import annotations

import hashlib
import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._checks import check_choice
from .multiplicity import docno_hashes, salted_bits

if TYPE_CHECKING:
    import numpy.typing as npt


__all__ = ["HALVES", "split_half", "corpus_split"]

HALVES = ("A", "B")


def check_salt(salt: int | None) -> int | None:
    """``salt`` as an int (or None), with a clear error otherwise."""
    if salt is None:
        return None
    if isinstance(salt, bool) or not isinstance(salt, numbers.Integral):
        raise TypeError(f"'salt' must be a non-negative integer or None, got {type(salt).__name__}")
    if salt < 0:
        raise ValueError(f"'salt' must be a non-negative integer or None, got {salt}")
    return int(salt)


def split_half(docnos: npt.ArrayLike, *, salt: int | None = None) -> np.ndarray:
    """The half (``"A"`` or ``"B"``) of each docno, as an object array.

    ``salt=None`` is Cormack & Lynam's MD5 split; an integer salt gives another random split
    (module docstring).

    Example:
        >>> split_half(["FBIS3-10082", "LA010189-0001", "FT911-3"]).tolist()
        ['B', 'A', 'B']
    """
    salt = check_salt(salt)
    docnos = np.asarray(docnos, dtype=object)
    unique, inverse = np.unique(docnos.astype(str), return_inverse=True)
    if salt is None:
        bits = np.fromiter((hashlib.md5(d.encode("utf-8")).digest()[-1] & 1 for d in unique), dtype=np.uint8,
                           count=len(unique))
    else:
        bits = salted_bits(docno_hashes(unique), salt)
    return np.array(HALVES, dtype=object)[bits][inverse.reshape(-1)].reshape(docnos.shape)


def corpus_split(frame: pd.DataFrame, half: str, *, salt: int | None = None) -> pd.DataFrame:
    """Rows of a run or qrels frame whose document lies in ``half`` (``"A"`` or ``"B"``).

    ``salt``: None for the MD5 split of Cormack & Lynam, an integer for another random split.

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
    salt = check_salt(salt)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"'frame' must be a DataFrame with a 'docno' column, got {type(frame).__name__}")
    if "docno" not in frame.columns:
        raise ValueError(f"'frame' needs a 'docno' column to be split; it has {list(frame.columns)}")
    keep = split_half(frame["docno"].to_numpy(object), salt=salt) == half if len(frame) else np.zeros(0, dtype=bool)
    out = frame[keep].copy()
    if "rank" in out.columns and "qid" in out.columns and len(out):
        order = np.lexsort((out["rank"].to_numpy(), out["qid"].astype(str).to_numpy()))
        ranks = np.empty(len(out), dtype=np.int64)
        ranks[order] = out.iloc[order].groupby("qid", sort=False).cumcount().to_numpy()
        out["rank"] = ranks
    return out.reset_index(drop=True)
