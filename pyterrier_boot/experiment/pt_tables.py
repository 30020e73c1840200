"""``pt.Experiment``'s tables built from the per-topic values already measured, without evaluating the runs again.

``pt.Experiment`` evaluates each run with ``ir_measures.iter_calc`` into a dict ``qid -> measure ->
value`` and renders its tables from those dicts (means, baseline tests, correction, rounding,
per-query rows). Here the dicts are filled from :attr:`ExperimentResult.values`, in the order
ir_measures' pytrec_eval provider yields them: the run's judged topics in order of first
appearance, each with the measures in the order pytrec_eval returns them (asked once of
ir_measures on a one-document run), then the judged topics the run lacks, sorted, at the
measure's default; with per-query output, the unjudged topics as NaN with pt's warning. PyTerrier's
own renderer then makes the tables, so their types, columns, rows, order and rounding are
``pt.Experiment``'s, and the values agree to the kernels' agreement with pytrec_eval (1e-15).

:func:`pt_tables` returns None where that order or those values are not known from the arrays,
and the caller runs ``pt.Experiment`` itself: a measure the result lacks (trec_eval families,
summed measures beside a bootstrap), one ir_measures evaluates with another provider than pytrec_eval or
with ``judged_only``, a measure asked for twice, a run without a ``qid`` column or with topics
that are not strings or integers, or a PyTerrier without the renderer.
"""
from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ir_measures
import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from collections.abc import Sequence


@dataclass(frozen=True)
class PtTables:
    """What ``pt.Experiment`` would have evaluated, read from the result's arrays.

    Attributes:
        names: the systems' names (repeats allowed, as pt.Experiment).
        present: per system, ``(qids, rows)``: its judged topics in pt's order and their values
            (one list per topic, in ``present_names`` order).
        missing: per system, the judged topics it did not retrieve, sorted.
        present_names, missing_names, all_names: pt's measure names in pytrec_eval's order, sorted by
            measure, and in ``eval_metrics`` order; defaults: the value of a topic not retrieved.
        topics: the topics' qids after ``filter_by_qrels`` (unjudged ones become NaN rows per query).
        mrt: whether ``"mrt"`` was asked for.
    """

    names: list
    present: list
    missing: list
    present_names: list
    missing_names: list
    all_names: list
    defaults: list
    topics: list
    mrt: bool

    def per_query(self, backfill: bool) -> list[defaultdict]:
        """Each system's ``qid -> measure -> value`` dict, as ``pt.Experiment`` builds it."""
        out = []
        for (qids, rows), missing in zip(self.present, self.missing):
            table: defaultdict[Any, dict] = defaultdict(dict)  # pt.Experiment's type
            table.update((q, dict(zip(self.present_names, row))) for q, row in zip(qids, rows))
            for q in missing:
                table[q] = dict(zip(self.missing_names, self.defaults))
            if backfill:
                unjudged = [q for q in dict.fromkeys(self.topics) if q not in table]
                for q in unjudged:
                    table[q] = dict.fromkeys(self.all_names, float("nan"))
                if unjudged:
                    warnings.warn(f"{len(unjudged)} topic(s) not found in qrels. Scores for these topics are given "
                                  "as NaN and should not contribute to averages.", stacklevel=4)
            out.append(table)
        return out

    def experiment(self, *, perquery: Any = False, dataframe: bool = True, baseline: int | None = None,
                   test: Any = "t", correction: str | None = None, correction_alpha: float | None = 0.05,
                   round: Any = None, untested: bool = False, **_: Any) -> Any:
        """What ``pt.Experiment`` returns with these options (without ``highlight``) on the runs.

        ``untested``: the test columns (``"<m> p-value"``, and with a ``correction`` ``"<m> reject"``
        and ``"<m> p-value corrected"``) are laid out, where ``pt.Experiment`` puts them, but not
        computed (NaN p-values, a Bonferroni correction of them), for a caller that fills them with
        its own figures."""
        from pyterrier._evaluation import _rendering

        rendering: Any = _rendering  # PyTerrier's private renderer: its overloads want literal booleans
        if untested:
            test_fn, correction = _untested, None if correction is None else "bonferroni"
        else:
            test_fn = _quiet(_test_function(test))
        renderer = rendering.RenderFromPerQuery(self.names, baseline=baseline, test_fn=test_fn, correction=correction,
                                                correction_alpha=correction_alpha, round=round, precompute_time=0)
        for sysid, table in enumerate(self.per_query(backfill=perquery is not False)):
            renderer.add_metrics(sysid, table, 0.0)
        if not perquery:
            return renderer.averages(dataframe=dataframe, mrt_needed=self.mrt)
        per_query = renderer.perquery(dataframe=dataframe)
        if perquery != "both":
            return per_query
        averages = renderer.averages(dataframe=dataframe)  # pt.Experiment: no mrt beside per-query output
        return rendering.EvaluationDataTuple(averages, per_query) if dataframe else (averages, per_query)


