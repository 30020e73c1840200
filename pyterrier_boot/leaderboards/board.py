"""A leaderboard of runs: means with intervals, rank intervals and compact letter groups."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._deprecation import renamed_keywords
from .._memory import DEFAULT_MAX_MEMORY
from .._random import DEFAULT_SEED
from ..stats.letters import DEFAULT_METHOD, check_method, compact_letter_display, letters_label

__all__ = ["leaderboard", "Leaderboard"]

#: what each bootstrap's replicates vary, as written in column names
VARIANCE = {"topic": "topics", "corpus": "corpus", "both": "topics+corpus"}
#: the same with systems given as several runs, by seeds mode
SEEDS_VARIANCE = {"random": "topics+seeds", "fixed": "topics, seeds fixed"}
#: ``correction``'s default: ``"holm"`` for the fixed-n board, ``"bonferroni"`` for a sequential one
DEFAULT_CORRECTION = "default"


@dataclass(frozen=True, eq=False)
class Leaderboard:
    """Runs ranked by their mean on the first measure, with everything needed to read the ranking.

    Attributes:
        result: the :class:`~pyterrier_boot.ExperimentResult` behind it (per-topic values, mean
            intervals, bootstrap distribution, comparisons with the baseline).
        pairwise: the all-pairs table (:func:`~pyterrier_boot.compare` columns) the groups come from.
        letters: compact letter display per measure (index run, one column per measure; empty
            strings when no pair is tested).
        ranks: :class:`~pyterrier_boot.RankIntervals` over the experiment's bootstrap replicates
            (None with fewer than 2 judged topics: see :attr:`tested`).
        topic_ranks: rank intervals over topic resamples alone, when the experiment's bootstrap
            includes the corpus (else None: ``ranks`` are already over topics).
        baseline: the baseline run, or None.
        test, correction, alpha: how the pairs were tested.
        letters_method: how the groups were found (``"cover"``, the default, or ``"insert-absorb"``).
        sequential: whether the board is anytime-valid (``leaderboard(..., sequential=True)``,
            :mod:`~pyterrier_boot.leaderboards.anytime`): then ``pairwise`` is the
            :func:`~pyterrier_boot.sequential.comparisons.sequential_comparisons` table per measure,
            ``ranks`` holds rank intervals counted from its decisions (no replicates: an empty
            ``bootstrap_distribution``), ``test`` is ``"betting"`` and ``correction`` ``"bonferroni"``
            or ``"e-bh"``.
        mean_intervals: sequential boards: ``[run, measure, 2]`` each run's betting confidence
            sequence after the last topic (the means' intervals; the experiment has none). Else None.
    """

    result: Any
    pairwise: pd.DataFrame
    letters: pd.DataFrame
    ranks: Any
    topic_ranks: Any
    baseline: str | None
    test: str
    correction: str | None
    alpha: float
    letters_method: str = DEFAULT_METHOD
    sequential: bool = False
    mean_intervals: Any = None

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.result.measures)

    @property
    def tested(self) -> bool:
        """False when the qrels judge fewer than 2 topics: the board then ranks the means with no
        intervals, no rank intervals and no letters (every pair untested), and says so in its caption."""
        return self.ranks is not None

    @property
    def order(self) -> list[str]:
        """Runs, best first by mean on the first measure (ties keep the input order)."""
        means = self.result.means[:, 0]
        return [self.result.names[s] for s in np.argsort(-means, kind="stable")]

    def n_groups(self, measure: str | None = None) -> int:
        """Number of letters (groups of runs not significantly different) on ``measure``."""
        import re

        column = self.letters[measure if measure is not None else self.measures[0]]
        return len({t for text in column for t in re.findall(r"[A-Za-z][0-9]*", text)})

    def _rank_columns(self) -> list[tuple[str, Any]]:
        """(variance label, RankIntervals or None when untested) of every rank interval, the experiment's first."""
        if self.sequential:
            from .anytime import LABEL

            return [(LABEL, self.ranks)]
        seeds = getattr(self.result, "seeds", None)
        out = [(SEEDS_VARIANCE[seeds] if seeds else VARIANCE[self.result.bootstrap], self.ranks)]
        if self.result.bootstrap != "topic":
            out.append((VARIANCE["topic"], self.topic_ranks))
        return out

    def _intervals(self) -> np.ndarray | None:
        """``[run, measure, 2]`` the means' intervals: the sequences of a sequential board, else the experiment's."""
        return self.mean_intervals if self.sequential else self.result.intervals

    def _collection_ranks(self) -> np.ndarray:
        """``[run, measure]`` rank of each mean (1 = best, ties share the average rank)."""
        if self.ranks is not None:
            return np.asarray(self.ranks.statistic)
        from scipy import stats

        return stats.rankdata(-self.result.means, axis=0, method="average")

    def to_frame(self) -> pd.DataFrame:
        """One row per run, best first: ``rank, run``, then per measure ``<m>`` (mean),
        ``<m> ci_low``, ``<m> ci_high`` (interval of the mean), ``<m> rank``, ``<m> rank ci_low
        (<variance>)``, ``<m> rank ci_high (<variance>)`` (variance: ``topics``, ``corpus`` or
        ``topics+corpus``; ``topics, anytime`` on a sequential board) and ``<m> group`` (letters).
        Untested (:attr:`tested`), the same columns with the intervals NaN and the groups empty."""
        res = self.result
        collection = self._collection_ranks()
        index = {n: i for i, n in enumerate(res.names)}
        rows = [index[n] for n in self.order]
        intervals = self._intervals()
        frame = pd.DataFrame({"rank": np.arange(1, len(rows) + 1), "run": self.order})
        seeds = getattr(res, "seeds_label", "")
        for j, m in enumerate(self.measures):
            frame[m] = res.means[rows, j]
            if intervals is not None:
                frame[f"{m} ci_low{seeds}"] = intervals[rows, j, 0]
                frame[f"{m} ci_high{seeds}"] = intervals[rows, j, 1]
            frame[f"{m} rank"] = collection[rows, j]
            for label, ranks in self._rank_columns():
                low, high = ((np.full(len(rows), np.nan),) * 2 if ranks is None else
                             (np.asarray(ranks.confidence_interval.low)[rows, j],
                              np.asarray(ranks.confidence_interval.high)[rows, j]))
                frame[f"{m} rank ci_low ({label})"], frame[f"{m} rank ci_high ({label})"] = low, high
            frame[f"{m} group"] = self.letters[m].reindex(self.order).to_numpy()
        return frame

    def display_frame(self, digits: int = 3) -> pd.DataFrame:
        """The readable table: per measure ``mean [low, high]``, ``rank [low, high]`` per
        variance and the letters; untested (:attr:`tested`), the mean and its rank alone."""
        frame = self.to_frame()
        out = frame[["rank", "run"]].copy()
        seeds = getattr(self.result, "seeds_label", "")

        def rank(v):
            return f"{v:g}"

        for m in self.measures:
            if not self.tested:
                out[m] = [f"{v:.{digits}f}" for v in frame[m]]
                out[f"{m} rank"] = [rank(r) for r in frame[f"{m} rank"]]
                continue
            if f"{m} ci_low{seeds}" in frame:
                out[m + seeds] = [f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]" for v, lo, hi in
                                  zip(frame[m], frame[f"{m} ci_low{seeds}"], frame[f"{m} ci_high{seeds}"], strict=True)]
            else:
                out[m] = [f"{v:.{digits}f}" for v in frame[m]]
            for label, _ in self._rank_columns():
                lo, hi = frame[f"{m} rank ci_low ({label})"], frame[f"{m} rank ci_high ({label})"]
                out[f"{m} rank ({label})"] = [f"{rank(r)} [{rank(a)}, {rank(b)}]"
                                              for r, a, b in zip(frame[f"{m} rank"], lo, hi, strict=True)]
            out[f"{m} group"] = frame[f"{m} group"]
        return out

    def caption(self) -> str:
        """What the columns mean, in one paragraph."""
        if self.sequential:
            from .anytime import sequential_caption

            return sequential_caption(self)
        res = self.result
        level = f"{100 * res.confidence_level:g}%"
        from ..experiment.display import SEED_TEST, describe_intervals
        from ..experiment.pairwise import untested_phrase
        from ..stats.registry import test_label as test_name

        n = len(res.qids)
        scores = getattr(res, "run_scores", None)
        runs = f"{len(res.names)} runs" if scores is None else f"{len(res.names)} systems ({len(scores.runs)} runs)"
        parts = [f"{runs} on {n} topic{'s' if n != 1 else ''}, ranked by mean {self.measures[0]}."]
        if res.intervals is not None:
            parts.append(f"Means with {describe_intervals(res)}.")
        if not self.tested:
            parts.append(f"Rank: the rank of the mean (1 = best; ties share the average rank), with no rank interval "
                         f"and no letter groups: {untested_phrase(n)}.")
            return " ".join(parts)
        variances = " and ".join(f"over {_replicates(ranks, label)} ({label})" for label, ranks in self._rank_columns())
        parts.append(f"Rank [{level} rank interval] {variances} (1 = best; ties share the average rank).")
        tested = (f"{test_name(self.test)} on every pair of runs, {self.correction or 'no'} correction per "
                  f"measure, alpha {self.alpha:g}")
        if getattr(res, "seeds", None) == "random":
            tested = (f"the {SEED_TEST} on every pair of systems, {self.correction or 'no'} correction per "
                      f"measure, alpha {self.alpha:g}")
        if res.bootstrap in ("corpus", "both"):
            tested = (f"the {res.bootstrap}-bootstrap replicate test on every pair of runs, "
                      f"{self.correction or 'no'} correction per measure, alpha {self.alpha:g}")
        parts.append(f"Group: runs that share a letter are not significantly different ({tested}); "
                     f"runs with no letter in common are ({letters_label(self.letters_method)}).")
        return " ".join(parts)

    def to_markdown(self, digits: int = 3) -> str:
        """The readable table as GitHub Markdown, its caption below."""
        from ..experiment.display import markdown_table

        return markdown_table(self.display_frame(digits), self.caption())

    def to_latex(self, digits: int = 3, *, caption: str | None = None, label: str | None = None,
                 float_env: bool = True) -> str:
        """The readable table as a booktabs table (needs ``\\usepackage{booktabs}``) for a paper:
        the columns of :meth:`display_frame`, in a ``table`` float whose ``\\caption`` is
        ``caption`` (if given) followed by :meth:`caption`, and ``\\label{label}``; without
        ``float_env``, the ``tabular`` alone."""
        from ..experiment.display import booktabs, latex_escape

        frame = self.display_frame(digits)
        align = "".join("l" if c == "run" or c.endswith(" group") else "r" for c in frame.columns)
        rows = [[latex_escape(v) for v in row] for row in frame.itertuples(index=False)]
        text = self.caption() if caption is None else f"{caption} {self.caption()}"
        return booktabs([latex_escape(c) for c in frame.columns], rows, align, caption=text, label=label,
                        float_env=float_env)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the board to one zip file of JSON and ``.npy`` arrays (no pickle), the experiment
        behind it and its provenance included (:func:`~pyterrier_boot.leaderboards.storage.save_board`);
        read it back with :meth:`load`. Returns the path."""
        from .storage import save_board

        return save_board(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Leaderboard:
        """Read a board written by :meth:`save`: every table, caption and site the same as the saved one's."""
        from .storage import read_board

        return cls(**read_board(path))

    def _repr_html_(self) -> str:
        """The table for a notebook: it sorts on a click where the notebook runs its inline script
        (a cell you ran, nbconvert's HTML; ``pt_docs/leaderboard.md``)."""
        from .._html import sortable_fragment

        return sortable_fragment(self.display_frame(), caption=self.caption())

    def __repr__(self) -> str:
        n = len(self.result.qids)
        if not self.tested:
            return f"Leaderboard({len(self.result.names)} runs, {n} topic{'s' if n != 1 else ''}; no intervals or groups)"
        groups = ", ".join(f"{m}: {self.n_groups(m)} groups" for m in self.measures)
        return f"Leaderboard({len(self.result.names)} runs, {len(self.result.qids)} topics; {groups})"

    def write(self, site_dir: str | os.PathLike, *, title: str = "Leaderboard",
              settings: Mapping[str, Any] | None = None, plots: bool = True, paths: bool = False) -> Path:
        """Write the static site (index.html, one page per run, SVG plots, CSV tables) into
        ``site_dir`` (created; files of the same names are replaced, and run pages of an earlier site removed) and return its path.
        ``settings`` values that are paths show as file names unless ``paths=True``.
        See :func:`pyterrier_boot.leaderboards.site.write_site`."""
        from .site import write_site

        return write_site(self, site_dir, title=title, settings=settings, plots=plots, paths=paths)


