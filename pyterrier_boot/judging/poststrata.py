"""The normalisers of ratio measures from post-strata of the sample: the number of documents of each
gain behind nDCG's ideal DCG, and the number of relevant documents ``R`` that AP, R@k and Rprec
divide by.

The difference estimator (:mod:`.estimation`) estimates a topic's count without bias, but with a few
labels per topic each sampled disagreement with the judge moves it by ``1 / pi``, often tens of
documents. The ideal DCG is a concave, saturating function of these counts: averaged over samples it
comes out too small, and nDCG too large (AP likewise, through ``R``). Post-stratification (Holt &
Smith 1979; Sarndal, Swensson & Wretman 1992, Sec. 7.6) estimates instead, within each topic and
class of the judge's label, the mean of ``f`` over the sampled pairs (weighted by ``1 / pi``: the
Hajek ratio), times the number of pairs in the class. The estimate then stays between 0 and the
class's size (so does a design replicate's, whose weights are never negative), and one
disagreement moves it by the class's size over its sampled pairs, not by ``1 / pi``.
A judge that is always right gives the human counts exactly wherever no class was merged.

**Post-strata**: a topic's pairs by the judge's class: each label the judge gave above 0, labelled 0,
and not labelled by the judge. A topic's classes above 0 with fewer than :data:`MIN_SAMPLED` sampled
pairs are merged, from the judge's highest label down, until each merged class has that many (the
rest join the last one): a merged class's mean ignores the judge's labels within it, which, as
measured, stays closer to the truth than a mean of the disagreements with them. A post-stratum
without a sampled pair takes its classes' means over the whole sample (over all topics), and a
class sampled nowhere the judge's total; a sequence over topics (``borrow=False``) takes the judge's
total at once, so that a topic's estimate reads no other topic.

Design replicates weight the sampled pairs by :func:`.estimation.replicate_multipliers`, so the
variance of the counts, and of the ratios they divide, is part of the ``"topics"`` intervals. With
every pair sampled (``pi = 1``) the counts are the human ones exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MIN_SAMPLED", "PostStrata", "post_strata"]

#: fewest sampled pairs a topic's class above 0 keeps alone (fewer: merged with the next lower label)
MIN_SAMPLED = 3


@dataclass(frozen=True)
class PostStrata:
    """Each pool pair's post-stratum and judge's class (see the module docstring).

    Attributes:
        stratum: per pool pair, its post-stratum (``0..``).
        judge_class: per pool pair, its judge's class (``0..``).
        topic: per post-stratum, its topic.
        n_topics: topics in the pool."""

    stratum: np.ndarray
    judge_class: np.ndarray
    topic: np.ndarray
    n_topics: int

    def totals(self, f_auto: np.ndarray, f_human: np.ndarray, sampled: np.ndarray, weights: np.ndarray, *,
               borrow: bool = True) -> np.ndarray:
        """``(rows, topics)``: each topic's estimated total of ``f`` over its pool pairs.

        Args:
            f_auto: ``f`` of the judge's grade of every pool pair.
            f_human: ``f`` of the human grade of the sampled pairs, in pool order.
            sampled: boolean mask of the sampled pairs over the pool.
            weights: ``(rows, sampled pairs)``: each sampled pair's weight ``1 / pi`` in the estimate
                (row 0) and in each design replicate.
            borrow: a post-stratum without a sampled pair takes its classes' means over all topics
                (else the judge's total)."""
        n_strata, n_classes = len(self.topic), int(self.judge_class.max(initial=0)) + 1
        taken, taken_class = self.stratum[sampled], self.judge_class[sampled]
        size = np.bincount(self.stratum, minlength=n_strata).astype(float)
        in_class = np.zeros((n_strata, n_classes))  # pairs of each class in each post-stratum
        np.add.at(in_class, (self.stratum, self.judge_class), 1.0)
        judged = np.zeros((n_strata, n_classes))  # the judge's total of each class there
        np.add.at(judged, (self.stratum, self.judge_class), f_auto)
        out = np.empty((weights.shape[0], self.n_topics))
        for row, w in enumerate(weights):
            weight = np.bincount(taken, weights=w, minlength=n_strata)
            hits = np.bincount(taken, weights=w * f_human, minlength=n_strata)
            total = size * np.divide(hits, weight, out=np.zeros(n_strata), where=weight > 0)
            empty = weight <= 0
            if empty.any():
                total[empty] = judged[empty].sum(1)
                if borrow:
                    class_weight = np.bincount(taken_class, weights=w, minlength=n_classes)
                    class_hits = np.bincount(taken_class, weights=w * f_human, minlength=n_classes)
                    seen = class_weight > 0
                    share = np.divide(class_hits, class_weight, out=np.zeros(n_classes), where=seen)
                    total[empty] = in_class[empty][:, seen] @ share[seen] + judged[empty][:, ~seen].sum(1)
            out[row] = np.bincount(self.topic, weights=total, minlength=self.n_topics)
        return out


def post_strata(topic: np.ndarray, judge_label: np.ndarray, labelled: np.ndarray | None, sampled: np.ndarray, *,
                minimum: int = MIN_SAMPLED) -> PostStrata:
    """The post-strata of a sample (see the module docstring).

    Args:
        topic: per pool pair, its topic code (``0..``).
        judge_label: per pool pair, the judge's grade on the people's scale (0 where it gave none).
        labelled: per pool pair, whether the judge labelled it (None: not known, so that its 0 and
            no label are one class).
        sampled: boolean mask of the sampled pairs.
        minimum: :data:`MIN_SAMPLED`."""
    n_topics = int(topic.max(initial=-1)) + 1
    label = np.asarray(judge_label, dtype=np.int64)
    given = np.ones(len(label), bool) if labelled is None else np.asarray(labelled, bool)
    # classes: 0 not labelled, 1 labelled 0, then 2, 3, ... the labels above 0 in increasing order
    above = np.unique(label[label > 0])
    judge_class = np.where(label > 0, 2 + np.searchsorted(above, label), given.astype(np.int64))
    n_classes = 2 + len(above)
    cell = topic * n_classes + judge_class
    present = np.bincount(cell, minlength=n_topics * n_classes).reshape(n_topics, n_classes) > 0
    taken = np.bincount(cell[sampled], minlength=n_topics * n_classes).reshape(n_topics, n_classes)
    into = np.tile(np.arange(n_classes), (n_topics, 1))
    for t in range(n_topics):
        _merge_sparse(into[t], present[t], taken[t], minimum)
    codes, stratum = np.unique(topic * n_classes + into[topic, judge_class], return_inverse=True)
    return PostStrata(stratum.astype(np.int64), judge_class.astype(np.int64), codes // n_classes, n_topics)


def _merge_sparse(into: np.ndarray, present: np.ndarray, taken: np.ndarray, minimum: int) -> None:
    """One topic: its classes above 0 (2, 3, ...), from the highest down, merged into groups of at
    least ``minimum`` sampled pairs (the rest join the last group); ``into[c]`` becomes the group's
    first class."""
    groups: list[list[int]] = []
    group: list[int] = []
    count = 0
    for c in range(len(into) - 1, 1, -1):
        if not present[c]:
            continue
        group.append(c)
        count += taken[c]
        if count >= minimum:
            groups.append(group)
            group, count = [], 0
    if group:
        if groups:
            groups[-1].extend(group)
        else:
            groups.append(group)
    for members in groups:
        into[members] = members[0]
