"""``SequentialEvaluation``: a saved, growing sequence of judged topics and the decisions it supports."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._checks import check_choice, check_confidence_level
from .comparisons import CORRECTIONS, check_margin, pairs, sequential_comparisons
from .sequence import confidence_sequence

if TYPE_CHECKING:
    from .._typing import MeasuresLike, QrelsLike, RunsLike
    from ..judging import JudgingPlan
    from .result import ConfidenceSequence

__all__ = ["SequentialEvaluation"]


class SequentialEvaluation:
    """Per-topic scores of several systems, topic by topic in the order judged, and anytime-valid
    decisions about every pair (or every system against a baseline) that may be read after each
    update (:mod:`pyterrier_boot.sequential.comparisons`).

    Args:
        scores: the per-topic scores of the first topics, as
            a long frame ``name, qid, measure, value`` (what :func:`~pyterrier_boot.evaluate`
            returns for several runs), a frame with topics as rows (index ``qid``) and one column
            per system (one measure, named by ``measure``), or the same with columns
            ``(measure, system)`` (a two-level column index). Rows are topics in the order they
            were judged: that order is kept.
        measure: the measure's name for a frame of one measure (default ``"score"``).
        baseline: compare every system with this one; default: every pair.
        correction: ``"bonferroni"`` (family-wise error) or ``"e-bh"`` (false discovery rate).
        confidence_level: ``1 - alpha`` of each measure's family of pairs.
        bounds: the range of every score (default ``(0, 1)``).

    The guarantee needs the topics to come in an order unrelated to the systems' differences (a
    random order of the topics to judge, not e.g. sorted by difficulty).

    With a judging plan (:meth:`from_plan`, :meth:`update_from_plan`), people label the plan's
    sample of documents topic by topic and each topic enters once its sample is labelled
    (:mod:`pyterrier_boot.sequential.planned`); :meth:`decisions` then also projects the labels
    still needed.

    Example:
        >>> import pandas as pd, pyterrier_boot as ptb
        >>> first = pd.DataFrame({"bm25": [0.2, 0.4], "dense": [0.5, 0.6]}, index=["1", "2"])
        >>> state = ptb.SequentialEvaluation(first, measure="nDCG@10")
        >>> state.update(pd.DataFrame({"bm25": [0.3], "dense": [0.7]}, index=["3"])).n_topics
        3
    """

    def __init__(self, scores: pd.DataFrame, *, measure: str | None = None, baseline: str | None = None,
                 correction: str = "bonferroni", confidence_level: float = 0.95,
                 bounds: tuple[float, float] = (0.0, 1.0)) -> None:
        qids, systems, measures, values = _parse_scores(scores, measure)
        self._settings = _check_settings(baseline, correction, confidence_level, bounds, systems)
        _check_values(values, qids, systems, measures, self._settings["bounds"])
        self._qids, self._systems, self._measures, self._values = qids, systems, measures, values
        self._plan: dict[str, Any] | None = None
        self._waiting: list[str] = []

    @classmethod
    def from_runs(cls, runs: RunsLike, qrels: QrelsLike, measures: MeasuresLike, **options: Any) -> SequentialEvaluation:
        """The state of ``runs`` on the topics of ``qrels`` (:func:`~pyterrier_boot.evaluate`), in
        the order the topics first appear in the qrels; ``options`` as the constructor's."""
        return cls(_evaluate(runs, qrels, measures), **options)

    @classmethod
    def from_plan(cls, runs: RunsLike, plan: JudgingPlan, human_qrels: QrelsLike, measures: MeasuresLike,
                  **options: Any) -> SequentialEvaluation:
        """The state of ``runs`` on the topics whose sampled pairs people have all labelled in
        ``human_qrels`` (the judging ``plan``'s sample; the automatic labels are the plan's), in the
        order of their first label; ``measures`` AP, nDCG, R or Rprec
        (:mod:`~pyterrier_boot.sequential.planned`); ``options`` as the constructor's. A
        ValueError when no topic is fully labelled yet; a FitWarning when the plan gives people
        under 10% of the pool (the ratio estimates' bias then shows in the sequences)."""
        from .planned import labels_per_topic, plan_identity, planned_topics, warn_small_budget

        topics = planned_topics(runs, plan, human_qrels, measures)
        warn_small_budget(plan)
        if not topics.added:
            raise ValueError(f"'human_qrels' completes no topic of the judging plan yet ({len(topics.partial)} partly "
                             "labelled): a topic enters once every pair of it the plan sampled is labelled")
        state = cls(topics.scores, **options)
        state._plan = {"identity": plan_identity(plan), "labels_per_topic": labels_per_topic(plan)}
        state._waiting = topics.partial
        return state

    # ------------------------------------------------------------------ contents

    @property
    def qids(self) -> list[str]:
        """The topics, in the order they were added."""
        return list(self._qids)

    @property
    def systems(self) -> list[str]:
        return list(self._systems)

    @property
    def measures(self) -> list[str]:
        return list(self._measures)

    @property
    def n_topics(self) -> int:
        return len(self._qids)

    @property
    def waiting(self) -> list[str]:
        """With a judging plan: the topics partly labelled at the last :meth:`from_plan` or
        :meth:`update_from_plan`, which enter once their sample is complete (not saved)."""
        return list(self._waiting)

    @property
    def settings(self) -> dict[str, Any]:
        """``baseline, correction, confidence_level, bounds`` and ``plan`` (None, or the judging
        plan's ``identity`` and its ``labels_per_topic``)."""
        return {**self._settings, "plan": None if self._plan is None else dict(self._plan)}

    def scores(self) -> pd.DataFrame:
        """The long frame ``name, qid, measure, value``, topics in the order added."""
        return _long_frame(self._qids, self._systems, self._measures, self._values)

    def __repr__(self) -> str:
        return (f"SequentialEvaluation({len(self._systems)} systems, {', '.join(self._measures)}, "
                f"{self.n_topics} topics, {self._settings['correction']})")

    # ------------------------------------------------------------------ growing

    def update(self, new_scores: pd.DataFrame, *, measure: str | None = None) -> SequentialEvaluation:
        """Append newly judged topics (the forms the constructor takes), in their order; returns
        ``self``. A topic already in the state, or scores of other systems or measures, are a ValueError
        (and the state is left as it was), as is a state made from a judging plan (its topics come
        from :meth:`update_from_plan`)."""
        self._refuse_if_planned()
        return self._append(new_scores, measure)

    def _refuse_if_planned(self) -> None:
        if self._plan is not None:
            raise ValueError("this evaluation was made from a judging plan: add topics with update_from_plan(runs, "
                             "plan, human_qrels), which scores them as the plan's estimators do")

    def _append(self, new_scores: pd.DataFrame, measure: str | None) -> SequentialEvaluation:
        """:meth:`update` without the check that the state is not a plan's."""
        qids, systems, measures, values = _parse_scores(new_scores, measure, default=self._single_measure())
        if set(systems) != set(self._systems):
            raise ValueError(f"'new_scores' must hold the systems of this evaluation, {_listed(self._systems)}; "
                             f"{_difference(systems, self._systems)}")
        if set(measures) != set(self._measures):
            raise ValueError(f"'new_scores' must hold the measures of this evaluation, {_listed(self._measures)}; "
                             f"{_difference(measures, self._measures)}")
        repeated = [q for q in qids if q in set(self._qids)]
        if repeated:
            raise ValueError(f"'new_scores' holds {len(repeated)} topic(s) already in this evaluation, e.g. "
                             f"{repeated[0]!r}: each topic is added once (a sequence of topics, not of scores)")
        values = values[:, [systems.index(s) for s in self._systems]][:, :, [measures.index(m) for m in self._measures]]
        _check_values(values, qids, self._systems, self._measures, self._settings["bounds"])
        self._qids = self._qids + qids
        self._values = np.concatenate([self._values, values])
        return self

    def update_from_runs(self, runs: RunsLike, qrels: QrelsLike) -> list[str]:
        """Append the topics of ``qrels`` not yet in the state (in the qrels' order), scored as
        :meth:`from_runs` does; returns the topics added (none: the state is unchanged). A state made
        from a judging plan refuses it, as :meth:`update` does."""
        self._refuse_if_planned()
        scores = _evaluate(runs, qrels, self._measures)
        new = [q for q in dict.fromkeys(scores["qid"]) if q not in set(self._qids)]
        if new:
            self.update(scores[scores["qid"].isin(new)])
        return new

    def update_from_plan(self, runs: RunsLike, plan: JudgingPlan, human_qrels: QrelsLike) -> list[str]:
        """Append the topics that every label so far (``human_qrels``) completes and the state does
        not hold, as :meth:`from_plan` does; returns the topics added. A ValueError for another plan,
        or labels that change the scores of topics already in the state (the state is then unchanged)."""
        from .planned import plan_identity, planned_topics

        if self._plan is None:
            raise ValueError("this evaluation was not made from a judging plan (SequentialEvaluation.from_plan): "
                             "update it with update() or update_from_runs()")
        if plan_identity(plan) != self._plan["identity"]:
            raise ValueError("'plan' is not the judging plan this evaluation was made from (its pairs, inclusion "
                             "probabilities or sample differ)")
        topics = planned_topics(runs, plan, human_qrels, self._measures, known=self._qids)
        qids, systems, measures, values = _parse_scores(topics.scores, None)
        if set(systems) != set(self._systems):
            raise ValueError(f"'runs' must be the runs of this evaluation, {_listed(self._systems)}; "
                             f"{_difference(systems, self._systems)}")
        values = values[:, [systems.index(s) for s in self._systems]][:, :, [measures.index(m) for m in self._measures]]
        known = len(self._qids)
        changed = ~np.isclose(values[:known], self._values, rtol=1e-9, atol=1e-12)
        if changed.any():
            t = int(np.argwhere(changed)[0][0])
            raise ValueError(f"'human_qrels' changes the scores of {int(changed.any(axis=(1, 2)).sum())} topic(s) "
                             f"already in this evaluation, from {self._qids[t]!r} on: labels of {self._qids[t]!r} "
                             "changed since (each later topic's weight of the automatic labels is tuned on the "
                             "topics before it, so its scores move too), or the runs did; the sequence keeps the "
                             "scores it was built with")
        if topics.added:
            self._append(topics.scores[topics.scores["qid"].isin(topics.added)], None)
        self._waiting = topics.partial
        return topics.added

    def _single_measure(self) -> str | None:
        return self._measures[0] if len(self._measures) == 1 else None

    # ------------------------------------------------------------------ reading

    def decisions(self, margin: float = 0.0, *, measure: str | None = None) -> pd.DataFrame:
        """Per measure and pair, after the last topic: the sequence of ``system_a - system_b``
        and the verdict ``better`` / ``worse`` / ``equivalent`` (within ``[-margin, margin]``) /
        ``undecided``, with a rough projection of the topics still needed (columns of
        :func:`~pyterrier_boot.sequential.comparisons.sequential_comparisons`, a leading
        ``measure``, then ``margin`` and ``correction``). From a judging plan, also
        ``labels_needed``: the topics still needed times the plan's sampled pairs per topic."""
        margin = check_margin(margin)
        measures = self._measures if measure is None else [self._measure_name(measure)]
        frames = []
        for name in measures:
            j = self._measures.index(name)
            frame = sequential_comparisons(self._values[:, :, j], self._systems, margin=margin, **self._comparison())
            frame.insert(0, "measure", name)
            frames.append(frame.assign(margin=margin, correction=self._settings["correction"]))
        table = pd.concat(frames, ignore_index=True)
        if self._plan is not None:
            table["labels_needed"] = np.ceil(table["topics_needed"] * self._plan["labels_per_topic"])
        return table

    def sequence(self, system_a: str, system_b: str | None = None, *, measure: str | None = None) -> ConfidenceSequence:
        """The betting sequence over the topics added so far of ``system_a - system_b`` (a compared
        pair, or against the baseline when ``system_b`` is None), for ``plot()`` or a look at its
        history, at level ``1 - alpha / K``: the intervals of :meth:`decisions` under Bonferroni
        (under e-BH those are e-BY intervals at the last topic, which have no history)."""
        j = self._measures.index(self._measure_name(measure))
        names = self._systems
        system_b = self._settings["baseline"] if system_b is None else system_b
        if system_a not in names or system_b not in names:
            raise ValueError(f"'system_a' and 'system_b' must be systems of this evaluation ({_listed(names)}), got "
                             f"{system_a!r} and {system_b!r}")
        k = len(pairs(names, self._settings["baseline"]))
        alpha = 1.0 - self._settings["confidence_level"]
        low, high = self._settings["bounds"]
        x = self._values[:, :, j]
        return confidence_sequence(x[:, names.index(system_a)], x[:, names.index(system_b)],
                                   bounds=(low - high, high - low), confidence_level=1 - alpha / k)

    def _measure_name(self, measure: str | None) -> str:
        if measure is None:
            if len(self._measures) > 1:
                raise ValueError(f"'measure' is needed: this evaluation holds {_listed(self._measures)}")
            return self._measures[0]
        if measure not in self._measures:
            raise ValueError(f"'measure' {measure!r} is not one of {_listed(self._measures)}")
        return measure

    def _comparison(self) -> dict[str, Any]:
        return {key: self._settings[key] for key in ("baseline", "bounds", "confidence_level", "correction")}

    # ------------------------------------------------------------------ files

    def save(self, path: str | os.PathLike) -> Path:
        """Write the state to a text file (settings and a checksum in its header, one tab-separated
        line per topic and measure: :mod:`pyterrier_boot.sequential.storage`); returns the path."""
        from .storage import save_state

        return save_state(path, qids=self._qids, systems=self._systems, measures=self._measures,
                          values=self._values, settings=self.settings)

    @classmethod
    def load(cls, path: str | os.PathLike) -> SequentialEvaluation:
        """Read a state written by :meth:`save` (checked against its checksum)."""
        from .storage import load_state

        state = load_state(path)
        frame = _long_frame(state["qids"], state["systems"], state["measures"], state["values"])
        loaded = cls(frame, baseline=state["baseline"], correction=state["correction"],
                     confidence_level=state["confidence_level"], bounds=state["bounds"])
        loaded._plan = state["plan"]
        return loaded