def _replicates(ranks, label):
    kind = {"topics": "topic resamples", "corpus": "corpus images", "topics+corpus": "topic resamples on corpus images",
            "topics+seeds": "topic resamples with seed draws", "topics, seeds fixed": "topic resamples"}
    return f"{ranks.bootstrap_distribution.shape[0]:,} {kind[label]}"


def _as_runs(runs) -> Any:
    """The runs as a dict name -> frame; a system given as a list of runs keeps a list of frames."""
    from ..inputs.runs import read_runs
    from ..seeds.groups import GroupedRuns, split_systems

    if isinstance(runs, GroupedRuns):
        return runs
    if isinstance(runs, Mapping):
        flat, _, groups = split_systems(runs, None)  # lists of runs: read once, not checked again
        if groups is not None:
            return GroupedRuns(read_runs(flat), groups.mapping())
        return read_runs(dict(runs))
    if isinstance(runs, str | os.PathLike | pd.DataFrame):
        return read_runs([runs])
    if isinstance(runs, Sequence):
        return read_runs(list(runs))
    raise TypeError(f"'runs' must be a dict name -> run, a run file or folder, or a list of them, "
                    f"got {type(runs).__name__}")


def _leaderboard_inputs(runs, measures, baseline, bootstrap, letters_method, sequential, seeds=None):
    """The arguments checked at the door: the runs as a dict and the measures as a list."""
    check_method(letters_method, "letters_method")
    if not isinstance(sequential, bool):
        raise TypeError(f"'sequential' must be True or False, got {sequential!r}")
    if bootstrap not in VARIANCE:
        raise ValueError(f"'bootstrap' must be 'topic', 'corpus' or 'both', got {bootstrap!r}")
    if isinstance(measures, str):
        measures = [measures]
    runs = _as_runs(runs)
    systems = list(runs.groups) if hasattr(runs, "groups") else list(runs)
    if len(systems) < 2:
        raise ValueError(f"'runs' must hold at least 2 runs for a leaderboard, got {len(systems)}")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"'baseline' {baseline!r} is not one of the runs: {systems[:8]}")
    if sequential and (seeds is not None or hasattr(runs, "groups")):
        raise ValueError("a sequential board takes one run per system: systems given as several runs (and "
                         "'seeds') need sequential=False")
    return runs, measures


