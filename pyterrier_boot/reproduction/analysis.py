""":func:`reproducibility`: Breuer et al.'s measures with topic-bootstrap intervals and TOST, for
an original and a reproduced set of runs on the same test collection."""
from __future__ import annotations

import html
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from .._warnings import DegenerateWarning, InputWarning, one_warning_per_kind, report
from ..inputs.overlap import TopicOverlap
from ..inputs.qrels import read_qrels
from ..inputs.runs import read_runs
from ..measures.evaluation import prepare, to_long_frame
from ..stats.equivalence import paired_tost, resolve_margin, unpaired_tost
from ..stats.resampling import ResamplePlan, resample_plan
from .intervals import effect_intervals, mean_interval, rmse_interval
from .measures import (
    DEPTH,
    PAIRINGS,
    RBO_P,
    check_depth,
    kendall_tau_union,
    rank_biased_overlap,
    rmse,
)

if TYPE_CHECKING:
    from .._typing import MeasuresLike, QrelsLike, RngLike


__all__ = ["reproducibility", "ReproducibilityResult"]

COLUMNS = ("name", "measure", "original", "reproduced",
           "KTU", "KTU ci_low", "KTU ci_high", "RBO", "RBO ci_low", "RBO ci_high",
           "RMSE", "RMSE ci_low", "RMSE ci_high", "ER", "ER ci_low", "ER ci_high",
           "DeltaRI", "DeltaRI ci_low", "DeltaRI ci_high",
           "t p-value", "TOST margin", "TOST p-value", "TOST ci_low", "TOST ci_high", "equivalent")


