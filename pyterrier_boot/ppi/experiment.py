"""The ``human_qrels=`` door of ``pt.boot.Experiment``: prediction-powered intervals in its table.

``Experiment(systems, topics, auto_qrels, measures, human_qrels=human, baseline=0)`` evaluates
with the automatic qrels as ``qrels`` and the human qrels for their topics, and returns
:meth:`PPIEvaluation.table`: ``"<m>"`` is the prediction-powered estimate with its interval in
``"<m> ci_low"`` / ``"<m> ci_high"``, the differences against the baseline likewise, and the
human-only and automatic-only intervals in columns named so. The other outputs keep
``pt.Experiment``'s types: ``dataframe=False`` a dict ``{name: {measure: estimate}}`` of the
prediction-powered estimates; ``perquery`` the per-topic scores with ``qrels`` (the automatic
judgments), in ``pt.Experiment``'s frame or dict. ``estimand="topics"`` (default
``"population"``) makes the intervals about the mean over these topics (``pt_docs/ppi.md``); the
table's last column, ``estimand``, says which. With ``judging_plan=plan`` the human qrels are
people's labels of the plan's sample of documents (``ppi_evaluate(..., plan=plan)``; ``rng`` seeds
the design replicates) and ``perquery`` gives each run's per-topic score with the automatic
labels of the plan's pool. ``experiment_result(..., human_qrels=...)`` returns the
:class:`PPIEvaluation` (with a plan, the :class:`SampledPPIEvaluation`) itself.
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .evaluation import ppi_evaluate
from .sampled import SampledPPIEvaluation

if TYPE_CHECKING:
    from typing import Any


__all__ = ["ppi_experiment"]

# Experiment arguments this door uses; every other one must keep its default
USED = {"retr_systems", "topics", "qrels", "eval_metrics", "names", "baseline", "dataframe", "perquery",
        "batch_size", "round", "verbose", "confidence_level", "human_qrels", "rng", "filter_by_topics",
        "estimand", "judging_plan"}


def ppi_experiment(arguments: dict, *, rich: bool = False) -> Any:
    """Run ``Experiment`` with ``human_qrels``: ``arguments`` are Experiment's (``locals()``).

    Returns what ``pt.Experiment`` would, in its types: the wide table (``dataframe=True``), a
    dict ``{name: {measure: PPI estimate}}`` (``dataframe=False``), or the per-topic scores with
    the automatic ``qrels`` (``perquery``, frame or dict); ``rich=True`` (the door
    ``experiment_result``) returns the :class:`PPIEvaluation`. Options of the bootstrap and of the
    classical tests have no meaning here and must keep their defaults; the p-value is the PPI test,
    the dual of the interval beside it.
    """
    from ..experiment.experiment import Experiment

    defaults = {name: p.default for name, p in inspect.signature(Experiment).parameters.items()
                if p.default is not inspect.Parameter.empty}
    changed = sorted(name for name, default in defaults.items()
                     if name not in USED and name in arguments and not _same(arguments[name], default))
    if changed:
        raise ValueError(f"with 'human_qrels', Experiment computes prediction-powered intervals; "
                         f"{', '.join(map(repr, changed))} cannot be combined with it (they set the topic/corpus "
                         "bootstrap, classical tests or saving); leave them at their defaults")
    baseline = arguments.get("baseline")
    if isinstance(baseline, (list, tuple)):
        if len(baseline) != 1:
            raise ValueError("with 'human_qrels', 'baseline' must be a single system (a position or a name)")
        baseline = baseline[0]
    if arguments.get("perquery", False) not in (False, True, "both"):
        raise ValueError(f"'perquery' must be True, False or 'both', got {arguments.get('perquery')!r}")
    names, systems = _named_systems(arguments["retr_systems"], arguments.get("names"))
    metrics = arguments["eval_metrics"]
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if "mrt" in metrics:
        raise ValueError("'mrt' cannot be combined with 'human_qrels'")
    topics = arguments.get("topics") if arguments.get("filter_by_topics", True) else None
    if topics is None and any(not isinstance(s, pd.DataFrame) for s in systems.values()):
        raise ValueError("'topics' are needed to run the systems that are transformers")
    result = ppi_evaluate(systems, arguments["qrels"], arguments["human_qrels"], metrics, topics=topics,
                          confidence_level=arguments.get("confidence_level", 0.95),
                          estimand="population" if arguments.get("estimand") is None else arguments["estimand"],
                          plan=arguments.get("judging_plan"), rng=arguments.get("rng"),
                          batch_size=arguments.get("batch_size"), verbose=arguments.get("verbose") is True)
    if rich:
        return result
    rounding = arguments.get("round")
    if rounding is not None and (isinstance(rounding, bool) or not isinstance(rounding, (int, dict))):
        raise ValueError("Argument round should be an integer or a dictionary")
    dataframe, perquery = arguments.get("dataframe", True), arguments.get("perquery", False)
    if perquery is True:
        return _per_query(result, names, dataframe, rounding)
    if dataframe:
        table = result.table(baseline=baseline).assign(name=names)  # pt.Experiment's names, duplicates too
        table = _rounded(table, rounding) if rounding is not None else table
    else:
        table = _averages(result, names, rounding)
    if perquery == "both":
        return table, _per_query(result, names, dataframe, rounding)
    return table


def _named_systems(systems, names) -> tuple[list[str], dict]:
    """pt.Experiment's names and the systems under unique keys (``"name (i)"`` for repeated names)."""
    from ..experiment.execution import check_system_types, named_systems, unique_keys

    systems, names = named_systems(systems, names)
    check_system_types(systems, names)
    return names, dict(zip(unique_keys(names), systems, strict=True))