def _topic_rank_intervals(result, confidence_level, rng, max_memory):
    """Rank intervals over topic resamples alone (the experiment's plan, else 10,000 drawn from ``rng``)."""
    from ..stats.ranking import rank_intervals
    from ..stats.resampling import resample_plan, weighted_sums

    n = len(result.qids)
    plan = result.plan or resample_plan(n, n_resamples=10_000, rng=rng, max_memory=max_memory)
    dist = np.stack([weighted_sums(plan, result.values[:, :, j]).T / n for j in range(len(result.measures))],
                    axis=-1)
    return rank_intervals(result.means, dist, systems=result.names, measures=result.measures,
                          confidence_level=confidence_level)


def _groups_and_ranks(result, pairwise, letters_method, bootstrap, confidence_level, rng, max_memory):
    """The letter groups, the rank intervals and (corpus bootstrap) the topic-only rank intervals of a board."""
    from ..stats.ranking import rank_intervals

    if result.distribution_ is None:  # fewer than 2 topics: the means ranked, no pair tested (warned once)
        return pd.DataFrame("", index=pd.Index(list(result.names)), columns=list(result.measures)), None, None
    # per measure, "a" goes to the group of that measure's best run
    groups = pd.DataFrame({m: compact_letter_display(pairwise, measure=m, method=letters_method)
                           for m in result.measures})
    ranks = rank_intervals(result.means, result.distribution_, systems=result.names, measures=result.measures,
                           confidence_level=confidence_level)
    topic_ranks = _topic_rank_intervals(result, confidence_level, rng, max_memory) if bootstrap != "topic" else None
    return groups, ranks, topic_ranks


