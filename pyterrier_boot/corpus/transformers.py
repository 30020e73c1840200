"""PyTerrier transformers for corpus images and corpus halves, with their function twins.

* :class:`CorpusImage` turns a result frame into its run on one corpus image (the image
  :class:`~pyterrier_boot.CorpusBootstrap` evaluates as image ``i`` for the same ``rng``), so
  ``bm25 >> CorpusImage(3, rng=42)`` is a pipeline and any ir_measures measure can be evaluated on
  an image with ``pt.Experiment`` and the image qrels (:meth:`CorpusImage.qrels`).
  Twins: :func:`corpus_image`, :func:`corpus_image_qrels`.
* :class:`CorpusSplit` keeps the documents of one MD5 half of the corpus (Cormack & Lynam §6).
  Twin: :func:`~pyterrier_boot.corpus.split.corpus_split` (runs and qrels).
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyterrier as pt

from .._checks import check_choice
from ..inputs.qrels import read_qrels
from ..measures.materialisation import image_qrels, image_run
from .multiplicity import (
    MODELS,
    docno_hashes,
    image_keys,
    multinomial_multiplicities,
    poisson_multiplicities,
)
from .split import check_salt, corpus_split

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import numpy.typing as npt

    from .._typing import IntArray, QrelsLike, RngLike


__all__ = ["CorpusImage", "CorpusSplit", "corpus_image", "corpus_image_qrels", "image_multiplicities"]


def _corpus_image_iv(image, model, corpus_size, documents):
    if isinstance(image, bool) or not isinstance(image, numbers.Integral):
        raise TypeError(f"'image' must be a non-negative integer (the image index), got {type(image).__name__}")
    if image < 0:
        raise ValueError(f"'image' must be a non-negative integer (the image index), got {image}")
    model = check_choice(model, "model", MODELS)
    if corpus_size is not None and (isinstance(corpus_size, bool) or not isinstance(corpus_size, numbers.Integral)
                                    or corpus_size < 1):
        raise ValueError(f"'corpus_size' must be a positive integer or None, got {corpus_size!r}")
    if model == "multinomial":
        if corpus_size is None:
            raise ValueError("model='multinomial' needs corpus_size=... (the number of documents in the collection)")
        if documents is None:
            raise ValueError(
                "model='multinomial' draws the counts of a fixed set of documents jointly: pass documents=... "
                "(e.g. the 'documents' of a CorpusBootstrap result, to reproduce its images)"
            )
    elif documents is not None:
        raise ValueError("'documents' is only used by model='multinomial' (Poisson images draw each document alone)")
    if documents is not None:
        documents = np.unique(np.asarray(documents, dtype=object).astype(str)).astype(object)
        if corpus_size < len(documents):
            raise ValueError(f"'corpus_size' ({corpus_size}) is smaller than the number of 'documents' "
                             f"({len(documents)})")
    return int(image), model, documents


def image_multiplicities(docnos: Sequence[str] | npt.ArrayLike, key: int, *, model: str = "poisson",
                         corpus_size: int | None = None, documents: Any = None) -> IntArray:
    """Multiplicity of each docno (int64 array) in the image with 64-bit ``key``."""
    docnos = np.asarray(docnos, dtype=object).astype(str)
    keys = np.array([key], dtype=np.uint64)
    if model == "poisson":
        return poisson_multiplicities(keys, docno_hashes(docnos))[0].astype(np.int64)
    position = np.searchsorted(documents, docnos)
    position = np.minimum(position, max(len(documents) - 1, 0))
    missing = (len(documents) == 0) | (documents[position] != docnos) if len(docnos) else np.zeros(0, bool)
    if np.any(missing):
        unknown = pd.unique(docnos[missing])
        raise ValueError(f"{len(unknown)} docno(s) are not among 'documents', e.g. {str(unknown[0])!r}: a multinomial "
                         "image is defined for the documents it was drawn for")
    counts = multinomial_multiplicities(keys, len(documents), corpus_size)[0]  # type: ignore[arg-type]  # multinomial images have a corpus size
    return counts[position].astype(np.int64)


class CorpusImage(pt.Transformer):
    """Turns a result frame into its run on corpus image ``image`` (Cormack & Lynam 2006; Zobel & Rashidi 2020).

    Each retrieved document is repeated ``k`` times at consecutive ranks (copy ``j >= 2`` is named
    ``"<docno>#<j>"``, ``source_docno`` keeps the original), documents with ``k = 0`` are removed,
    and scores become strictly decreasing (``-rank``); see
    :func:`pyterrier_boot.measures.materialisation.image_run`. :meth:`qrels` gives the image's
    judgements (each judgement ``k`` times, copies named alike), so
    ``pt.Experiment([bm25 >> img], topics, img.qrels(qrels), ...)`` evaluates any measure on the image.

    Args:
        image: the image index (0-based), as in ``CorpusBootstrap(...).evaluate(...)``'s
            ``bootstrap_distribution[image]``.
        rng: the seed the bootstrap used (SPEC 7). The image's key is the ``image``-th of the
            keys drawn from it, drawn once here: a Generator is advanced by ``image + 1`` draws,
            so pass an int to rebuild the same image elsewhere.
        model: ``"poisson"`` or ``"multinomial"``.
        corpus_size: ``N`` (``"multinomial"`` only).
        documents: the documents a multinomial image is drawn for (``result.documents`` of the
            bootstrap it should reproduce); ``"multinomial"`` only.

    Example:
        >>> import pyterrier_boot as ptb
        >>> img = ptb.CorpusImage(3, rng=42)
        >>> pipeline = bm25 >> img                                               # doctest: +SKIP
        >>> pt.Experiment([pipeline], topics, img.qrels(qrels), ["AP", "nDCG@10"])  # doctest: +SKIP
    """

    def __init__(self, image: int, *, rng: RngLike, model: str = "poisson",
                 corpus_size: int | None = None, documents: Sequence[str] | None = None):
        image, model, sorted_documents = _corpus_image_iv(image, model, corpus_size, documents)
        self.image = image
        self.rng = rng
        self.model = model
        self.corpus_size = corpus_size
        self.documents = documents
        self._sorted_documents = sorted_documents
        self.key = image_keys(rng, image + 1)[image]

    def __repr__(self):
        extra = "" if self.model == "poisson" else f", model={self.model!r}, corpus_size={self.corpus_size}"
        return f"CorpusImage({self.image}, rng={self.rng!r}{extra})"

    def multiplicities(self, docnos: npt.ArrayLike) -> IntArray:
        """Copies of each docno in this image (int64 array)."""
        return image_multiplicities(docnos, self.key, model=self.model, corpus_size=self.corpus_size,
                                    documents=self._sorted_documents)

    def _mapping(self, docnos):
        unique = pd.unique(np.asarray(docnos, dtype=object).astype(str))
        return pd.Series(self.multiplicities(unique), index=unique)

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """The image run of a result frame (``qid``, ``docno``, ``score``; other columns kept)."""
        pt.validate.result_frame(inp, extra_columns=["score"], context=self)
        if len(inp) == 0:  # the columns image_run gives (pt.inspect runs transformers on empty frames)
            columns = [c for c in inp.columns if c not in ("rank", "source_docno")]
            columns.insert(columns.index("docno") + 1, "source_docno")
            return pd.DataFrame(columns=columns + ["rank"])
        frame = inp.assign(docno=inp["docno"].astype(str))
        return image_run(frame, self._mapping(frame["docno"]))

    def qrels(self, qrels: QrelsLike) -> pd.DataFrame:
        """The image qrels (``qid, docno, source_docno, label``) of any qrels :func:`read_qrels` accepts."""
        frame = read_qrels(qrels).frame
        return image_qrels(frame, self._mapping(frame["docno"]))


def corpus_image(frame: Any, image: int, *, rng: RngLike, model: str = "poisson",
                 corpus_size: int | None = None, documents: Sequence[str] | None = None) -> pd.DataFrame:
    """Function twin of :class:`CorpusImage`: the image run of a result frame.

    Example:
        >>> import pandas as pd
        >>> run = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
        >>> list(corpus_image(run, 0, rng=42).columns)
        ['qid', 'docno', 'source_docno', 'score', 'rank']
    """
    return CorpusImage(image, rng=rng, model=model, corpus_size=corpus_size, documents=documents).transform(frame)


def corpus_image_qrels(qrels: QrelsLike, image: int, *, rng: RngLike, model: str = "poisson",
                       corpus_size: int | None = None, documents: Sequence[str] | None = None) -> pd.DataFrame:
    """The qrels of corpus image ``image`` (each judgement ``k`` times, copies named as in the image run)."""
    return CorpusImage(image, rng=rng, model=model, corpus_size=corpus_size, documents=documents).qrels(qrels)


class CorpusSplit(pt.Transformer):
    """Keeps the documents of one half of the corpus (Cormack & Lynam 2006, §6; MD5 of the docno).

    Args:
        half: ``"A"`` or ``"B"`` (see :mod:`pyterrier_boot.corpus.split` for the rule).
        salt: None (default) for the MD5 split of the paper; a non-negative integer for another
            random split (split ``i`` of :func:`~pyterrier_boot.split_half_validation` uses the
            salt it reports).

    Ranks are recomputed within each topic; scores are kept. Split the qrels with the twin
    :func:`~pyterrier_boot.corpus_split` (``corpus_split(qrels, "A")``).

    Example:
        >>> import pyterrier_boot as ptb
        >>> half_a = bm25 >> ptb.CorpusSplit("A")                                # doctest: +SKIP
    """

    def __init__(self, half: str, *, salt: int | None = None):
        self.half = check_choice(half, "half", ("A", "B"))
        self.salt = check_salt(salt)

    def __repr__(self):
        return f"CorpusSplit({self.half!r})" if self.salt is None else f"CorpusSplit({self.half!r}, salt={self.salt})"

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        pt.validate.result_frame(inp, context=self)
        return corpus_split(inp, self.half, salt=self.salt)