def _test_function(test: Any) -> Any:
    """The function ``pt.Experiment`` tests with for ``test``."""
    if not isinstance(test, str):
        return test
    from scipy import stats

    return {"t": stats.ttest_rel, "wilcoxon": stats.wilcoxon}.get(test, test)


def _untested(x: Any, y: Any) -> tuple[float, float]:
    """A test that is not made: NaN statistic and p-value (a column the caller fills)."""
    return float("nan"), float("nan")


def _quiet(test_fn: Any) -> Any:
    """``test_fn`` without numpy's floating-point warnings: on one topic scipy's t-test divides by
    zero for every run (NaN p-values), which ``Experiment``'s one warning has already said."""
    def quiet(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return test_fn(*args, **kwargs)

    return quiet


def pt_tables(result: Any, runs: Sequence[pd.DataFrame], names: Sequence[str], topics: Any,
              qrels: Any, eval_metrics: Sequence[Any], rename: dict[str, str], *,
              filter_by_qrels: bool, filter_by_topics: bool) -> PtTables | None:
    """:class:`PtTables` of ``result`` for ``pt.Experiment(runs, topics, qrels, eval_metrics, ...)``
    (``topics`` and ``qrels`` the frames pyterrier_boot read), or None where ``pt.Experiment`` must
    evaluate the runs itself (see the module docstring)."""
    try:
        from pyterrier._evaluation import _rendering
    except ImportError:  # another PyTerrier: its own Experiment evaluates
        return None
    if not all(hasattr(_rendering, n) for n in ("RenderFromPerQuery", "EvaluationDataTuple", "_convert_measures")):
        return None
    mrt = any(isinstance(m, str) and m == "mrt" for m in eval_metrics)
    measures, pt_names = _rendering._convert_measures([m for m in eval_metrics if not (isinstance(m, str) and m == "mrt")])
    names_of = [pt_names.get(m, str(m)) for m in measures]
    columns = _columns(result, measures, names_of, rename)
    order = _pytrec_eval_order(tuple(measures)) if columns is not None else None
    if columns is None or order is None:
        return None
    topic_qids = topics["qid"]
    if filter_by_qrels:
        topic_qids = topic_qids[topic_qids.isin(set(qrels["qid"]))]
    judged = set(qrels["qid"][qrels["qid"].isin(set(topic_qids))] if filter_by_topics else qrels["qid"])
    if judged != set(result.qids):
        return None
    index = {q: i for i, q in enumerate(result.qids)}
    present_columns = [columns[i] for i in order]
    by_name = sorted(range(len(measures)), key=lambda i: str(measures[i]))
    present, missing = [], []
    for s, run in enumerate(runs):
        qids = _run_qids(run)
        if qids is None:
            return None
        qids = [q for q in qids if q in judged]
        rows = result.values[s][np.ix_(np.array([index[q] for q in qids], dtype=np.intp), present_columns)].tolist()
        present.append((qids, rows))
        missing.append(sorted(judged.difference(qids)))
    return PtTables(list(names), present, missing, [names_of[i] for i in order], [names_of[i] for i in by_name],
                    names_of, [measures[i].DEFAULT for i in by_name], topic_qids.tolist(), mrt)


def _columns(result, measures, names_of, rename):
    """The result's column of each measure, or None where one is not there or not pytrec_eval's."""
    if len(set(measures)) < len(measures) or len(set(result.measures)) < len(result.measures):
        return None
    labels = {label: j for j, label in enumerate(result.measures)}
    columns = []
    for measure, name in zip(measures, names_of):
        label = rename.get(name, name)
        if label not in labels or _provider(measure) is not ir_measures.pytrec_eval or _judged_only(measure):
            return None
        columns.append(labels[label])
    return columns


def _provider(measure):
    """The provider ``ir_measures.iter_calc`` evaluates ``measure`` with (the first available that supports it)."""
    for provider in ir_measures.DefaultPipeline.providers:
        if provider.supports(measure) and provider.is_available():
            return provider
    return None


def _judged_only(measure):
    try:
        return measure["judged_only"] is True
    except (KeyError, TypeError):
        return False


@functools.lru_cache(maxsize=64)
def _pytrec_eval_order(measures: tuple) -> list[int] | None:
    """The positions of ``measures`` in the order ``ir_measures.iter_calc`` yields them for a topic
    (it groups them in sets, whose order is fixed within a process), or None if one is missing."""
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    position = {m: i for i, m in enumerate(measures)}
    order = [position.get(metric.measure, -1) for metric in ir_measures.iter_calc(list(measures), qrels, run)]
    return order if sorted(order) == list(range(len(measures))) else None


def _run_qids(run):
    """The run's topics as ``pt.Experiment`` sees them (text), in order of first appearance; None
    where they are not strings or integers (pt.Experiment then evaluates the run itself)."""
    if "qid" not in run.columns:
        return None
    values = pd.unique(run["qid"].to_numpy(object))
    if not all(isinstance(q, (str, int, np.integer)) and not isinstance(q, bool) for q in values):
        return None
    return list(dict.fromkeys(str(q) for q in values))