@renamed_keywords(letters="letters_method")
def leaderboard(runs: Any, qrels: Any, measures: Sequence[Any] | str = ("AP", "nDCG@10"), *,
                baseline: str | None = None, test: str = "t", correction: str | None = DEFAULT_CORRECTION,
                alpha: float = 0.05, bootstrap: str = "topic", n_resamples: int | None = None,
                confidence_level: float = 0.95, interval: str | None = None, corpus_size: int | None = None,
                model: str = "poisson", rng: Any = None, max_memory: int = DEFAULT_MAX_MEMORY,
                letters_method: str = DEFAULT_METHOD, verbose: bool = False, sequential: bool = False,
                seeds: str | None = None, executor: Any = None) -> Leaderboard:
    """Rank runs with honest uncertainty: mean and interval per measure, rank intervals, letter groups.

    Args:
        runs, qrels: the runs (anything :func:`~pyterrier_boot.read_runs` accepts; in a dict a
            system may be a list of runs, e.g. seeds) and judgments.
        measures: measure names or objects (``"nDCG@10"``, ``"AP(rel=2)"``); the first ranks the runs.
        baseline: a run's name: each run's page shows its per-topic differences and test against it.
        test: the paired test of every pair of runs (``"t"``, ``"wilcoxon"``, ``"paired-bootstrap"``,
            ...); with the corpus bootstrap the replicate test (:meth:`ExperimentResult.pairwise`).
        correction, alpha: multiple-testing correction within each measure and its level. The default
            is ``"holm"``, or ``"bonferroni"`` with ``sequential`` (which takes ``"bonferroni"`` or
            ``"e-bh"`` only).
        bootstrap: ``"topic"`` (default), ``"corpus"`` or ``"both"`` (with rank intervals over topics alone).
        n_resamples, confidence_level, interval, corpus_size, model, max_memory, verbose, rng, seeds,
            executor: as :func:`~pyterrier_boot.Experiment` (``rng`` None is the fixed seed 42).
        letters_method: how the letter groups are found: ``"cover"`` (default; Gramm et al. 2007)
            or ``"insert-absorb"`` (Piepho 2004), as :func:`~pyterrier_boot.compact_letter_display`
            and every other table of letters (``letters=`` is its deprecated name).
        sequential: an anytime-valid board, right however often it is looked at as topics are
            added (:mod:`~pyterrier_boot.leaderboards.anytime`): the topics are taken in the order
            they first appear in the qrels, so list the qrels in the order the topics were judged
            (a random order of the topics); each mean has its betting confidence sequence at
            ``confidence_level``; pairs, letters and rank intervals come from
            :func:`~pyterrier_boot.sequential.comparisons.sequential_comparisons` at level ``alpha``.
            Needs measures bounded in [0, 1] and the topic bootstrap; ``test``, ``n_resamples`` and
            ``interval`` are left at their defaults (``rng``, ``model``, ``max_memory`` are unused).

    Returns:
        a :class:`Leaderboard`: ``to_frame()``, ``to_markdown()``, ``to_latex()``, ``write(site_dir)``
        (a site), ``save(path)`` (read back with ``Leaderboard.load``).

    Rank intervals as Zobel & Rashidi (2020, Fig. 5); runs sharing a letter are not significantly
    different (``pt_docs/leaderboard.md``). With one judged topic the fixed-n board ranks the means
    with no intervals, rank intervals or letters (``board.tested`` False, one warning; the caption says so).

    Example:
        >>> import pyterrier_boot as ptb
        >>> sim = ptb.simulate_collection(n_topics=20, n_systems=6, corpus_size=5000, depth=50, pool_depth=20, rng=1)
        >>> board = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=1000, rng=1)
        >>> board.to_frame().columns[:5].tolist()
        ['rank', 'run', 'AP', 'AP ci_low', 'AP ci_high']
    """
    runs, measures = _leaderboard_inputs(runs, measures, baseline, bootstrap, letters_method, sequential, seeds)
    if sequential:
        return _sequential_board(runs, qrels, measures, baseline=baseline, test=test, correction=correction,
                                 alpha=alpha, bootstrap=bootstrap, n_resamples=n_resamples, interval=interval,
                                 confidence_level=confidence_level, corpus_size=corpus_size,
                                 letters_method=letters_method)
    return _fixed_board(runs, qrels, measures, baseline=baseline, test=test, alpha=alpha, bootstrap=bootstrap,
                        correction="holm" if correction == DEFAULT_CORRECTION else correction, seeds=seeds,
                        n_resamples=n_resamples, confidence_level=confidence_level, interval=interval,
                        corpus_size=corpus_size, model=model, rng=rng, max_memory=max_memory,
                        letters_method=letters_method, verbose=verbose, executor=executor)


