"""The pool of a judging plan: every (topic, document) pair people might be asked to judge.

The pool of a topic is the union of the runs' top-``depth`` documents (ranked by score in single
precision, ties by docno, as trec_eval) and of the automatic qrels' pairs, for the topics of the automatic qrels (the
topics an evaluation scores). A document outside the pool counts as non-relevant. Each pair keeps
its best rank over the runs (0: in no run's top ``depth``), its automatic label (0 for a pair the
judge did not label, as an unjudged document is non-relevant), the judge's probability of relevance
when given, and its statAP prior (Aslam, Pavlu & Yilmaz 2006): the mean over the runs that answer
the topic of the AP-prior weight of its rank,

    w(r) = (1 / 2D) (1 + 1/r + 1/(r+1) + ... + 1/D),   D = the run's depth on the topic,

a distribution over a run's top ``D`` that is largest at the top ranks, where AP and nDCG move.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..measures.arrays import UNJUDGED, JudgedRuns, trec_eval_scores

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import QrelsLike

__all__ = ["Positions", "build_pool", "fingerprint", "ranked_pairs", "read_auto_qrels", "run_positions"]

#: columns of the automatic qrels that carry the judge's probability of relevance, in the order looked for
PROBABILITY_COLUMNS = ("probability", "score")


def read_auto_qrels(auto_qrels: QrelsLike) -> pd.DataFrame:
    """The automatic qrels as ``qid, docno, label, probability`` (NaN without a probability column).

    A frame's ``probability`` (else ``score``) column is the judge's probability of relevance: it
    must lie in [0, 1] (a ValueError otherwise: calibrate a raw score first)."""
    from ..inputs.qrels import read_qrels

    frame = read_qrels(auto_qrels).frame.reset_index(drop=True)
    probability = np.full(len(frame), np.nan)
    if isinstance(auto_qrels, pd.DataFrame):
        column = next((c for c in PROBABILITY_COLUMNS if c in auto_qrels.columns), None)
        if column is not None:
            probability = _probabilities(auto_qrels, column, frame)
    return frame.assign(probability=probability)


def _probabilities(source: pd.DataFrame, column: str, frame: pd.DataFrame) -> np.ndarray:
    values = pd.to_numeric(source[column], errors="coerce").to_numpy(float)
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        shown = source[column].to_numpy()[np.flatnonzero(bad)[0]]
        raise ValueError(f"'auto_qrels' column {column!r} must hold the judge's probability of relevance, a number "
                         f"in [0, 1] for every pair; got {shown!r} ({int(bad.sum())} such values): calibrate the "
                         "judge's scores into probabilities first")
    return values


def _candidates(run: pd.DataFrame, depth: int) -> pd.DataFrame:
    """The rows of ``run`` that can be in its top ``depth`` of a topic: score at least the topic's
    ``depth``-th largest (ties by docno are settled afterwards, on these rows only)."""
    qid_code, qids = pd.factorize(run["qid"])
    score = trec_eval_scores(run["score"].to_numpy(float))
    order = np.lexsort((-score, qid_code))
    counts = np.bincount(qid_code, minlength=len(qids))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    cut = score[order[starts + np.minimum(counts, depth) - 1]] if len(run) else np.zeros(0)
    keep = score >= cut[qid_code]
    return run if keep.all() else run[keep]


def _trec_ranks(frame: pd.DataFrame, run_id: np.ndarray):
    """The rows of runs stacked in ``frame`` in trec_eval's order (by run, topic, score in single
    precision descending, docno descending) and their ranks: ``order, rank, group, starts, lengths,
    qid_code, qids`` (``group`` = run x topic of each ordered row, ``qids`` sorted).

    Rows are sorted on numbers; only rows tied on score are then ordered by docno."""
    qid_code, qids = pd.factorize(frame["qid"], sort=True)
    score = trec_eval_scores(frame["score"].to_numpy(float))
    order = np.lexsort((-score, qid_code, run_id))
    group = (run_id * len(qids) + qid_code)[order]
    tied = np.r_[False, (group[1:] == group[:-1]) & (score[order][1:] == score[order][:-1])]
    if tied.any():
        block = np.cumsum(~tied)  # rows of one (run, topic, score) share a block number
        members = np.flatnonzero(tied | np.r_[tied[1:], False])
        docnos = frame["docno"].to_numpy()[order[members]]
        doc_code = pd.factorize(docnos, sort=True)[0]
        within = np.lexsort((-doc_code, block[members]))
        order[members] = order[members][within]
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, len(group)])
    rank = np.arange(len(group)) - np.repeat(starts, lengths) + 1
    return order, rank, group, starts, lengths, qid_code, qids


def ranked_pairs(runs: Mapping[str, pd.DataFrame], topics: set, depth: int) -> pd.DataFrame:
    """Every run's top-``depth`` pairs on ``topics``: ``qid, docno, rank, weight`` (weight: the run's
    statAP prior of the rank divided by the number of runs answering the topic)."""
    parts = [_candidates(run[run["qid"].isin(topics)], depth) for run in runs.values()]
    sizes = np.array([len(part) for part in parts])
    if sizes.sum() == 0:
        return pd.DataFrame({"qid": pd.Series([], dtype=object), "docno": pd.Series([], dtype=object),
                             "rank": np.zeros(0, np.int64), "weight": np.zeros(0)})
    frame = pd.concat(parts, ignore_index=True)
    run_id = np.repeat(np.arange(len(parts)), sizes)
    order, rank, group, starts, lengths, qid_code, qids = _trec_ranks(frame, run_id)
    keep = rank <= depth
    big_d = np.repeat(np.minimum(lengths, depth), lengths)[keep]
    rank = rank[keep]
    harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, min(depth, int(lengths.max())) + 1))]
    prior = (1.0 + harmonic[big_d] - harmonic[rank - 1]) / (2.0 * big_d)
    topic = qid_code[order][keep]
    runs_per_topic = np.bincount(group[starts] % len(qids), minlength=len(qids))
    return pd.DataFrame({"qid": np.asarray(qids)[topic], "docno": frame["docno"].to_numpy()[order][keep],
                         "rank": rank.astype(np.int64), "weight": prior / runs_per_topic[topic]})


@dataclass(frozen=True)
class Positions:
    """Where runs rank a pool's pairs (:func:`run_positions`), as :func:`.ranked.ranked_values` reads them.

    Cell ``c`` is one run's ranking of one topic of the pool (``cell_topic``: its position among the
    pool's sorted topics; ``cell_run``: the run's); its positions ``offsets[c]:offsets[c + 1]`` hold,
    by rank, the ranks (over the run's whole ranking, in trec_eval's order) and pool rows
    (``pairs``) of its documents that are in the pool. ``outside``: how many of the runs' top
    ``depth`` documents are not in the pool, ``example`` the first such (qid, docno)."""

    offsets: np.ndarray
    ranks: np.ndarray
    pairs: np.ndarray
    cell_topic: np.ndarray
    cell_run: np.ndarray
    outside: int
    example: tuple | None

    def runs_per_topic(self, n_topics: int) -> np.ndarray:
        """``(n_topics,)``: the runs with a ranking of each topic (at least 1, to divide by)."""
        return np.maximum(np.bincount(self.cell_topic, minlength=n_topics), 1)


def run_positions(runs: Mapping[str, pd.DataFrame], pool: pd.DataFrame, depth: int = 100) -> Positions:
    """Where each run ranks the pool's pairs; documents outside the pool are non-relevant. The
    rankings come from :class:`~pyterrier_boot.measures.arrays.JudgedRuns` with the pool as qrels
    whose label is the pair's row."""
    qids = np.sort(pool["qid"].unique())
    rows = pd.DataFrame({"qid": pool["qid"], "docno": pool["docno"], "label": np.arange(len(pool))})
    arrays = JudgedRuns.build(runs, rows, warn_unjudged=False, warn_missing=False)
    lengths = np.diff(arrays.run_offsets)
    within = np.arange(len(arrays.run_codes)) - np.repeat(arrays.run_offsets[:-1], lengths)
    pair = arrays.grades_of(arrays.run_codes)
    keep = pair != UNJUDGED
    cells = np.repeat(np.arange(len(lengths)), lengths)
    offsets = np.r_[0, np.cumsum(np.bincount(cells[keep], minlength=len(lengths)))].astype(np.int64)
    missing = np.flatnonzero(~keep & (within < depth))
    example = None
    if len(missing):
        first = missing[0]
        example = (str(arrays.qids[cells[first] % arrays.n_topics]), str(arrays.docnos[arrays.run_docs[first]]))
    every = np.arange(len(lengths))
    return Positions(offsets, (within[keep] + 1).astype(np.int64), pair[keep].astype(np.int64),
                     np.searchsorted(qids, arrays.qids.astype(str))[every % arrays.n_topics],
                     every // arrays.n_topics, len(missing), example)


def build_pool(runs: Mapping[str, pd.DataFrame], auto: pd.DataFrame, depth: int, *, judged: bool = True) -> pd.DataFrame:
    """The pool, one row per pair sorted by ``qid, docno``: ``qid, docno, rank, auto_label,
    auto_labelled, judge_probability, prior`` (see the module docstring; ``auto_labelled``: the pair
    is in the automatic qrels). Without ``judged``, only the runs' top ``depth`` (the automatic
    qrels' other pairs are left out)."""
    ranked = ranked_pairs(runs, set(auto["qid"]), depth)
    best = ranked.groupby(["qid", "docno"], sort=False).agg(rank=("rank", "min"), prior=("weight", "sum"))
    labels = auto.set_index(["qid", "docno"])[["label", "probability"]]
    pool = best.join(labels, how="outer" if judged else "left").reset_index()
    pool = pool.sort_values(["qid", "docno"], kind="stable", ignore_index=True)
    return pd.DataFrame({
        "qid": pool["qid"].astype(str), "docno": pool["docno"].astype(str),
        "rank": pool["rank"].fillna(0).to_numpy(np.int64),
        "auto_label": pool["label"].fillna(0).to_numpy(np.int64),
        "auto_labelled": pool["label"].notna().to_numpy(),
        "judge_probability": pool["probability"].to_numpy(float),
        "prior": pool["prior"].fillna(0.0).to_numpy(float),
    })


def fingerprint(*columns: pd.Series) -> str:
    """The SHA-256 of the rows of ``columns`` (tab-separated, one line a row, in the given order)."""
    text = columns[0].astype(str)
    for column in columns[1:]:
        text = text + "\t" + column.astype(str)
    return hashlib.sha256("\n".join(text.tolist()).encode()).hexdigest()