def _round(value: float, measure: str, rounding) -> float:
    if isinstance(rounding, dict):
        return round(value, rounding[measure]) if measure in rounding else value
    return value if rounding is None else round(value, rounding)


def _averages(result, names: list[str], rounding) -> dict:
    """``pt.Experiment(dataframe=False)``'s dict ``{name: {measure: value}}``, with the PPI estimates."""
    out: dict = {}
    for label in result.measures:
        estimates = result.intervals(label)["ppi"].statistic
        for name, value in zip(names, estimates):
            out.setdefault(name, {})[label] = _round(float(value), label, rounding)
    return out


def _per_query(result, names: list[str], dataframe: bool, rounding):
    """``pt.Experiment(perquery=True)``'s output (frame ``name, qid, measure, value`` sorted by name and
    qid, or dict ``{position: {qid: {measure: value}}}``) with the scores under the automatic qrels."""
    qids, auto = _auto_scores(result)
    by_system: dict = {}
    for s in range(len(names)):
        by_system[s] = {q: {label: _round(float(auto[m, t, s]), label, rounding)
                            for m, label in enumerate(result.measures)} for t, q in enumerate(qids)}
    if not dataframe:
        return by_system
    rows = [(names[s], q, label, value) for s, per_topic in by_system.items()
            for q, values in per_topic.items() for label, value in values.items()]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"]).sort_values(["name", "qid"])


def _auto_scores(result) -> tuple[list[str], np.ndarray]:
    """The topics and the per-topic scores with the automatic labels, ``(measures, topics, runs)``."""
    if isinstance(result, SampledPPIEvaluation):
        return list(result.qids), result.estimates["auto-only"][:, 0]
    return (list(result.labeled_qids) + list(result.unlabeled_qids),
            np.concatenate([result.auto_labeled, result.auto_unlabeled], axis=1))


def _same(value, default) -> bool:
    try:
        return bool(value == default) if not isinstance(value, np.ndarray) else False
    except (TypeError, ValueError):
        return False


def _rounded(table, rounding):
    if isinstance(rounding, int):
        return table.round({c: rounding for c in table.columns if c not in ("name", "estimand")})
    columns = {c: d for m, d in rounding.items() for c in table.columns if c == m or c.startswith(f"{m} ")}
    return table.round(columns)
