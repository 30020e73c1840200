"""Type aliases shared by the public signatures, for readers and type checkers.

The inputs pyterrier_boot accepts are deliberately broad (whatever ``pt.Experiment`` accepts, file
paths, ir_datasets ids, ...); these aliases name each kind once. They exist only for the type
checker: modules import them under ``if TYPE_CHECKING:`` (annotations are not evaluated at run time).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os
    from collections.abc import Mapping, Sequence
    from typing import Any, TypeAlias

    import numpy as np
    import numpy.typing as npt
    import pandas as pd

    from .inputs.qrels import Qrels

    #: ``rng`` (SPEC 7): a seed, a SeedSequence, a BitGenerator or a Generator; None: the fixed
    #: seed 42 (``pyterrier_boot._random.DEFAULT_SEED``; fresh entropy in the simulators).
    RngLike: TypeAlias = (int | np.integer[Any] | np.random.SeedSequence | np.random.BitGenerator
                          | np.random.Generator | None)
    #: a measure: a string (``"AP"``, ``"nDCG@10"``, ``"RBP(p=0.8)"``) or an ir_measures measure
    #: (ir_measures has no type information, so this is ``Any`` to the checker).
    MeasureLike: TypeAlias = str | Any
    #: one measure or several.
    MeasuresLike: TypeAlias = MeasureLike | Sequence[MeasureLike]
    #: scores: a systems x topics array, a DataFrame (one row per topic and one column per system,
    #: or a long pt frame), or a mapping measure -> such a matrix.
    ScoresLike: TypeAlias = npt.ArrayLike | pd.DataFrame | Mapping[str, npt.ArrayLike]
    #: a file path.
    PathLike: TypeAlias = str | os.PathLike[str]
    #: relevance judgements: a :class:`Qrels`, a frame, a path, an ir_datasets id or dataset object.
    QrelsLike: TypeAlias = Qrels | pd.DataFrame | PathLike | Any
    #: one run: a frame, a TREC run file, or a PyTerrier transformer.
    RunLike: TypeAlias = pd.DataFrame | PathLike | Any
    #: several runs: a sequence, a mapping name -> run, or a folder of run files.
    RunsLike: TypeAlias = Sequence[RunLike] | Mapping[str, RunLike] | RunLike
    #: topics: a frame with ``qid, query``, a file, or an ir_datasets id / dataset.
    TopicsLike: TypeAlias = pd.DataFrame | PathLike | Any

    FloatArray: TypeAlias = npt.NDArray[np.float64]
    IntArray: TypeAlias = npt.NDArray[np.int64]
    BoolArray: TypeAlias = npt.NDArray[np.bool_]
