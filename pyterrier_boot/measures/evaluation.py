"""``evaluate``: per-topic measure values of a run, on the collection or on a corpus image.

Conventions (those of trec_eval, ir_measures and ``pt.Experiment``):

* Topics are those of the qrels. A topic the run has no result for scores 0; topics of the
  run that are not in the qrels are ignored; one :class:`InputWarning` for each, counting the runs
  and topics. A run that shares no topic with the qrels is refused (a ValueError naming it), as it
  would score 0 everywhere (:mod:`pyterrier_boot.inputs.overlap`).
* A run is ranked by score, descending, ties broken by docno descending (trec_eval's
  order), for every measure. ir_measures' providers for ``RR@k`` and ``Judged`` break ties
  by docno ascending and cwl_eval's (RBP, INSQ, INST) by input order, so on runs with
  tied scores those measures can differ from ir_measures; on runs without ties they are equal.
* A document judged with a negative grade counts as unjudged (trec_eval's "pooled but
  unjudged"), except for ``Judged`` (any judgement counts, as in ir_measures).
* ``RBP(p=...)`` without ``rel`` means binary relevance at grade >= 1; RBP, INSQ and INST
  follow cwl_eval (expected rate of gain over the first 1000 positions, unjudged documents
  gaining 0); ERR@k and ``nDCG(dcg='exp-log2')@k`` follow gdeval (grades 0..4; gdeval prints
  5 decimals, we do not round).
* On an image, a topic whose relevant documents all vanished scores 0 on every measure of
  relevance (Zobel & Rashidi 2020, §3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._warnings import one_warning_per_kind
from ..inputs.qrels import Qrels, read_qrels
from ..inputs.runs import Runs, is_run_folder, read_runs
from .arrays import JudgedRuns
from .engine import Evaluator
from .materialisation import multiplicities_for
from .parsing import LabelledMeasure, parse_measures

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from .._typing import FloatArray, MeasuresLike, QrelsLike, RunsLike, TopicsLike
    from ..inputs.qrels import Qrels
    from ..seeds.groups import RunGroups
    from .parsing import LabelledMeasure



def prepare(runs: RunsLike, qrels: QrelsLike, measures: MeasuresLike, *,
            topics: TopicsLike | None = None, batch_size: int | None = None, verbose: bool = False,
            warn_unjudged: bool = True, warn_missing: bool = True) -> tuple[Evaluator, Qrels]:
    """Read runs, qrels and measures, and intern them: ``(Evaluator, Qrels)``.

    The door of :func:`evaluate` and of public functions taking raw runs and qrels; inner layers,
    holding :class:`Runs` and :class:`Qrels` already, call :func:`intern`.
    """
    qrels = read_qrels(qrels)
    measures = parse_measures(measures)
    runs = read_runs(runs, topics=topics, batch_size=batch_size, verbose=verbose)
    return intern(runs, qrels, measures, warn_unjudged=warn_unjudged, warn_missing=warn_missing), qrels


def intern(runs: Runs, qrels: Qrels, measures: list[LabelledMeasure], *, warn_unjudged: bool = True,
           warn_missing: bool = True) -> Evaluator:
    """An :class:`Evaluator` of runs and qrels already read (nothing is read or checked again; a run
    without a topic in the qrels is refused, a partial overlap warned about as ``warn_*`` say:
    :meth:`JudgedRuns.build`)."""
    arrays = JudgedRuns.build(runs, qrels.frame, warn_unjudged=warn_unjudged, warn_missing=warn_missing)
    return Evaluator(arrays, measures, runs=runs, qrels=qrels.frame)


@one_warning_per_kind()
def evaluate(run: RunsLike, qrels: QrelsLike, measures: MeasuresLike, *,
             multiplicity: npt.ArrayLike | None = None, topics: TopicsLike | None = None) -> pd.DataFrame:
    """Per-topic values of IR measures, on the collection or on one corpus image.

    Args:
        run: a run (PyTerrier result frame, TREC run file, PyTerrier transformer), or several: a
            folder of run files, a dict ``name -> run`` or a list of runs (anything
            :func:`read_runs` accepts). In a dict a system may be a list of runs (seeds, folds):
            its value on a topic is then the mean over its runs (0 for a run without results for it).
        qrels: a qrels frame, TREC qrels file, ir_datasets or PyTerrier dataset, or an id such as
            ``"irds:vaswani"`` (anything :func:`read_qrels` accepts).
        measures: ir_measures objects or strings in ir_measures syntax (``"nDCG@10"``,
            ``"AP(rel=2)"``, ``"RBP(p=0.8)"``) or trec_eval names (``"map"``, ``"ndcg_cut_10"``).
            Output keeps the label as written.
        multiplicity: ``None`` for the collection itself, or a mapping / Series / callable giving
            each docno's number of copies in a corpus image (missing documents: 1; 0 removes a
            document). See :mod:`pyterrier_boot.measures.materialisation` for the image it stands for.
        topics: topics to run transformers on.

    Returns:
        A long frame ``qid, measure, value`` (with a leading ``name`` column when several runs
        were given: a folder, dict or list), topics in natural order, measures in the order given.

    Conventions (trec_eval's, ir_measures' and ``pt.Experiment``'s): module docstring.

    Measures without a kernel are computed by ir_measures (on the materialised image when
    ``multiplicity`` is given, with a :class:`FallbackWarning`).

    Example:
        >>> import pandas as pd
        >>> from pyterrier_boot import evaluate
        >>> qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1, 0]})
        >>> run = pd.DataFrame({"qid": ["1", "1"], "docno": ["b", "a"], "score": [2.0, 1.0]})
        >>> evaluate(run, qrels, ["AP", "P@1"])
          qid measure  value
        0   1      AP    0.5
        1   1     P@1    0.0
        >>> evaluate(run, qrels, ["AP"], multiplicity={"b": 0})["value"].tolist()
        [1.0]
    """
    several = isinstance(run, (dict, list, tuple)) or is_run_folder(run)
    groups = None
    if isinstance(run, dict):  # a system given as a list of runs: its per-topic mean over them
        from ..seeds.groups import split_systems

        run, _, groups = split_systems(run, None)
    evaluator, _ = prepare(run if several else {"run": run}, qrels, measures, topics=topics)
    arrays = evaluator.arrays
    if multiplicity is None:
        k = np.ones((1, arrays.n_docs), np.int32)
    else:
        counts = multiplicities_for(arrays.docnos, multiplicity)
        if counts.max(initial=0) > np.iinfo(np.int32).max:
            raise ValueError("'multiplicity' holds more copies of a document than the kernels can count")
        k = counts.astype(np.int32)[None, :]
    values = evaluator.evaluate(k, identity=multiplicity is None)[0]
    if groups is not None:
        return to_long_frame(_run_means(values, groups), arrays, evaluator.measures, names=groups.names)
    return to_long_frame(values, arrays, evaluator.measures, with_name=several)


def _run_means(values: FloatArray, groups: RunGroups) -> FloatArray:
    """``[system, topic, measure]`` the mean over each system's runs (:mod:`pyterrier_boot.seeds`;
    a run scores 0 on a judged topic it has no result for, as one run does)."""
    from ..seeds.scores import RunScores

    return RunScores.of_groups(values, groups).averaged()


def to_long_frame(values: FloatArray, arrays: JudgedRuns, measures: Sequence[LabelledMeasure], *,
                  with_name: bool = True, names: Sequence[str] | None = None) -> pd.DataFrame:
    """``values[system, topic, measure]`` as a long frame ``[name,] qid, measure, value`` (systems
    named ``names``, default the runs')."""
    n_s, n_q, n_m = values.shape
    frame = pd.DataFrame({
        "name": np.repeat(np.array(arrays.systems if names is None else names, dtype=object), n_q * n_m),
        "qid": np.tile(np.repeat(arrays.qids, n_m), n_s),
        "measure": np.tile(np.array([m.label for m in measures], dtype=object), n_s * n_q),
        "value": values.reshape(-1),
    })
    return frame if with_name else frame.drop(columns="name")
