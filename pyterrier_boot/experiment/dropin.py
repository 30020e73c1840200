"""``pt.Experiment``'s own output for the runs of an experiment, with pyterrier_boot's columns added.

The table, the per-query frame and the ``dataframe=False`` dicts are made by ``pt.Experiment``'s
own renderer from the per-topic values ``Experiment`` measured (:mod:`.pt_tables`: the runs are
evaluated once), or, where those values do not hold every measure ``pt.Experiment`` would show
(trec_eval families, summed measures, measures not evaluated by pytrec_eval), by ``pt.Experiment``
itself on the runs (as frames, under the systems' names). Either way they have exactly
``pt.Experiment``'s types, columns, rows, index, names and rounding. Then:

* the mean response time (``"mrt"``) is the time the systems took when they ran;
* the test columns (``"<m> p-value"``, ``"<m> reject"``, ``"<m> p-value corrected"``) are
  pyterrier_boot's test of ``test=`` (for ``"t"`` and ``"wilcoxon"`` equal to ``pt.Experiment``'s);
* the columns ``pt.Experiment`` does not have (intervals, differences, effect sizes) follow its
  columns, in the order of :meth:`ExperimentResult.table`;
* with the corpus bootstrap, the per-query frame gets each topic's ``ci_low``/``ci_high``.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .pt_tables import pt_tables
from .result import _highlighted

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from .._typing import MeasuresLike, QrelsLike, TopicsLike


_TEST_COLUMNS = (" p-value", " reject", " p-value corrected")


def pt_shaped(result: Any, runs: Sequence[Any], names: Sequence[str], topics: TopicsLike,
              qrels: QrelsLike, eval_metrics: MeasuresLike, *, rename: dict[str, str],
              baseline: int | str | None, test: str, correction: str | None,
              correction_alpha: float | None, round: int | None, filter_by_qrels: bool,
              filter_by_topics: bool, mrt: list[Any] | None) -> Any:
    """A :class:`PtView` of ``result``: ``pt.Experiment``'s output for ``runs`` (frames named ``names``),
    built from ``result``'s per-topic values where they hold every measure (:mod:`.pt_tables`), else
    ``pt.Experiment`` run on the frames."""
    options = dict(baseline=baseline, test=test, correction=correction, correction_alpha=correction_alpha)
    tables = pt_tables(result, runs, names, topics, qrels, eval_metrics, rename, filter_by_qrels=filter_by_qrels,
                       filter_by_topics=filter_by_topics)
    if tables is not None:
        # the test columns are ours (PtView._averages): pt's renderer only lays them out, untested
        untested = result.comparisons is not None
        return PtView(result, list(names), lambda **kwargs: tables.experiment(**(options | kwargs), untested=untested),
                      rename, mrt, round, untested)
    runs = [_uniform_ids(run) for run in runs]
    qrels = _uniform_ids(qrels)

    def call(**kwargs):
        return _pt_experiment()(list(runs), topics, qrels, list(eval_metrics), names=list(names),
                                **(options | dict(filter_by_qrels=filter_by_qrels, filter_by_topics=filter_by_topics,
                                                  verbose=False, validate="ignore") | kwargs))

    return PtView(result, list(names), call, rename, mrt, round)


def _uniform_ids(frame):
    """``frame`` with ``qid``/``docno`` columns of mixed Python types (``[1, "2"]``) as text, which
    ``pt.Experiment`` cannot evaluate; columns of one type are left as they are."""
    if not isinstance(frame, pd.DataFrame):
        return frame
    mixed = [c for c in ("qid", "docno") if c in frame.columns and frame[c].dtype == object
             and frame[c].map(type).nunique() > 1]
    return frame.assign(**{c: frame[c].astype(str) for c in mixed}) if mixed else frame


@dataclass(frozen=True)
class PtView:
    """``pt.Experiment``'s outputs for an experiment's runs, with pyterrier_boot's figures added."""

    result: Any
    names: list
    call: Callable[..., Any]
    rename: dict
    mrt: list | None
    round: Any
    untested: bool = False  # the test columns ``call`` gives are placeholders, all of them replaced by ours

    def output(self, *, perquery: bool, dataframe: bool, highlight: Any) -> Any:
        """What ``pt.Experiment(perquery=..., dataframe=..., highlight=...)`` returns, with our columns."""
        if not perquery:
            return self._averages(self.call(round=self.round, dataframe=dataframe), dataframe, highlight)
        out = self.call(round=self.round, perquery=perquery, dataframe=dataframe)
        if perquery is True:
            return self._per_query(out, dataframe)
        averages, per_query = out
        parts = (self._averages(averages, dataframe, highlight), self._per_query(per_query, dataframe))
        return type(out)(*parts) if hasattr(out, "_fields") else parts  # pt: a named tuple of frames, else a tuple

    def save_summaries(self, save_dir: str) -> None:
        """``aggregated.csv`` and ``perquery.csv`` in ``save_dir``, keeping other systems' rows (as pt.Experiment)."""
        current = set(self.names)
        averages = self._averages(self.call(round=self.round), True, None)
        per_query = self.call(perquery=True, baseline=None, correction=None,
                              round=self.round if isinstance(self.round, int) else None)
        for file, new in (("aggregated.csv", averages), ("perquery.csv", self._per_query(per_query, True))):
            path = os.path.join(save_dir, file)
            if os.path.exists(path):
                old = pd.read_csv(path)
                old = old[~old["name"].isin(current)]
                if not old.empty:
                    new = pd.concat([new, old], ignore_index=True)
            new.to_csv(path, index=False)

    # ------------------------------------------------------------

    def _averages(self, averages, dataframe, highlight):
        if not dataframe:
            if self.rename:
                averages = {name: {self.rename.get(m, m): v for m, v in row.items()} for name, row in averages.items()}
            for name, milliseconds in zip(self.names, self.mrt or []):  # a repeated name: the last, as pt
                if "mrt" in averages.get(name, {}):
                    averages[name]["mrt"] = milliseconds
            return averages
        frame = averages.rename(columns=lambda c: _renamed(c, self.rename))
        ours = self.result.table()
        for column in frame.columns:
            if column in ours.columns and (column == "mrt" or column.endswith(_TEST_COLUMNS)):
                frame[column] = ours[column].to_numpy()
            elif self.untested and column.endswith(_TEST_COLUMNS):
                raise RuntimeError(f"pt.boot.Experiment has no {column!r} to fill pt.Experiment's column with")
        added = [c for c in ours.columns if c not in frame.columns and c != "name"]
        if added:
            frame = pd.concat([frame, ours[added].set_axis(frame.index)], axis=1)
        if highlight is None:
            return frame
        direction = {c: "+" for c in averages.columns if c != "name" and not c.endswith(_TEST_COLUMNS)}
        direction.update({c: "-" for c in frame.columns if c == "mrt" or c.endswith(" -")})
        return _highlighted(frame, direction, highlight)

    def _per_query(self, per_query, dataframe):
        if not self.rename:
            frame = per_query
        elif not dataframe:
            return {s: {q: {self.rename.get(m, m): v for m, v in row.items()} for q, row in topics.items()}
                    for s, topics in per_query.items()}
        else:
            frame = per_query.assign(measure=per_query["measure"].map(lambda m: self.rename.get(m, m)))
        if not dataframe:
            return frame
        if self.result.corpus is None:
            return frame
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pt.Experiment has said which topics are unjudged
            ours = self.result.per_query()
        ours = ours[ours["ci_low"].notna()]
        key = pd.MultiIndex.from_frame(ours[["name", "qid", "measure"]])
        if not key.is_unique:
            return frame
        position = key.get_indexer(pd.MultiIndex.from_frame(frame[["name", "qid", "measure"]].astype(object)))
        for side in ("ci_low", "ci_high"):
            frame[side] = np.where(position >= 0, ours[side].to_numpy()[position], np.nan)
        return frame


def _pt_experiment():
    """PyTerrier's own ``Experiment`` (``pt.Experiment`` may have been set to ours)."""
    from pyterrier import _evaluation

    return _evaluation.Experiment


def _renamed(column, rename):
    for theirs, label in rename.items():
        if column == theirs or column.startswith(theirs + " "):
            return label + column[len(theirs):]
    return column