# ---------------------------------------------------------------------- inputs


def _long_frame(qids, systems, measures, values) -> pd.DataFrame:
    """``values[topic, system, measure]`` as the long frame ``name, qid, measure, value``."""
    t, s, m = values.shape
    return pd.DataFrame({
        "name": np.tile(np.repeat(np.array(systems, dtype=object), m), t),
        "qid": np.repeat(np.array(qids, dtype=object), s * m),
        "measure": np.tile(np.array(measures, dtype=object), t * s),
        "value": values.reshape(-1),
    })


def _evaluate(runs, qrels, measures) -> pd.DataFrame:
    """``evaluate``'s long frame, topics in the order they first appear in the qrels."""
    from ..inputs.qrels import read_qrels
    from ..measures.evaluation import evaluate

    qrels = read_qrels(qrels)
    scores = evaluate(runs, qrels, measures)
    if "name" not in scores:
        raise ValueError("'runs' must hold several runs (a dict, a list or a folder of runs) to compare")
    order = {q: i for i, q in enumerate(qrels.judged_order)}
    position = scores["qid"].map(order)
    return scores.iloc[np.lexsort((np.arange(len(scores)), position.to_numpy()))].reset_index(drop=True)


def _parse_scores(scores, measure, default=None) -> tuple[list[str], list[str], list[str], np.ndarray]:
    """``(qids, systems, measures, values[topic, system, measure])`` of the accepted frames."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"'scores' must be a pandas DataFrame (long: name, qid, measure, value; or wide: topics x "
                        f"systems), got {type(scores).__name__}")
    if {"name", "qid", "measure", "value"} <= set(scores.columns):
        if measure is not None:
            raise ValueError("'measure' names the measure of a wide frame; the long frame has a 'measure' column")
        return _from_long(scores)
    wide = scores.set_index("qid") if "qid" in scores.columns else scores
    if wide.columns.nlevels == 1:
        wide = wide.copy()
        wide.columns = pd.MultiIndex.from_product([[measure or default or "score"], wide.columns.astype(str)])
    elif measure is not None:
        raise ValueError("'measure' names the measure of a frame of one measure; this frame's columns are "
                         "(measure, system)")
    if wide.columns.nlevels != 2:
        raise ValueError("'scores' columns must be systems, or (measure, system) pairs")
    try:
        values = wide.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise TypeError("'scores' must hold numeric scores") from None
    t, c = values.shape
    long = pd.DataFrame({"qid": np.repeat(wide.index.astype(str).to_numpy(), c),
                         "measure": np.tile(wide.columns.get_level_values(0).astype(str).to_numpy(), t),
                         "name": np.tile(wide.columns.get_level_values(1).astype(str).to_numpy(), t),
                         "value": values.reshape(-1)})
    return _from_long(long)


def _from_long(frame: pd.DataFrame) -> tuple[list[str], list[str], list[str], np.ndarray]:
    frame = frame.astype({"qid": str, "name": str, "measure": str})
    qids = list(dict.fromkeys(frame["qid"]))
    systems = list(dict.fromkeys(frame["name"]))
    measures = list(dict.fromkeys(frame["measure"]))
    if not qids:
        raise ValueError("'scores' holds no topic")
    keys = frame[["qid", "name", "measure"]]
    if keys.duplicated().any():
        row = keys[keys.duplicated()].iloc[0]
        raise ValueError(f"'scores' holds topic {row['qid']!r} of system {row['name']!r} on {row['measure']!r} "
                         "more than once")
    values = np.full((len(qids), len(systems), len(measures)), np.nan)
    t = frame["qid"].map({q: i for i, q in enumerate(qids)}).to_numpy()
    s = frame["name"].map({n: i for i, n in enumerate(systems)}).to_numpy()
    m = frame["measure"].map({n: i for i, n in enumerate(measures)}).to_numpy()
    try:
        values[t, s, m] = frame["value"].to_numpy(float)
    except (TypeError, ValueError):
        raise TypeError("'scores' must hold numeric scores") from None
    return qids, systems, measures, values


def _check_values(values, qids, systems, measures, bounds) -> None:
    missing = np.isnan(values)
    if missing.any():
        t, s, m = np.argwhere(missing)[0]
        raise ValueError(f"'scores' lacks {int(missing.sum())} score(s) (NaN or absent), e.g. topic {qids[t]!r} of "
                         f"system {systems[s]!r} on {measures[m]!r}: every system needs a score on every topic")
    outside = (values < bounds[0]) | (values > bounds[1]) | ~np.isfinite(values)
    if outside.any():
        t, s, m = np.argwhere(outside)[0]
        raise ValueError(f"'scores' has {int(outside.sum())} score(s) outside bounds {bounds}, e.g. "
                         f"{values[t, s, m]:.6g} (topic {qids[t]!r}, system {systems[s]!r}, {measures[m]!r})")


def _check_settings(baseline, correction, confidence_level, bounds, systems) -> dict[str, Any]:
    if len(systems) < 2:
        raise ValueError(f"'scores' must hold at least 2 systems to compare, got {systems}")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"'baseline' {baseline!r} is not one of the systems: {_listed(systems)}")
    check_choice(correction, "correction", CORRECTIONS)
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise TypeError(f"'bounds' must be a pair of numbers (low, high), got {bounds!r}") from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"'bounds' must be two finite numbers with low < high, got {bounds!r}")
    return {"baseline": baseline, "correction": correction,
            "confidence_level": check_confidence_level(confidence_level), "bounds": (low, high)}


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:8])
    return shown + (f" and {len(names) - 8} more" if len(names) > 8 else "")


def _difference(given: Sequence[str], expected: Sequence[str]) -> str:
    extra = [n for n in given if n not in expected]
    absent = [n for n in expected if n not in given]
    parts = ([f"unknown: {_listed(extra)}"] if extra else []) + ([f"missing: {_listed(absent)}"] if absent else [])
    return "; ".join(parts)
