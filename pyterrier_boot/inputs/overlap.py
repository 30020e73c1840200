"""Which topics runs share with the qrels: one check, and the same messages, at every door.

trec_eval scores the topics of the qrels: a run's results for other topics are ignored, and a
judged topic the run has no result for scores 0 (``trec_eval -c``; ``pt.Experiment`` averages over
the judged topics too). A run that shares no topic with the qrels would score 0 everywhere, which
is almost always the wrong qrels file (or qids spelt differently): it is refused with a
ValueError naming it. A partial overlap is accepted with at most two :class:`InputWarning` per
call, each counting the runs concerned and, per run, the topics ignored or missing::

    overlap = TopicOverlap(qrels.frame["qid"].unique())
    for name, run in runs.items():
        overlap.add(name, run["qid"].unique())   # raises for a run without a judged topic
    overlap.report()                             # the pooled warnings
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._warnings import InputWarning, report

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

#: Topics a refusal shows of the run and of the qrels.
SHOWN_TOPICS = 3


class TopicOverlap:
    """The topics of runs, added one run at a time, against the judged topics.

    Args:
        judged: the qids of the qrels (of the topics evaluated).
        ignored: warn about the runs' topics that are not in the qrels (ignored); False where the
            caller has said so, or the user chose the topics (``Experiment``'s ``topics``).
        missing: warn about judged topics a run has no result for (they score 0); False where the
            caller leaves those topics out and says so itself (``reproducibility``) or has said so.
    """

    def __init__(self, judged: Iterable[Any], *, ignored: bool = True, missing: bool = True) -> None:
        self._judged = set(judged)
        self._warned = {"ignored": ignored, "missing": missing}
        self._runs = 0
        self._ignored: list[tuple[str, int]] = []  # (run, topics not in the qrels)
        self._missing: list[tuple[str, int]] = []  # (run, judged topics without a result)
        self._most = {"ignored": 0, "missing": 0}  # kind -> most topics of one run
        self._examples: dict[str, str] = {}  # kind -> the topics of that run

    def add(self, name: str, topics: Iterable[Any]) -> None:
        """Count the distinct ``topics`` (qids) of run ``name``; a ValueError when none is judged."""
        topics = set(topics)
        common = len(topics & self._judged)
        if not common:
            raise ValueError(_refusal(name, topics, self._judged))
        self._runs += 1
        if common < len(topics):
            self._count(self._ignored, "ignored", name, topics - self._judged)
        if common < len(self._judged):
            self._count(self._missing, "missing", name, self._judged - topics)

    def _count(self, cases: list[tuple[str, int]], kind: str, name: str, topics: set) -> None:
        if len(topics) > self._most[kind]:
            self._most[kind], self._examples[kind] = len(topics), _shown(topics)
        cases.append((_short(name), len(topics)))

    def report(self) -> None:
        """One :class:`InputWarning` for the runs with topics not in the qrels, one for those missing
        judged topics (pooled as :func:`~pyterrier_boot._warnings.report` pools)."""
        if self._ignored and self._warned["ignored"]:
            report(InputWarning, f"{{n}} of {self._runs} run(s) have results for topics that are not in the qrels "
                   f"(at most {self._most['ignored']} per run, e.g. {self._examples['ignored']}): those topics are ignored, as "
                   "trec_eval does; runs (topics ignored): {cases}", (f"{run} ({n})" for run, n in self._ignored))
        if self._missing and self._warned["missing"]:
            report(InputWarning, f"{{n}} of {self._runs} run(s) have no results for some of the {len(self._judged)} "
                   f"topics in the qrels (at most {self._most['missing']} per run, e.g. {self._examples['missing']}): they score 0 "
                   "on those topics, as in trec_eval -c and pt.Experiment; runs (topics missing): {cases}",
                   (f"{run} ({n})" for run, n in self._missing))


def check_topic_overlap(runs: Mapping[str, Iterable[Any]], judged: Iterable[Any], *, ignored: bool = True,
                        missing: bool = True) -> None:
    """:class:`TopicOverlap` of the runs' topics (``name -> qids``) against ``judged``: a ValueError for
    a run with no judged topic, else the warnings of a partial overlap (``ignored``, ``missing`` as there)."""
    overlap = TopicOverlap(judged, ignored=ignored, missing=missing)
    for name, topics in runs.items():
        overlap.add(name, topics)
    overlap.report()


def _refusal(name: str, topics: set, judged: set) -> str:
    return (f"run {_short(name)!r} has no topic in the qrels: its topics are {_shown(topics)}, the qrels' are "
            f"{_shown(judged)} (is it the right qrels file?)")


def _short(name: str) -> str:
    """A run's name as a message shows it: pt.Experiment names an unnamed frame ``str(frame)``, a
    whole printed table; its first line, cut at 40 characters."""
    text = str(name).strip()
    first = text.splitlines()[0] if text else text
    return first if first == text and len(first) <= 40 else first[:37] + "..."


def _shown(qids: set) -> str:
    ordered = sorted(qids, key=str)
    text = ", ".join(repr(q) for q in ordered[:SHOWN_TOPICS])
    return f"{text}, ... ({len(ordered)} in all)" if len(ordered) > SHOWN_TOPICS else text
