"""Sakai's graded-relevance measures that ir_measures does not have: Q-measure and nCG@l.

They are :class:`ir_measures.Measure` objects, so they print, compare and hash like ir_measures'
own (``Q``, ``Q(beta=0.5)``, ``nCG@1000``) and are parsed from those strings by
:func:`pyterrier_boot.parse_measures`. Only pyterrier_boot's kernels compute them.

References:
    Sakai (2007), On the reliability of information retrieval metrics based on graded relevance
    (Q-measure); Sakai (2006), Evaluating evaluation metrics based on the bootstrap, SIGIR,
    eq. (3), (5), (6). Gains default to the grade itself (TREC grades 1/2/3 give Sakai's
    B/A/S gains 1/2/3).
"""
from ir_measures import measures


class _Q(measures.Measure):
    """Sakai's Q-measure: ``Q = (1/R) sum_r isrel(r) BR(r)``.

    ``BR(r) = (beta * cg(r) + count(r)) / (beta * cg_I(r) + r)``, where ``cg`` is the cumulative
    gain of the ranking, ``cg_I`` that of the ideal ranking (all judged documents by gain,
    descending), ``count(r)`` the relevant documents in the top ``r`` and ``R`` the number of
    relevant documents. With binary relevance and no relevant document below rank ``R``,
    Q equals AP.

    Example:
        >>> from pyterrier_boot import Q
        >>> Q(beta=0.5)@1000
        Q(beta=0.5)@1000
    """

    __name__ = "Q"
    NAME = __name__
    PRETTY_NAME = "Q-measure"
    SHORT_DESC = "Sakai's blended-ratio measure for graded relevance."
    SUPPORTED_PARAMS = {
        "cutoff": measures.ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold"),
        "beta": measures.ParamInfo(dtype=float, default=1.0, desc="weight of gain against rank"),
        "rel": measures.ParamInfo(dtype=int, default=1, desc="minimum grade counted relevant"),
        "gains": measures.ParamInfo(dtype=dict, desc="grade -> gain (default: the grade)"),
    }


class _nCG(measures.Measure):
    """Normalised cumulative gain at cutoff ``l``: ``nCG@l = cg(l) / cg_I(l)`` (Sakai eq. 3).

    Example:
        >>> from pyterrier_boot import nCG
        >>> nCG@1000
        nCG@1000
    """

    __name__ = "nCG"
    NAME = __name__
    PRETTY_NAME = "normalised Cumulative Gain"
    SHORT_DESC = "Cumulative gain at a cutoff over the ideal cumulative gain at the same cutoff."
    SUPPORTED_PARAMS = {
        "cutoff": measures.ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold"),
        "gains": measures.ParamInfo(dtype=dict, desc="grade -> gain (default: the grade)"),
    }


Q = _Q()
nCG = _nCG()

#: Measures defined here, by name, for the parser.
REGISTRY = {"Q": Q, "nCG": nCG}
