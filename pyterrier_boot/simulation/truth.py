"""Monte Carlo population values of measures on simulated topics, computed by ir_measures.

The values are computed by ``ir_measures`` (the reference implementation of the measures; none of
pyterrier_boot's own measure code is involved), on dict runs and qrels built from the draws of
:mod:`.model`, a chunk of topics at a time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import ir_measures
import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .._typing import FloatArray, MeasuresLike
    from ..measures.parsing import LabelledMeasure
    from .model import CollectionModel, TopicSample


_CHUNK = 200  # topics evaluated per ir_measures call


def parse(measures: MeasuresLike) -> list[LabelledMeasure]:
    """Labelled measures for ``truth``; summed measures (NumRet, ...) have no population mean."""
    from ..measures.parsing import parse_measures, require_mean_aggregated

    labelled = parse_measures(measures)
    require_mean_aggregated(labelled, context="a population mean")
    for lm in labelled:
        try:
            ir_measures.evaluator([lm.measure], {"1": {"d": 1}})
        except ValueError as error:
            raise ValueError(
                f"ir_measures cannot compute {lm.label!r} here ({error}); the Monte Carlo truth is "
                "computed by ir_measures, the reference, so only measures it provides are supported"
            ) from None
    return labelled


def _evaluation_depth(labelled):
    """Every measure with a cutoff looks at the top ``cutoff`` documents only: truncate to the largest."""
    cutoffs = [lm.measure.params.get("cutoff") for lm in labelled]
    return None if any(c is None for c in cutoffs) else max(cutoffs)


def evaluate(model: CollectionModel, samples: Iterable[TopicSample], labelled: Sequence[LabelledMeasure], *,
             complete: bool = False) -> FloatArray:
    """Per-topic values ``[measure, run, sample]`` of ``samples`` (an iterable of TopicSample; a run
    per system with one run per system).

    ``complete``: judge every relevant document, not only the pool. A system that retrieves
    nothing for a topic scores 0 on it.
    """
    measures = list(dict.fromkeys(lm.measure for lm in labelled))
    where = {m: i for i, m in enumerate(measures)}
    rows = [where[lm.measure] for lm in labelled]
    depth = _evaluation_depth(labelled)
    docnos = model.docnos()
    blocks, chunk = [], []
    for sample in samples:
        chunk.append(sample)
        if len(chunk) == _CHUNK:
            blocks.append(_evaluate_chunk(model, chunk, measures, where, depth, docnos, complete))
            chunk = []
    if chunk:
        blocks.append(_evaluate_chunk(model, chunk, measures, where, depth, docnos, complete))
    values = np.concatenate(blocks, axis=2) if blocks else np.zeros((len(measures), model.n_runs, 0))
    return values[rows]


def _evaluate_chunk(model, chunk, measures, where, depth, docnos, complete):
    qrels = {}
    for q, sample in enumerate(chunk):
        judged = sample.complete() if complete else sample.judged
        if len(judged):
            qrels[str(q)] = dict(zip(docnos[sample.doc_ids[judged]].tolist(), sample.labels(judged).tolist()))
    values = np.zeros((len(measures), model.n_runs, len(chunk)))
    if not qrels:
        return values
    evaluator = ir_measures.evaluator(measures, qrels)
    for s in range(model.n_runs):
        run = {}
        for q, sample in enumerate(chunk):
            ranking = sample.ranking[s, :depth]
            if len(ranking):
                run[str(q)] = dict(zip(docnos[sample.doc_ids[ranking]].tolist(), sample.scores[s, :depth].tolist()))
        for metric in evaluator.iter_calc(run):
            values[where[metric.measure], s, int(metric.query_id)] = metric.value
    return values


def population_means(values: FloatArray, labelled: Sequence[LabelledMeasure], names: Sequence[str],
                     n_topics: int, single: bool) -> pd.DataFrame:
    """Means over the last axis with their Monte Carlo standard errors, labelled by measure."""
    n = values.shape[-1]
    mean = values.mean(axis=-1)
    se = values.std(axis=-1, ddof=1) / np.sqrt(n) if n > 1 else np.full(mean.shape, np.nan)
    labels = [lm.label for lm in labelled]
    if single:
        result = pd.Series(mean[0], index=pd.Index(names, name="name"), name=labels[0])
        result.attrs["standard_error"] = pd.Series(se[0], index=result.index, name=labels[0])
    else:
        result = pd.DataFrame(mean.T, index=pd.Index(names, name="name"), columns=labels)
        result.attrs["standard_error"] = pd.DataFrame(se.T, index=result.index, columns=labels)
    result.attrs["n_topics"] = n_topics
    return result


def system_means(values: FloatArray, model: CollectionModel) -> FloatArray:
    """``values[..., run, sample]`` averaged over each system's runs: ``[..., system, sample]``."""
    owner = model.owner
    out = np.stack([values[..., owner == s, :].mean(axis=-2) for s in range(model.n_systems)], axis=-2)
    return out
