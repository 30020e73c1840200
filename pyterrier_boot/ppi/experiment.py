"""The ``human_qrels=`` door of ``pt.boot.Experiment``: prediction-powered intervals in its table.

``Experiment(systems, topics, auto_qrels, measures, human_qrels=human, baseline=0)`` evaluates
with the automatic qrels as ``qrels`` and the human qrels for their topics, and returns
:meth:`PPIEvaluation.table`: ``"<m>"`` is the prediction-powered estimate with its interval in
``"<m> ci_low"`` / ``"<m> ci_high"``, the differences against the baseline likewise, and the
human-only and automatic-only intervals in columns named so.
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .evaluation import ppi_evaluate

if TYPE_CHECKING:
    from typing import Any


__all__ = ["ppi_experiment"]

# Experiment arguments this door uses; every other one must keep its default
USED = {"retr_systems", "topics", "qrels", "eval_metrics", "names", "baseline", "dataframe", "perquery",
        "batch_size", "round", "verbose", "confidence_level", "human_qrels", "rng", "filter_by_topics"}


def ppi_experiment(arguments: dict) -> Any:
    """Run ``Experiment`` with ``human_qrels``: ``arguments`` are Experiment's (``locals()``).

    Returns the wide table (``dataframe=True``), the :class:`PPIEvaluation` (``dataframe=False``)
    or the per-topic scores (``perquery=True``). Options of the bootstrap and of the classical
    tests have no meaning here and must keep their defaults; the p-value is the PPI z-test, the
    dual of the interval beside it.
    """
    from ..experiment.experiment import Experiment

    defaults = {name: p.default for name, p in inspect.signature(Experiment).parameters.items()
                if p.default is not inspect.Parameter.empty}
    changed = sorted(name for name, default in defaults.items()
                     if name not in USED and name in arguments and not _same(arguments[name], default))
    if changed:
        raise ValueError(f"with 'human_qrels', Experiment computes prediction-powered intervals (PPI++); "
                         f"{', '.join(map(repr, changed))} cannot be combined with it (they set the topic/corpus "
                         "bootstrap, classical tests or saving); leave them at their defaults")
    baseline = arguments.get("baseline")
    if isinstance(baseline, (list, tuple)):
        if len(baseline) != 1:
            raise ValueError("with 'human_qrels', 'baseline' must be a single system (a position or a name)")
        baseline = baseline[0]
    if arguments.get("perquery") not in (False, True, "both"):
        raise ValueError(f"'perquery' must be True, False or 'both', got {arguments.get('perquery')!r}")
    systems = arguments["retr_systems"]
    names = arguments.get("names")
    if isinstance(systems, dict):  # the keys name the systems (names= is ignored, as in Experiment)
        systems = {str(k): v for k, v in systems.items()}
    elif isinstance(systems, (list, tuple)):
        systems = list(systems)
        if names is None:
            names = [f"run {i}" if isinstance(s, pd.DataFrame) else str(s) for i, s in enumerate(systems)]
        elif len(names) != len(systems):
            raise ValueError("names should be the same length as retr_systems")
        systems = dict(zip(map(str, names), systems))
    else:
        raise TypeError(f"Expected list or dict of transformers for retr_systems, instead received {type(systems)}")
    metrics = arguments["eval_metrics"]
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if "mrt" in metrics:
        raise ValueError("'mrt' cannot be combined with 'human_qrels'")
    topics = arguments.get("topics") if arguments.get("filter_by_topics", True) else None
    if topics is None and any(not isinstance(s, pd.DataFrame) for s in systems.values()):
        raise ValueError("'topics' are needed to run the systems that are transformers")
    result = ppi_evaluate(systems, arguments["qrels"], arguments["human_qrels"], metrics, topics=topics,
                          confidence_level=arguments.get("confidence_level", 0.95),
                          batch_size=arguments.get("batch_size"), verbose=arguments.get("verbose") is True)
    if arguments.get("perquery") is True:
        return result.per_query()
    table = result.table(baseline=baseline) if arguments.get("dataframe", True) else result
    rounding = arguments.get("round")
    if rounding is not None and arguments.get("dataframe", True):
        table = _rounded(table, rounding)
    if arguments.get("perquery") == "both":
        return table, result.per_query()
    return table


def _same(value, default) -> bool:
    try:
        return bool(value == default) if not isinstance(value, np.ndarray) else False
    except (TypeError, ValueError):
        return False


def _rounded(table, rounding):
    if isinstance(rounding, bool) or not isinstance(rounding, (int, dict)):
        raise ValueError("Argument round should be an integer or a dictionary")
    if isinstance(rounding, int):
        return table.round({c: rounding for c in table.columns if c != "name"})
    columns = {c: d for m, d in rounding.items() for c in table.columns if c == m or c.startswith(f"{m} ")}
    return table.round(columns)