@dataclass(frozen=True, slots=True)
class ReproducibilityResult:
    """Result of :func:`reproducibility`.

    Attributes:
        table: one row per (run, measure), columns :data:`COLUMNS`: the original and reproduced
            mean scores; KTU and RBO (the same for every measure of a run) and RMSE, each with a
            percentile topic-bootstrap interval (``ci_low``/``ci_high``, variance over topics only);
            ER and DeltaRI against the baseline (NaN for the baseline itself and without one), with
            their intervals from the same resamples; the p-value of the t-test of original
            against reproduced scores (paired or unpaired); and the TOST equivalence test
            (margin, p-value, its ``1 - 2 alpha`` interval of ``mean(reproduced - original)`` and
            the verdict), empty without a margin.
        per_topic: long frame ``name, qid, measure, original, reproduced``.
        ordering: per-topic KTU and RBO, ``name, qid, KTU, RBO``.
        qids: the topics used (judged, and retrieved by every original and reproduced run).
        baseline, margin, relative_margin, alpha, confidence_level, paired, depth, rbo_p, ktu_pairing:
            the options used.
        plan: the :class:`ResamplePlan` shared by every interval; pass it as ``plan=`` to replay.
    """

    table: pd.DataFrame
    per_topic: pd.DataFrame
    ordering: pd.DataFrame
    qids: tuple
    baseline: str | None
    margin: float | None
    relative_margin: float | None
    alpha: float
    confidence_level: float
    paired: bool
    depth: int
    rbo_p: float
    ktu_pairing: str
    plan: Any

    @property
    def n_topics(self) -> int:
        return len(self.qids)

    def to_frame(self) -> pd.DataFrame:
        """The table: one row per (run, measure) (a copy)."""
        return self.table.copy()

    def _repr_html_(self):
        return self.table._repr_html_()

    def __repr__(self):
        return (f"ReproducibilityResult(runs={self.table['name'].nunique()}, measures="
                f"{self.table['measure'].nunique()}, n_topics={self.n_topics}, baseline={self.baseline!r}, "
                f"margin={self.margin!r}, relative_margin={self.relative_margin!r})")

    def note(self) -> str:
        """What the figures are, in a few sentences (for reports)."""
        level = f"{self.confidence_level:.0%}"
        test = "paired" if self.paired else "unpaired"
        text = (f"{self.n_topics} topics. Intervals ({level}) are percentile topic-bootstrap intervals "
                f"({self.plan.n_resamples} resamples of the topics, shared by all figures): they include "
                "the variance over topics only. KTU and RBO compare the document rankings (depth "
                f"{self.depth}, KTU pairing by {self.ktu_pairing}, RBO p = {self.rbo_p}); RMSE the per-topic scores; ER and DeltaRI the "
                f"improvement over the baseline. 't p-value' is the {test} t-test of original against "
                "reproduced scores: a large p-value does not show that they agree.")
        if self.margin is not None or self.relative_margin is not None:
            margin = (f"+-{self.margin:g}" if self.margin is not None
                      else f"+-{self.relative_margin:g} x the original mean")
            text += (f" TOST ({test}, alpha = {self.alpha:g}) tests whether mean(reproduced - original) "
                     f"lies within {margin}; 'TOST ci' is its {1 - 2 * self.alpha:.0%} interval, and "
                     "'equivalent' is true exactly when that interval lies inside the margin.")
        else:
            text += " No equivalence margin was given, so no TOST equivalence test."
        return text

    def html(self, *, title: str = "pyterrier-boot reproducibility report", settings: dict | None = None,
             digits: int = 4) -> str:
        """A self-contained HTML page with the table, the note and the settings."""
        def table_html(frame):
            frame = frame.copy()
            for column in frame.columns:
                if pd.api.types.is_float_dtype(frame[column]):
                    fmt = f".{digits}g" if "p-value" in column else f".{digits}f"
                    frame[column] = frame[column].map(lambda v, fmt=fmt: "" if pd.isna(v) else f"{v:{fmt}}")
            return frame.to_html(index=False, escape=True, na_rep="", border=0)

        from .. import __version__

        rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>"
                       for k, v in (settings or {}).items())
        return "\n".join([
            "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{html.escape(title)}</h1>",
            f'<p class="muted">Written by pyterrier-boot {html.escape(__version__)}.</p>',
            f'<table class="kv">{rows}</table>' if rows else "",
            f"<p>{html.escape(self.note())}</p>",
            "<h2>Original and reproduced runs</h2>", table_html(self.table),
            "</body></html>"])


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 90em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f4f4f4; } table.kv td { text-align: left; } .muted { color: #666; }
"""


def _read(runs, what):
    if runs is None:
        raise ValueError(f"'{what}' is missing: give runs (a dict name -> run, files or a folder)")
    try:
        return read_runs(runs)
    except ValueError as error:
        raise ValueError(f"'{what}': {error}") from None


def _match(original, reproduced):
    only_o = sorted(set(original) - set(reproduced))
    only_r = sorted(set(reproduced) - set(original))
    if only_o or only_r:
        raise ValueError(
            "original and reproduced runs are matched by name (dict key, or a file's run tag, else its "
            f"file name), and these do not match: only in 'original': {only_o}, only in 'reproduced': "
            f"{only_r}")
    return list(original)


def _rankings(run, depth):
    """``qid -> docnos in trec_eval order`` (score descending, ties by docno descending)."""
    ordered = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="stable")
    return {qid: group["docno"].to_numpy(dtype=str)[:depth] for qid, group in ordered.groupby("qid", sort=False)}


def _check_number(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not low < value < high:
        raise ValueError(f"'{name}' must be a number in ({low}, {high}), got {value!r}")
    return float(value)


@one_warning_per_kind()
def _topic_plan(plan, n_topics, n_resamples, rng):
    """The shared resample plan over the topics used: ``plan`` checked, or one drawn from ``rng``."""
    if plan is None:
        return resample_plan(n_topics, n_resamples=n_resamples, rng=rng)
    if plan.n_topics != n_topics:
        raise ValueError(f"'plan' resamples {plan.n_topics} topics, but {n_topics} topics are used")
    return plan


def reproducibility(original: Any, reproduced: Any, qrels: QrelsLike, measures: MeasuresLike, *,
                    baseline: str | None = None, margin: float | None = None,
                    relative_margin: float | None = None, paired: bool = True, alpha: float = 0.05,
                    confidence_level: float = 0.95, n_resamples: int = 10_000, depth: int = DEPTH,
                    rbo_p: float = RBO_P, ktu_pairing: str = "position", rng: RngLike = None,
                    plan: ResamplePlan | None = None) -> ReproducibilityResult:
    """How closely a set of reproduced runs matches the original runs (Breuer et al. 2020), with
    topic-bootstrap intervals and a TOST equivalence test (Schuirmann 1987).

    Args:
        original, reproduced: the runs, matched by name (dicts ``name -> run``, or anything
            :func:`read_runs` accepts). qrels, measures: as :func:`evaluate`.
        baseline: the baseline run, for the other runs' Effect Ratio and Delta RI (None: none).
        margin: absolute equivalence margin of the TOST of ``mean(reproduced - original)``; or
        relative_margin: a share of each original mean (0.05 = 5%). Neither: no TOST.
        paired: paired t-test and TOST over topics; False for the unpaired (pooled-variance) ones.
        alpha: level of each one-sided TOST test. confidence_level: of the bootstrap intervals.
        n_resamples, rng, plan: the topic-bootstrap plan (SPEC 7), or a :class:`ResamplePlan` to replay.
        depth, rbo_p: rank cut-off of KTU and RBO, RBO's persistence.
        ktu_pairing: ``"position"`` (Breuer et al.'s KTU) or ``"document"`` (:func:`kendall_tau_union`).

    Returns a ReproducibilityResult (``.to_frame()``) on the topics judged and retrieved by every
    run (an :class:`InputWarning` names the others), all with one resample plan; examples in
    ``pt_docs/reproducibility.md``.

    References:
        Breuer, T., Ferro, N., Fuhr, N., Maistro, M., Sakai, T., Schaer, P., Soboroff, I. (2020). How
        to measure the reproducibility of system-oriented IR experiments. SIGIR.
        Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
        approach for assessing the equivalence of average bioavailability. J. Pharmacokin. Biopharm.
    """
    confidence_level, alpha, depth = _check_options(confidence_level, alpha, depth, rbo_p, ktu_pairing, paired,
                                                    margin, relative_margin, n_resamples, plan)
    orig_runs, rep_runs, names = _read_pair(original, reproduced, baseline)
    qrels = read_qrels(qrels)
    common = _common_topics(qrels, orig_runs, rep_runs)
    orig, rep, labels, qids = _score_cubes(orig_runs, rep_runs, names, qrels, measures, common)
    plan = _topic_plan(plan, len(qids), n_resamples, rng)
    ktu, rbo = _ordering(orig_runs, rep_runs, names, qids, depth, rbo_p, ktu_pairing)
    ordering_ci = {"KTU": np.array([mean_interval(row, plan, confidence_level) for row in ktu]),
                   "RBO": np.array([mean_interval(row, plan, confidence_level) for row in rbo])}
    tost = None if margin is None and relative_margin is None else dict(
        margin=margin, relative_margin=relative_margin, alpha=alpha, paired=paired)
    rows = [_row(names, i, label, orig[i, :, k], rep[i, :, k], ordering_ci, plan, confidence_level, paired, tost,
                 None if baseline is None or name == baseline else
                 (orig[names.index(baseline), :, k], rep[names.index(baseline), :, k]))
            for i, name in enumerate(names) for k, label in enumerate(labels)]
    table = pd.DataFrame(rows).reindex(columns=list(COLUMNS))
    if tost is None:
        table["equivalent"] = table["equivalent"].astype(object)
    per_topic, ordering = _long_frames(names, qids, labels, orig, rep, ktu, rbo)
    return ReproducibilityResult(table=table, per_topic=per_topic, ordering=ordering, qids=qids, baseline=baseline,
                                 margin=None if margin is None else float(margin),
                                 relative_margin=None if relative_margin is None else float(relative_margin),
                                 alpha=alpha, confidence_level=confidence_level, paired=bool(paired), depth=depth,
                                 rbo_p=float(rbo_p), ktu_pairing=ktu_pairing, plan=plan)


# ---------------------------------------------------------------- the steps of reproducibility


def _check_options(confidence_level, alpha, depth, rbo_p, ktu_pairing, paired, margin, relative_margin,
                   n_resamples, plan) -> tuple[float, float, int]:
    """Every option checked before any work; returns the normalised confidence level, alpha and depth."""
    confidence_level = _check_number(confidence_level, "confidence_level", 0, 1)
    alpha = _check_number(alpha, "alpha", 0, 0.5)
    depth = check_depth(depth)
    if isinstance(rbo_p, bool) or not isinstance(rbo_p, (int, float, np.floating)) or not 0 < rbo_p < 1:
        raise ValueError(f"'rbo_p' must be a number in (0, 1), got {rbo_p!r}")
    if ktu_pairing not in PAIRINGS:
        raise ValueError(f"'ktu_pairing' must be one of {PAIRINGS}, got {ktu_pairing!r}")
    if not isinstance(paired, (bool, np.bool_)):
        raise TypeError(f"'paired' must be True or False, got {paired!r}")
    if margin is not None or relative_margin is not None:
        resolve_margin(margin, relative_margin, 1.0)  # checks the margin before any work
    if plan is None and (isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer))
                         or n_resamples < 2):
        raise ValueError(f"'n_resamples' must be an integer >= 2, got {n_resamples!r}")
    if plan is not None and not isinstance(plan, ResamplePlan):
        raise TypeError(f"'plan' must be a ResamplePlan (from resample_plan), got {type(plan).__name__}")
    return confidence_level, alpha, depth


def _read_pair(original, reproduced, baseline) -> tuple[dict, dict, list[str]]:
    """Both sets of runs, read and matched by name, and the baseline checked against them."""
    orig_runs = _read(original, "original")
    rep_runs = _read(reproduced, "reproduced")
    names = _match(orig_runs, rep_runs)
    if baseline is not None and baseline not in names:
        raise ValueError(f"'baseline' {baseline!r} is not one of the runs: {names}")
    if baseline is not None and len(names) < 2:
        raise ValueError("'baseline' needs at least one other run to compare with")
    return orig_runs, rep_runs, names


def _common_topics(qrels, orig_runs: dict, rep_runs: dict) -> set:
    """The judged topics every original and reproduced run retrieved for (one warning names the others)."""
    judged = set(qrels.frame["qid"].unique())
    common = set(judged)
    overlap = TopicOverlap(judged, missing=False)  # a run without a judged topic is refused
    for what, runs in (("original", orig_runs), ("reproduced", rep_runs)):
        for name, run in runs.items():
            topics = set(run["qid"].unique())
            overlap.add(f"{what} {name}", topics)
            common &= topics
    overlap.report()
    if not common:
        raise ValueError("no common topics: no judged topic is retrieved by every original and reproduced run "
                         f"(qrels topics e.g. {sorted(judged)[:3]}); are the runs and qrels of the same collection?")
    report(InputWarning, "{n} judged topic(s) are left out because some original or reproduced run has no "
           "results for them (all figures use the other topics): {cases}", sorted(judged - common))
    return common


def _score_cubes(orig_runs, rep_runs, names, qrels, measures, common):
    """Per-topic scores ``(runs, topics, measures)`` of the original and reproduced runs, the measure
    labels and the topics (in the evaluation's order)."""
    values = []
    for runs in (orig_runs, rep_runs):
        evaluator, _ = prepare({n: runs[n] for n in names}, qrels, measures, warn_unjudged=False,
                              warn_missing=False)  # checked above
        cube = evaluator.evaluate(np.ones((1, evaluator.arrays.n_docs), np.int32), identity=True)[0]
        long = to_long_frame(cube, evaluator.arrays, evaluator.measures)
        values.append(long[long["qid"].isin(common)])
    labels = list(dict.fromkeys(values[0]["measure"]))
    qids = tuple(dict.fromkeys(values[0]["qid"]))
    index = pd.MultiIndex.from_product([names, qids, labels])
    orig, rep = (v.set_index(["name", "qid", "measure"])["value"].reindex(index).to_numpy()
                 .reshape(len(names), len(qids), len(labels)) for v in values)
    return orig, rep, labels, qids


def _ordering(orig_runs, rep_runs, names, qids, depth, rbo_p, ktu_pairing) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic KTU and RBO between each original and reproduced ranking, ``(runs, topics)``."""
    ktu = np.full((len(names), len(qids)), np.nan)
    rbo = np.full((len(names), len(qids)), np.nan)
    for i, name in enumerate(names):
        o_rank, r_rank = _rankings(orig_runs[name], depth), _rankings(rep_runs[name], depth)
        for j, q in enumerate(qids):
            ktu[i, j] = kendall_tau_union(o_rank[q], r_rank[q], depth=depth, pairing=ktu_pairing)
            rbo[i, j] = rank_biased_overlap(o_rank[q], r_rank[q], p=rbo_p, depth=depth)
    undefined = [name for name, row in zip(names, ktu, strict=True) if np.isnan(row).any()]
    report(DegenerateWarning, "KTU is undefined on topics where a ranking has fewer than 2 documents; the mean "
           "and interval use the other topics for {n} run(s): {cases}", undefined)
    return ktu, rbo


def _row(names, i, label, o, r, ordering_ci, plan, confidence_level, paired, tost, base) -> dict:
    """One table row: run ``names[i]`` on measure ``label``, original scores ``o`` and reproduced ``r``;
    ``base``: the baseline's (original, reproduced) scores, or None; ``tost``: the TOST options, or None."""
    name = names[i]
    _, rmse_low, rmse_high = rmse_interval(o, r, plan, confidence_level)
    row = {"name": name, "measure": label, "original": o.mean(), "reproduced": r.mean()}
    for stat, ci in ordering_ci.items():
        row[stat], row[f"{stat} ci_low"], row[f"{stat} ci_high"] = ci[i]
    row.update({"RMSE": float(rmse(o, r)), "RMSE ci_low": rmse_low, "RMSE ci_high": rmse_high})
    if base is not None:
        effects = effect_intervals(o, base[0], r, base[1], plan, confidence_level)
        for stat, (estimate, low, high) in effects.items():
            row[stat], row[f"{stat} ci_low"], row[f"{stat} ci_high"] = estimate, low, high
        if not np.isfinite(row["ER"]):
            report(DegenerateWarning, "the Effect Ratio is undefined where the original improvement over "
                   "the baseline is 0: {cases}", [f"{name} {label}"])
    row["t p-value"] = _t_pvalue(o, r, paired)
    if tost is not None and _tost_defined(o, tost["relative_margin"], name, label):
        test = (paired_tost if paired else unpaired_tost)(r, o, margin=tost["margin"],
                                                          relative_margin=tost["relative_margin"], alpha=tost["alpha"])
        row.update({"TOST margin": test.margin, "TOST p-value": test.pvalue,
                    "TOST ci_low": test.confidence_interval.low, "TOST ci_high": test.confidence_interval.high,
                    "equivalent": test.equivalent})
    return row


def _long_frames(names, qids, labels, orig, rep, ktu, rbo) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-topic scores (``name, qid, measure, original, reproduced``) and orderings (``name, qid, KTU, RBO``)."""
    n_q, n_m = len(qids), len(labels)
    per_topic = pd.DataFrame({
        "name": np.repeat(np.array(names, dtype=object), n_q * n_m),
        "qid": np.tile(np.repeat(np.array(qids, dtype=object), n_m), len(names)),
        "measure": np.tile(np.array(labels, dtype=object), len(names) * n_q),
        "original": orig.reshape(-1), "reproduced": rep.reshape(-1)})
    ordering = pd.DataFrame({"name": np.repeat(np.array(names, dtype=object), n_q),
                             "qid": np.tile(np.array(qids, dtype=object), len(names)),
                             "KTU": ktu.reshape(-1), "RBO": rbo.reshape(-1)})
    return per_topic, ordering


def _tost_defined(original, relative_margin, name, label):
    if relative_margin is not None and original.mean() == 0:
        report(DegenerateWarning, "a relative margin is 0 where the original mean score is 0, so no equivalence "
               "test there: {cases}", [f"{name} {label}"])
        return False
    return True


def _t_pvalue(original, reproduced, paired):
    """Two-sided t-test p-value (scipy ``ttest_rel``/``ttest_ind``, as Breuer et al.); 1.0 when the
    two score vectors are identical (the test statistic is then undefined)."""
    if np.array_equal(original, reproduced):
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's precision note on nearly equal scores
        res = stats.ttest_rel(original, reproduced) if paired else stats.ttest_ind(original, reproduced)
    return float(res.pvalue)