def _fixed_board(runs, qrels, measures, *, baseline, test, correction, alpha, bootstrap, n_resamples,
                 confidence_level, interval, corpus_size, model, rng, max_memory, letters_method, verbose, seeds,
                 executor=None):
    """The fixed-n board: bootstrap intervals, the paired test of every pair, bootstrap rank intervals."""
    from ..experiment.experiment import experiment_result
    from ..stats.correction import METHODS

    if correction == "e-bh":  # others are checked where they are used, aliases included
        raise ValueError(f"'correction' 'e-bh' applies with sequential=True only; the fixed-n board takes None or "
                         f"one of {', '.join(map(repr, METHODS))} (default 'holm')")
    test = {"paired-bootstrap": "paired_bootstrap"}.get(test, test)
    # the same rng as experiment_result and res.pairwise get by default, so that the board's intervals
    # and tests are the notebook's and the command line's (a Generator advances from one to the next)
    rng = DEFAULT_SEED if rng is None else rng
    result = experiment_result(runs, None, qrels, list(measures), baseline=baseline, test=test,
                               correction=correction if baseline is not None else None, correction_alpha=alpha,
                               bootstrap=bootstrap, n_resamples=n_resamples, confidence_level=confidence_level,
                               interval=interval, corpus_size=corpus_size, model=model, rng=rng,
                               max_memory=max_memory, verbose=verbose, seeds=seeds, executor=executor)
    pairwise = result.pairwise(test=test, correction=correction, alpha=alpha, rng=rng, max_memory=max_memory,
                               executor=executor)
    groups, ranks, topic_ranks = _groups_and_ranks(result, pairwise, letters_method, bootstrap, confidence_level,
                                                   rng, max_memory)
    return Leaderboard(result=result, pairwise=pairwise, letters=groups, ranks=ranks, topic_ranks=topic_ranks,
                       baseline=baseline, test=test, correction=correction, alpha=alpha,
                       letters_method=letters_method)


def _sequential_board(runs, qrels, measures, *, baseline, test, correction, alpha, bootstrap, n_resamples, interval,
                      confidence_level, corpus_size, letters_method):
    """The anytime-valid board (:mod:`~pyterrier_boot.leaderboards.anytime`), topics in the qrels' order."""
    from ..experiment.experiment import experiment_result
    from ..inputs.qrels import read_qrels
    from .anytime import check_sequential, in_judged_order, sequential_parts

    correction = check_sequential("bonferroni" if correction == DEFAULT_CORRECTION else correction, bootstrap, test,
                                  n_resamples=n_resamples, interval=interval)
    qrels = read_qrels(qrels, corpus_size=corpus_size)
    result = experiment_result(runs, None, qrels, list(measures), bootstrap=None, confidence_level=confidence_level)
    parts = sequential_parts(in_judged_order(result, qrels.judged_order), correction, alpha, confidence_level,
                             letters_method)
    return Leaderboard(**parts, baseline=baseline, test="betting", correction=correction, alpha=alpha,
                       letters_method=letters_method, sequential=True)
