"""Estimation from a judging plan's sample of documents (issue 26 item 3): ``ppi_evaluate(..., plan=plan)``.

Checked against ir_measures where the estimates must be exact (every pool pair judged, or a judge
that is always right), against an independent pure-Python statement of the estimators of the
module docstrings of ``judging/estimation.py`` and ``judging/ranked.py`` (estimated labels,
statAP-style measures), by unbiasedness and standard errors over many redraws of the sample, at
every door of the result (table, intervals, pairwise), and on bad and mutated human qrels.
"""
import math
import random
import traceback
import warnings

import ir_measures
import numba
import numpy as np
import pandas as pd
import pytest
from conftest import shared_path
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot.judging import designs
from pyterrier_boot.judging.estimation import (
    point_estimates,
    replicate_draws,
    replicate_multipliers,
)
from pyterrier_boot.ppi.sampled import (
    PlanEstimator,
    SampledPPIEvaluation,
    _linearised_ratio,
    _ratio_bias,
)

# the small collections have few topics: the one few-topics warning is expected, not the point
pytestmark = pytest.mark.filterwarnings("ignore:only [0-9]+ topics. the population interval:pyterrier_boot.FitWarning")

KINDS = ("ppi", "human-only", "auto-only")
#: a share of the pool that the stratified design can take (two pairs in each stratum) on these collections
BUDGET = {"poisson": 0.3, "stratified": 0.5}
GAINS = {0: 0, 1: 1, 2: 3, 3: 7}

# label -> (kind, cutoff (0: none), rel, gains (None: the grade)) for the reference below
MEASURES = {
    "AP": ("AP", 0, 1, None), "AP@10": ("AP", 10, 1, None), "AP(rel=2)": ("AP", 0, 2, None),
    "AP(rel=2)@5": ("AP", 5, 2, None),
    "nDCG": ("nDCG", 0, None, None), "nDCG@5": ("nDCG", 5, None, None), "nDCG@10": ("nDCG", 10, None, None),
    "nDCG(gains={0:0,1:1,2:3,3:7})@10": ("nDCG", 10, None, GAINS),
    "P@5": ("P", 5, 1, None), "P(rel=2)@10": ("P", 10, 2, None),
    "R@10": ("R", 10, 1, None), "R(rel=2)@20": ("R", 20, 2, None),
    "RR": ("RR", 0, 1, None), "RR@5": ("RR", 5, 1, None), "RR(rel=2)": ("RR", 0, 2, None), "RR(rel=2)@10": ("RR", 10, 2, None),
    "Rprec": ("Rprec", 0, 1, None), "Rprec(rel=2)": ("Rprec", 0, 2, None),
    "Success@3": ("Success", 3, 1, None), "Success(rel=2)@5": ("Success", 5, 2, None),
}


@pytest.fixture(scope="module", autouse=True)
def one_numba_thread():
    """The kernels on one thread: on these tiny pools, waking numba's threads costs ~50x the work on
    a busy machine (7 ms against 0.15 ms per estimate with two cores shared)."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


# ---------------------------------------------------------------- synthetic collections


def _collection(seed, n_topics=5, n_docs=30, n_runs=3, run_length=25, judge_error=0.35, ties=False):
    """Runs (dict of frames), automatic qrels and the truth (graded 0..3) of ``n_docs`` documents per
    topic; each run ranks ``run_length`` of ``n_docs + 10`` documents (the 10 extra are in no qrels).
    The judge gives a random grade to a share ``judge_error`` of the pairs."""
    rng = np.random.default_rng(seed)
    truth, auto, runs = [], [], {}
    for t in range(n_topics):
        grades = rng.choice(4, size=n_docs, p=[0.5, 0.2, 0.15, 0.15])
        wrong = rng.random(n_docs) < judge_error
        judged = np.where(wrong, rng.integers(0, 4, n_docs), grades)
        truth += [(f"{t + 1}", f"d{d}", int(g)) for d, g in enumerate(grades)]
        auto += [(f"{t + 1}", f"d{d}", int(g)) for d, g in enumerate(judged)]
    for s in range(n_runs):
        rows = []
        for t in range(n_topics):
            docs = rng.permutation(n_docs + 10)[:run_length]
            scores = np.arange(run_length, 0, -1) + (0 if ties else rng.random(run_length) * 0.5)
            if ties:  # blocks of 3 equal scores: trec_eval orders them by docno, descending
                scores = np.floor(scores / 3.0)
            rows += [(f"{t + 1}", f"d{d}", float(x)) for d, x in zip(docs, scores, strict=True)]
        runs[f"r{s}"] = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    columns = ["qid", "docno", "label"]
    return runs, pd.DataFrame(auto, columns=columns), pd.DataFrame(truth, columns=columns)


def _labels(pairs, qrels):
    """The grade in ``qrels`` of every pair of ``pairs`` (0 for a pair it does not hold)."""
    merged = pairs[["qid", "docno"]].merge(qrels[["qid", "docno", "label"]], how="left", on=["qid", "docno"])
    return merged["label"].fillna(0).to_numpy(np.int64)


def _human(plan, truth):
    """People's labels of ``plan.sample``: the truth."""
    sample = plan.sample[["qid", "docno"]]
    return sample.assign(label=_labels(sample, truth))


def _per_query(res):
    """``{(kind, measure, name, qid): value}`` from ``res.per_query()``."""
    frame = res.per_query()
    return {(k, m, n, q): v for k, m, n, q, v in
            zip(frame["kind"], frame["measure"], frame["name"], frame["qid"], frame["value"], strict=True)}


def _ir_measures(measure, qrels, run):
    """ir_measures' per-topic values of one measure (topics the run does not answer: 0)."""
    parsed = ir_measures.parse_measure(measure)
    q = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
    return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], q, r)}


# ---------------------------------------------------------------- 1. exactness


@pytest.fixture(scope="module")
def exact_case():
    runs, auto, truth = _collection(3, n_topics=4)
    return runs, auto, truth


@pytest.mark.parametrize(("strategy", "design"), [("uniform", "poisson"), ("stratified", "stratified")])
@pytest.mark.parametrize("lam", [None, 0.3])
def test_every_pair_judged_gives_ir_measures_values(exact_case, strategy, design, lam):
    runs, auto, truth = exact_case
    plan = ptb.judging_plan(runs, auto, 1.0, strategy=strategy, design=design, depth=20, rng=1)
    assert plan.pool["sampled"].all() and (plan.pool["inclusion_probability"] == 1.0).all()
    pool_pairs = set(zip(plan.pool["qid"], plan.pool["docno"]))
    assert set(zip(truth["qid"], truth["docno"])) <= pool_pairs  # every relevant document is in the pool
    human = _human(plan, truth)
    labels = list(MEASURES)
    res = ptb.ppi_evaluate(runs, auto, human, labels, plan=plan, lam=lam)
    values = _per_query(res)
    table = res.table()
    for m, label in enumerate(labels):
        for name, run in runs.items():
            reference = _ir_measures(label, truth, run)
            assert set(reference) == set(res.qids)
            for qid, expected in reference.items():
                for kind in ("ppi", "human-only"):
                    got = values[kind, res.measures[m], name, qid]
                    assert got == pytest.approx(expected, abs=1e-12), (kind, label, name, qid)
            mean = np.mean(list(reference.values()))
            row = table.set_index("name").loc[name]
            assert row[res.measures[m]] == pytest.approx(mean, abs=1e-12)
            assert row[f"{res.measures[m]} human-only"] == pytest.approx(mean, abs=1e-12)


def test_every_pair_judged_agrees_with_ptb_evaluate_and_has_no_design_variance(exact_case):
    runs, auto, truth = exact_case
    plan = ptb.judging_plan(runs, auto, 1.0, strategy="uniform", design="poisson", depth=20, rng=1)
    labels = ["AP(rel=2)", "nDCG@10", "P@5", "RR", "Rprec"]
    res = ptb.ppi_evaluate(runs, auto, _human(plan, truth), labels, plan=plan, estimand="topics", rng=2)
    assert isinstance(res, SampledPPIEvaluation) and res.n_labels == res.n_pool == len(plan.pool)
    plain = ptb.evaluate(runs, truth, labels)
    values = _per_query(res)
    for name, qid, measure, value in zip(plain["name"], plain["qid"], plain["measure"], plain["value"], strict=True):
        for kind in ("ppi", "human-only"):
            assert values[kind, measure, name, qid] == pytest.approx(value, abs=1e-12), (kind, measure, name, qid)
    for label in res.measures:
        for kind in ("ppi", "human-only"):
            result = res.intervals(label)[kind]  # every pair judged: the design adds no variance
            np.testing.assert_array_equal(result.standard_error, 0.0)
            np.testing.assert_array_equal(result.confidence_interval.low, result.confidence_interval.high)


#: measures divided by an estimated normaliser (post-stratified: pyterrier_boot.judging.poststrata)
RATIO_KINDS = ("AP", "nDCG", "R", "Rprec")


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("design", ["poisson", "stratified"])
def test_a_judge_that_is_always_right_gives_exact_estimates_from_any_sample(exact_case, design, binary):
    """Exact everywhere for the measures without a normaliser; for AP, nDCG, R and Rprec where no
    class of the judge's labels was merged (post-strata), which a judge of two grades never needs,
    while the graded one here has too few sampled pairs of its top labels in every topic."""
    runs, _, truth = exact_case
    truth = truth.assign(label=np.where(truth["label"] > 0, 2, 0)) if binary else truth
    plan = ptb.judging_plan(runs, truth, BUDGET[design], strategy="stratified", design=design, depth=20, rng=4)
    assert 0 < plan.pool["sampled"].mean() < 1
    labels = [label for label in MEASURES if binary or MEASURES[label][0] not in RATIO_KINDS]
    res = ptb.ppi_evaluate(runs, truth, _human(plan, truth), labels, plan=plan, estimand="topics", rng=5)
    assert res.lam == pytest.approx((1.0,) * len(labels))  # the tuned weight of a perfect judge
    values = _per_query(res)
    for m, label in enumerate(labels):
        for name, run in runs.items():
            for qid, expected in _ir_measures(label, truth, run).items():
                for kind in ("ppi", "auto-only"):
                    assert values[kind, res.measures[m], name, qid] == pytest.approx(expected, abs=1e-12), (
                        kind, label, name, qid)
        ppi = res.intervals(res.measures[m])["ppi"]
        assert ppi.standard_error == pytest.approx(np.zeros(len(runs)), abs=1e-12)  # the corrections are all 0


def test_a_graded_judge_that_is_always_right_is_not_exact_where_its_classes_were_merged(exact_case):
    """The other side of the test above: merged classes read the share of each grade over the
    merged pairs, so that the ratio measures move (the reason is in pyterrier_boot.judging.poststrata)."""
    runs, _, truth = exact_case
    plan = ptb.judging_plan(runs, truth, BUDGET["poisson"], strategy="stratified", design="poisson", depth=20, rng=4)
    res = ptb.ppi_evaluate(runs, truth, _human(plan, truth), ["nDCG@10"], plan=plan)
    values = _per_query(res)
    gaps = [values["ppi", "nDCG@10", name, qid] - expected for name, run in runs.items()
            for qid, expected in _ir_measures("nDCG@10", truth, run).items()]
    assert max(np.abs(gaps)) > 1e-3


# ---------------------------------------------------------------- 2. an independent reference


def _f(grade, spec):
    """A grade's relevance indicator (binary measures) or gain (nDCG)."""
    kind, _, rel, gains = spec
    if kind == "nDCG":
        return float(gains[grade] if gains is not None else grade)
    return float(grade >= rel)


def _tuned(f_auto, f_human, pi):
    """The lam minimising the Poisson variance sum (1 - pi) / pi^2 * (f(h) - lam f(a))^2, clipped to [0, 1]."""
    w = [(1 - p) / p**2 for p in pi]
    den = sum(wi * a * a for wi, a in zip(w, f_auto, strict=True))
    if den <= 0:
        return 1.0
    return min(1.0, max(0.0, sum(wi * a * h for wi, a, h in zip(w, f_auto, f_human, strict=True)) / den))


def _discount_upto(m):
    """Sum of 1 / log2(r + 1) over ranks r = 1..floor(m), plus the fraction of the next rank's."""
    whole = math.floor(m)
    return sum(1 / math.log2(r + 1) for r in range(1, whole + 1)) + (m - whole) / math.log2(whole + 2)


def _ideal_dcg(counts, cutoff):
    """Documents of each gain (``{gain: estimated count}``) fill ranks 1, 2, ... by gain, fractionally."""
    total, filled = 0.0, 0.0
    limit = cutoff if cutoff else math.inf
    for gain in sorted(counts, reverse=True):
        start = min(filled, limit)
        filled += max(counts[gain], 0.0)
        total += gain * (_discount_upto(min(filled, limit)) - _discount_upto(start))
    return total


def _linearised(kind, x, y):
    """RR or Success of a ranking linearised around imputed labels ``y``: ``m(y) + sum_k g_k (x_k - y_k)``,
    ``m(y) = sum_k w_k y_k prod_{j<k} (1 - y_j)`` (``w_k = 1/k`` for RR, 1 for Success) and ``g_k`` its
    derivative in ``y_k``, written out term by term."""
    w = [1 / r if kind == "RR" else 1.0 for r in range(1, len(x) + 1)]

    def above(i, skip=None):  # prod_{j < i, j != skip} (1 - y_j)
        return math.prod(1 - y[j] for j in range(i) if j != skip)

    value = sum(w[i] * y[i] * above(i) for i in range(len(x)))
    for k in range(len(x)):
        slope = w[k] * above(k) - sum(w[i] * y[i] * above(i, skip=k) for i in range(k + 1, len(x)))
        value += slope * (x[k] - y[k])
    return value


def _ranked_value(kind, cutoff, x, norm, y):
    """One ranking's value; ``x`` the estimates by rank (1-based), ``norm`` R or the ideal DCG, ``y``
    the imputed labels (RR, Success)."""
    k = len(x) if not cutoff else min(cutoff, len(x))
    top = x[:k]
    if kind == "P":
        return sum(top) / cutoff
    if kind in ("RR", "Success"):
        return _linearised(kind, top, y[:k])
    if norm <= 0:
        return 0.0
    if kind == "nDCG":
        value = sum(v / math.log2(r + 1) for r, v in enumerate(top, 1)) / norm
    elif kind == "R":
        value = sum(top) / norm
    elif kind == "AP":
        value = sum(v * (1 + sum(top[: r - 1])) / r for r, v in enumerate(top, 1)) / norm
    else:  # Rprec: precision at the fractional rank R
        whole = math.floor(norm)
        value = sum(x[:whole]) + ((norm - whole) * x[whole] if whole < len(x) else 0.0)
        value /= norm
    return value


def _stratum(qid, auto_label, rank, depth):
    """Topic x automatic label x rank band (1-10, 11-30, the rest of the top ``depth``; in no run's top ``depth``)."""
    edges = [e for e in (10, 30) if e < depth]
    return qid, auto_label, len(edges) + 1 if rank == 0 else sum(rank > e for e in edges)


def _imputed(pool, human, spec, depth, by_label=True):
    """RR's and Success's imputed labels: the human one where sampled, else the share relevant among
    the sampled pairs of the stratum, else the automatic one; for the human sample alone
    (``by_label=False``) strata are topic x rank band and the fallback is 0."""
    strata = {(q, d): _stratum(q, a if by_label else 0, r, depth) for q, d, a, r in
              zip(pool["qid"], pool["docno"], pool["auto_label"], pool["rank"], strict=True)}
    seen = {}
    for pair, grade in human.items():
        seen.setdefault(strata[pair], []).append(_f(grade, spec))
    auto = dict(zip(zip(pool["qid"], pool["docno"]), pool["auto_label"], strict=True))
    return {p: _f(human[p], spec) if p in human else
            float(np.mean(seen[strata[p]])) if strata[p] in seen else
            (_f(auto[p], spec) if by_label else 0.0) for p in strata}


def _post_stratified(pool, human, judged, f, minimum=3, factor=None):
    """``{qid: total}``: pyterrier_boot.judging.poststrata's normaliser written out pair by pair:
    per topic, the judge's classes (each label above 0, labelled 0, not labelled); the classes above 0
    merged from the highest label down into groups of ``minimum`` sampled pairs (the rest join the
    last group); each group's size times the 1/pi-weighted mean of f over its sampled pairs; a group
    without sampled pairs its classes' means over all topics (the judge's f for a class sampled nowhere).
    ``factor``: ``{pair: m}``, a design replicate's factors of the sampled pairs' weights."""
    auto = dict(zip(zip(pool["qid"], pool["docno"]), pool["auto_label"], strict=True))
    w = {p: (factor or {}).get(p, 1.0) / q  # the weight 1 / pi, times a replicate's factor
         for p, q in zip(zip(pool["qid"], pool["docno"]), pool["inclusion_probability"], strict=True)}

    def judge_class(pair):
        return auto[pair] if auto[pair] > 0 else ("zero" if pair in judged else "none")

    hits, weight = {}, {}
    for pair in human:
        c = judge_class(pair)
        hits[c] = hits.get(c, 0.0) + f(human[pair]) * w[pair]
        weight[c] = weight.get(c, 0.0) + w[pair]
    out = {}
    for qid in sorted(set(pool["qid"])):
        pairs = [p for p in auto if p[0] == qid]
        groups, group, count = [], [], 0
        for c in sorted({auto[p] for p in pairs if auto[p] > 0}, reverse=True):
            group.append(c)
            count += sum(1 for p in pairs if p in human and auto[p] == c)
            if count >= minimum:
                groups.append(group)
                group, count = [], 0
        if group:
            groups[-1:] = [(groups[-1] if groups else []) + group]
        groups += [["zero"], ["none"]]
        total = 0.0
        for members in groups:
            inside = [p for p in pairs if judge_class(p) in members]
            taken = [p for p in inside if p in human]
            if sum(w[p] for p in taken) > 0:
                total += len(inside) * sum(f(human[p]) * w[p] for p in taken) / sum(w[p] for p in taken)
            else:
                total += sum(hits[judge_class(p)] / weight[judge_class(p)] if weight.get(judge_class(p), 0) > 0
                             else f(auto[p]) for p in inside)
        out[qid] = total
    return out


def _reference(runs, pool, human, spec, kind, lam, depth=20, judged=frozenset(), factors=(), stratified=False):
    """``{(name, qid): value}`` and the lam used, from the formulas of the docstrings.

    ``pool``: the plan's pool; ``human``: ``{(qid, docno): grade}`` of the sampled pairs; ``judged``:
    the pairs the judge labelled; ``factors``: the design replicates (``{pair: factor}`` each), from
    which nDCG's estimate is bias-corrected; ``stratified``: the plan's design is."""
    if spec[0] == "nDCG" and kind != "auto-only" and factors:
        return _bias_corrected(runs, pool, human, spec, kind, lam, depth, judged, factors, stratified)
    return _reference_rows(runs, pool, human, spec, kind, lam, depth, judged)


def _bias_corrected(runs, pool, human, spec, kind, lam, depth, judged, factors, stratified):
    """nDCG: the ratio ``N / D`` of the estimate less its second-order bias over the replicates,
    ``-N dD / D^2 + N Var(D_r) / D^3 - Cov(N_r, D_r) / D^2`` (``dD``: mean ``D_r`` less ``D`` under
    the stratified design, 0 under Poisson), but where ``Var(D_r) > D^2``."""
    rows = [_reference_rows(runs, pool, human, spec, kind, lam, depth, judged, factor, parts=True)
            for factor in ({}, *factors)]
    (numerator, normaliser), used = rows[0]
    out = {}
    for (name, qid), top in numerator.items():
        base = normaliser[qid]
        if base <= 0:
            out[name, qid] = 0.0
            continue
        d_r = np.array([r[0][1][qid] for r in rows[1:]])
        n_r = np.array([r[0][0][name, qid] for r in rows[1:]])
        if d_r.var() > base**2:  # the expansion fails: not corrected
            out[name, qid] = top / base
            continue
        shift = d_r.mean() - base if stratified else 0.0
        bias = (-top * shift / base**2 + top * d_r.var() / base**3
                - np.mean((n_r - n_r.mean()) * (d_r - d_r.mean())) / base**2)
        out[name, qid] = top / base - bias
    return out, used


def _reference_rows(runs, pool, human, spec, kind, lam, depth, judged, factor=None, parts=False):
    """:func:`_reference` without replicates; with ``factor`` (``{pair: m}``) one design replicate's
    (each sampled pair's weight times its factor); ``parts``: nDCG's numerator and normaliser."""
    auto = dict(zip(zip(pool["qid"], pool["docno"]), pool["auto_label"], strict=True))
    probability = dict(zip(zip(pool["qid"], pool["docno"]), pool["inclusion_probability"], strict=True))
    sampled = sorted(human)
    if kind == "auto-only":
        lam = 1.0
    elif kind == "human-only":
        lam = 0.0
    elif lam is None:
        lam = _tuned([_f(auto[p], spec) for p in sampled], [_f(human[p], spec) for p in sampled],
                     [probability[p] for p in sampled])
    w = {p: (factor or {}).get(p, 1.0) / q for p, q in probability.items()}  # 1 / pi, times a replicate's factor
    if kind == "auto-only":
        imputed = {p: _f(a, spec) for p, a in auto.items()}
    else:
        imputed = _imputed(pool, human, spec, depth, by_label=kind == "ppi")

    def estimate(pair, f):
        if kind == "auto-only":
            return f(auto[pair])
        x = lam * f(auto[pair])
        if pair in human:
            x += (f(human[pair]) - lam * f(auto[pair])) * w[pair]
        return x

    post = {}  # per function of the grade: every topic's post-stratified total (PPI)

    def total(qid, pairs, f, key):  # the normaliser's estimate: post-stratified for PPI, else as the pairs'
        if kind == "ppi":
            if key not in post:
                post[key] = _post_stratified(pool, human, judged, f, factor=factor)
            return post[key][qid]
        return sum(estimate(p, f) for p in pairs)

    out, normalisers = {}, {}
    for qid in sorted(set(pool["qid"])):
        pairs = [p for p in auto if p[0] == qid]
        if spec[0] == "nDCG":
            grades = set(auto.values()) | set(human.values())
            levels = {_f(g, spec) for g in grades} - {0.0}
            counts = {v: total(qid, pairs, lambda g, v=v: float(_f(g, spec) == v), v) for v in levels}
            norm = _ideal_dcg(counts, spec[1])
        else:
            norm = total(qid, pairs, lambda g: _f(g, spec), "f")
        for name, run in runs.items():
            ranking = run[run["qid"] == qid].sort_values(["score", "docno"], ascending=False)
            docs = [(qid, d) for d in ranking["docno"]]
            x = [estimate(p, lambda g: _f(g, spec)) if p in auto else 0.0 for p in docs]
            y = [imputed.get(p, 0.0) for p in docs]
            out[name, qid] = _ranked_value(spec[0], spec[1], x, 1.0 if parts else norm, y)
        normalisers[qid] = norm
    return ((out, normalisers) if parts else out), lam


@pytest.mark.parametrize("design", ["poisson", "stratified"])
@pytest.mark.parametrize("lam", [None, 0.6])
@pytest.mark.parametrize("seed", [7, 8])
def test_estimates_match_an_independent_reference(design, lam, seed):
    runs, auto, truth = _collection(seed, n_topics=4, ties=seed == 8)
    plan = ptb.judging_plan(runs, auto, BUDGET[design], strategy="stratified", design=design, depth=20, rng=seed)
    assert 0.2 < plan.pool["sampled"].mean() < 0.6 and (plan.pool["inclusion_probability"] < 1).any()
    # people disagree with the truth now and then: the estimator needs no truth
    rng = np.random.default_rng(seed)
    human = _human(plan, truth)
    human["label"] = np.where(rng.random(len(human)) < 0.1, rng.integers(0, 4, len(human)), human["label"])
    labels = list(MEASURES)
    res = ptb.ppi_evaluate(runs, auto, human, labels, plan=plan, lam=lam, n_replicates=20, rng=seed)
    values = _per_query(res)
    given = dict(zip(zip(human["qid"], human["docno"]), human["label"], strict=True))
    judged = set(zip(auto["qid"].astype(str), auto["docno"].astype(str)))
    factors = _replicate_factors(plan, 20, seed)
    for m, label in enumerate(labels):
        for kind in KINDS:
            reference, used = _reference(runs, plan.pool, given, MEASURES[label], kind, lam, judged=judged,
                                         factors=factors, stratified=plan.design == "stratified")
            if kind == "ppi":
                assert res.lam[m] == pytest.approx(used, abs=1e-12), label
            for (name, qid), expected in reference.items():
                got = values[kind, res.measures[m], name, qid]
                assert got == pytest.approx(expected, abs=1e-12), (kind, label, name, qid)


def _replicate_factors(plan, n_replicates, seed):
    """``[{pair: factor}]``: the design replicates ``ppi_evaluate(..., n_replicates, rng=seed)``
    draws (their factors' moments are tested in test_judging_estimation.py)."""
    pool = plan.pool[plan.pool["sampled"]]
    stratum = pd.factorize(pool["stratum"])[0] if plan.design == "stratified" else None
    draws = replicate_draws(np.random.default_rng(seed), n_replicates, len(pool))
    factors = replicate_multipliers(pool["inclusion_probability"].to_numpy(float), draws, stratum)
    pairs = list(zip(pool["qid"], pool["docno"]))
    return [dict(zip(pairs, row)) for row in factors]


def test_topics_estimand_keeps_the_point_estimates():
    runs, auto, truth = _collection(9, n_topics=4)
    plan = ptb.judging_plan(runs, auto, 0.3, strategy="stratified", design="poisson", depth=20, rng=9)
    human = _human(plan, truth)
    labels = ["AP", "nDCG@10", "RR(rel=2)"]
    # the same replicates (nDCG's estimate is corrected for its bias with them)
    population = ptb.ppi_evaluate(runs, auto, human, labels, plan=plan, n_replicates=30, rng=1)
    topics = ptb.ppi_evaluate(runs, auto, human, labels, plan=plan, estimand="topics", n_replicates=30, rng=1)
    for kind in KINDS:
        np.testing.assert_array_equal(population.estimates[kind][:, 0], topics.estimates[kind][:, 0])
    assert topics.estimates["ppi"].shape[1] == 31 and topics.estimates["auto-only"].shape[1] == 1


def test_only_ndcg_reads_the_replicates_and_a_sequence_none():
    runs, auto, truth = _collection(9, n_topics=4)
    plan = ptb.judging_plan(runs, auto, 0.3, strategy="stratified", design="poisson", depth=20, rng=9)
    labels = _labels(plan.pool, truth)
    estimator = PlanEstimator(ptb.read_runs(runs), plan.pool, ["AP", "nDCG@10"], depth=20)
    sampled = plan.pool["sampled"].to_numpy(bool)
    pi = plan.pool["inclusion_probability"].to_numpy(float)[sampled]

    def ppi(rng, **options):
        return estimator.estimate(sampled, labels[sampled], pi, rng=rng, **options).estimates["ppi"][:, 0]

    one, two = ppi(1), ppi(2)
    np.testing.assert_array_equal(one[0], two[0])  # AP: no replicates read
    assert not np.allclose(one[1], two[1], rtol=0, atol=1e-9)  # nDCG: its bias from the replicates
    order = list(reversed(estimator.qids))  # a sequence over topics: nothing drawn, nothing corrected
    np.testing.assert_array_equal(ppi(1, topic_order=order), ppi(2, topic_order=order))


def test_human_only_does_not_depend_on_the_automatic_labels():
    runs, auto, truth = _collection(21, n_topics=5, n_docs=40)
    other = auto.assign(label=3 - auto["label"])  # another judge of the same pairs
    plans = [ptb.judging_plan(runs, a, 0.3, strategy="uniform", design="poisson", depth=20, rng=5) for a in (auto, other)]
    pd.testing.assert_frame_equal(plans[0].sample, plans[1].sample)  # uniform: the same sample
    human = _human(plans[0], truth)
    labels = ["AP", "nDCG@10", "P@5", "RR", "Success@3"]
    estimates = [ptb.ppi_evaluate(runs, a, human, labels, plan=p).estimates["human-only"]
                 for a, p in zip((auto, other), plans, strict=True)]
    for m, label in enumerate(labels):
        np.testing.assert_allclose(estimates[0][m], estimates[1][m], rtol=0, atol=1e-12, err_msg=label)


# ---------------------------------------------------------------- 3. unbiasedness and standard errors


@pytest.fixture(scope="module")
def design_case():
    runs, auto, truth = _collection(21, n_topics=5, n_docs=40)
    read = ptb.read_runs(runs)
    truth_p5 = {name: _ir_measures("P@5", truth, run) for name, run in runs.items()}
    return runs, read, auto, truth, truth_p5


def _draws(plan, design, rng):
    """A function drawing a new sample of ``plan.pool`` with the plan's probabilities: ``(mask, pi, strata)``."""
    pi = plan.pool["inclusion_probability"].to_numpy(float)
    stratum = plan.pool["stratum"].to_numpy(np.int64)
    take = np.bincount(stratum[plan.pool["sampled"].to_numpy(bool)]) if design == "stratified" else None

    def draw():
        return designs.draw(pi, stratum, design, rng, take)

    return draw, pi, (stratum if design == "stratified" else None)


@pytest.mark.parametrize("design", ["poisson", "stratified"])
def test_linear_measures_are_unbiased_over_redraws(design_case, design):
    runs, read, auto, truth, truth_p5 = design_case
    plan = ptb.judging_plan(runs, auto, BUDGET[design], strategy="stratified", design=design, depth=20, rng=3)
    labels = _labels(plan.pool, truth)
    draw, pi, stratum = _draws(plan, design, np.random.default_rng(4))
    estimator = PlanEstimator(read, plan.pool, ["P@5"], depth=20)
    auto_rel = (plan.pool["auto_label"].to_numpy() >= 1).astype(float)
    qid_code = pd.factorize(plan.pool["qid"], sort=True)[0]
    true_r = np.bincount(qid_code, weights=(labels >= 1).astype(float))
    p5, r_hat = [], []
    for _ in range(1500):
        s = draw()
        res = estimator.estimate(s, labels[s], pi[s], stratum=None if stratum is None else stratum[s], lam=0.5)
        p5.append(np.stack([res.estimates["ppi"][0, 0], res.estimates["human-only"][0, 0]]))
        x = point_estimates(auto_rel, s, (labels[s] >= 1).astype(float), pi[s], 0.5)
        r_hat.append(np.bincount(qid_code, weights=x))
    p5, r_hat = np.array(p5), np.array(r_hat)  # (draws, kinds, topics, runs), (draws, topics)
    truth = np.array([[truth_p5[name][q] for name in runs] for q in estimator.qids])
    mean, se = p5.mean(0), p5.std(0, ddof=1) / np.sqrt(len(p5))
    assert (se > 0).mean() > 0.9  # the sample moves almost every cell
    assert np.all(np.abs(mean - truth) <= 4 * se + 1e-12), np.abs(mean - truth) / np.maximum(se, 1e-300)
    means_over_topics = p5.mean(2)  # each run's mean P@5, what the table reports
    assert np.all(np.abs(means_over_topics.mean(0) - truth.mean(0)) <=
                  4 * means_over_topics.std(0, ddof=1) / np.sqrt(len(p5)))
    r_se = r_hat.std(0, ddof=1) / np.sqrt(len(r_hat))
    assert np.all(np.abs(r_hat.mean(0) - true_r) <= 4 * r_se), (r_hat.mean(0), true_r, r_se)


def test_ratio_replicates_are_linearised_around_the_estimate():
    # rows: the estimate, then replicates; 2 topics x 1 run. Topic 0: N = 0.6, D = 2; topic 1: D = 0.
    numerator = np.array([[[0.6], [0.3]], [[0.8], [0.5]], [[0.6], [0.1]], [[0.5], [0.0]]])
    normaliser = np.array([[2.0, 0.0], [2.5, 0.0], [0.1, 0.0], [2.0, 0.0]])[:, :, None]
    got = _linearised_ratio(numerator, normaliser) + _ratio_bias(numerator, normaliser)
    # row 0 the ratio; replicate r: N_r / D - N (D_r - D) / D^2 (0 where D = 0, as trec_eval)
    expected = [0.3, 0.8 / 2 - 0.6 * 0.5 / 4, 0.6 / 2 - 0.6 * (0.1 - 2) / 4, 0.5 / 2]
    np.testing.assert_allclose(got[:, 0, 0], expected, rtol=1e-12)
    assert np.all(got[:, 1] == 0.0)
    assert got[2, 0, 0] < 1.0 < 0.6 / 0.1  # a replicate whose normaliser nears 0 stays near the estimate
    assert _ratio_bias(numerator[:1], normaliser[:1]).tolist() == [[[0.0], [0.0]]]  # no replicates: none
    assert _ratio_bias(numerator, normaliser)[0, 0, 0] != 0.0  # Var(D_r) = 1.07 < D^2: corrected
    moved = normaliser.copy()
    moved[1:, 1, 0] = [0.5, 1.0, 0.2]  # D = 0 (nDCG 0, as trec_eval) whatever the replicates: none
    assert _ratio_bias(numerator, moved)[0, 1, 0] == 0.0 and np.all(_linearised_ratio(numerator, moved)[:, 1] == 0)
    edge = normaliser.copy()
    edge[1:, 0, 0] = [2.0 + np.sqrt(6), 2.0 - np.sqrt(6), 2.0]  # Var(D_r) = D^2 exactly: still corrected
    assert np.var(edge[1:, 0, 0]) == pytest.approx(4.0) and _ratio_bias(numerator, edge)[0, 0, 0] != 0.0
    # an ideal DCG whose replicates spread wider than itself: the expansion fails, no correction
    wide = normaliser.copy()
    wide[1:, 0, 0] = [5.0, 0.1, 0.2]
    assert np.var(wide[1:, 0, 0]) > 2.0**2 and _ratio_bias(numerator, wide)[0, 0, 0] == 0.0


def test_ratio_bias_is_the_replicates_second_order_mean():
    # replicates close to the estimate: their mean ratio less the estimate's is the bias to second order
    # 2 topics x 3 runs: each topic's one ideal DCG divides every run's DCG
    rng = np.random.default_rng(3)
    top, base = np.array([[0.6, 1.2, 0.3], [1.0, 0.4, 2.0]]), np.array([[2.0], [3.0]])
    shift = rng.normal(0.0, 1.0, (4000, 2, 1))
    noise = 0.002 * shift + 0.004 * rng.normal(size=(4000, 2, 3))
    numerator = np.concatenate([top[None], top + noise - noise.mean(0)])  # N_r centred on N (N is linear)
    normaliser = np.concatenate([base[None], base + 0.01 + 0.1 * (shift - shift.mean(0))])  # D_r biased by 0.01
    bias = _ratio_bias(numerator, normaliser, shifted=True)[0]
    exact = (numerator[1:] / normaliser[1:]).mean(0) - top / base
    np.testing.assert_allclose(bias, exact, atol=1.5e-5)  # fourth-order terms
    assert np.all(np.abs(bias) > 5 * 1.5e-5)  # far from 0: the test can fail
    # unshifted (Poisson's replicates): the replicates' mean shift of D, here 0.01, is not read
    np.testing.assert_allclose(_ratio_bias(numerator, normaliser)[0], bias + top * 0.01 / base**2, rtol=1e-9)
    corrected = _linearised_ratio(numerator, normaliser, shifted=True)
    np.testing.assert_allclose(corrected[0], top / base - bias, rtol=1e-12)
    # the replicates move with the estimate: their spread around it is the linearised one
    np.testing.assert_allclose(corrected[1:] - corrected[:1],
                               numerator[1:] / base - top * (normaliser[1:] - base) / base**2 - top / base,
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("measure", ["P@5", "nDCG@5"])
@pytest.mark.parametrize("design", ["poisson", "stratified"])
def test_replicate_standard_error_matches_the_spread_over_redraws(design_case, design, measure):
    # nDCG@5: a ratio, unclipped, its replicates linearised around the estimate
    runs, read, auto, truth, _ = design_case
    plan = ptb.judging_plan(runs, auto, BUDGET[design], strategy="stratified", design=design, depth=20, rng=5)
    labels = _labels(plan.pool, truth)
    draw, pi, stratum = _draws(plan, design, np.random.default_rng(6))
    estimator = PlanEstimator(read, plan.pool, [measure], depth=20)
    estimates, variances = [], []
    for i in range(400):
        s = draw()
        res = estimator.estimate(s, labels[s], pi[s], stratum=None if stratum is None else stratum[s], lam=0.5,
                                 estimand="topics", n_replicates=100, rng=i)
        intervals = res.intervals(measure)
        estimates.append([intervals[k].statistic for k in ("ppi", "human-only")])
        variances.append([intervals[k].standard_error ** 2 for k in ("ppi", "human-only")])
    sd = np.array(estimates).std(0, ddof=1)  # (kinds, runs)
    rms_se = np.sqrt(np.array(variances).mean(0))
    ratio = rms_se / sd
    low, high = (0.85, 1.15) if measure == "P@5" else (0.8, 1.2)  # a ratio's: to first order
    assert np.all((ratio > low) & (ratio < high)), ratio


# ---------------------------------------------------------------- 4. errors


@pytest.fixture(scope="module")
def small():
    runs, auto, truth = _collection(31, n_topics=4)
    plan = ptb.judging_plan(runs, auto, 0.3, design="poisson", depth=20, rng=1)
    return runs, auto, truth, plan, _human(plan, truth)


def _evaluate(small, human=None, measures=("AP",), **options):
    runs, auto, _, plan, default = small
    options.setdefault("plan", plan)
    return ptb.ppi_evaluate(runs, options.pop("auto", auto), default if human is None else human, list(measures),
                            **options)


def test_labels_of_pairs_the_plan_did_not_sample_are_refused(small):
    _, _, _, plan, human = small
    outside = plan.pool[~plan.pool["sampled"]].iloc[[0]][["qid", "docno"]].assign(label=1)
    with pytest.raises(ValueError, match=r"'human_qrels' labels 1 pair\(s\) the judging plan did not sample"):
        _evaluate(small, pd.concat([human, outside], ignore_index=True))
    foreign = pd.DataFrame({"qid": ["1"], "docno": ["nowhere"], "label": [1]})
    with pytest.raises(ValueError, match="did not sample"):
        _evaluate(small, pd.concat([human, foreign], ignore_index=True))


def test_sampled_pairs_without_a_label_are_refused(small):
    _, _, _, _, human = small
    with pytest.raises(ValueError, match=r"'human_qrels' has no label for 2 of the plan's .* sampled pair"):
        _evaluate(small, human.iloc[2:])


def test_probabilities_other_than_the_plan_s_are_refused(small):
    _, _, _, plan, human = small
    with_pi = human.assign(inclusion_probability=plan.sample["inclusion_probability"].to_numpy())
    _evaluate(small, with_pi)  # the plan's own probabilities pass
    changed = with_pi.copy()
    changed.loc[3, "inclusion_probability"] *= 1.5
    with pytest.raises(ValueError, match="'inclusion_probability' differs from the judging plan's for 1 pair"):
        _evaluate(small, changed)
    with pytest.raises(ValueError, match="'inclusion_probability' differs"):
        _evaluate(small, with_pi.assign(inclusion_probability="x"))


def test_a_plan_from_other_qrels_or_other_runs_is_refused(small):
    runs, auto, _, plan, human = small
    other_auto = auto.assign(label=np.where(np.arange(len(auto)) == 0, 3 - auto["label"], auto["label"]))
    with pytest.raises(ValueError, match="'auto_qrels' are not the automatic qrels this judging plan was made from"):
        _evaluate(small, auto=other_auto)
    other_runs, _, _ = _collection(32, n_topics=4)
    with pytest.raises(ValueError, match="'runs' are not the runs this judging plan was made for"):
        ptb.ppi_evaluate(other_runs, auto, human, ["AP"], plan=plan)
    subset = ptb.ppi_evaluate({"r2": runs["r2"]}, auto, human, ["AP"], plan=plan)  # a subset of the runs is fine
    assert subset.names == ("r2",)
    np.testing.assert_array_equal(subset.estimates["ppi"][..., 0], _evaluate(small).estimates["ppi"][..., 2])


@pytest.mark.parametrize("measure", ["Bpref", "ERR@10", "nDCG(judged_only=True)@10", "Judged@10", "RBP"])
def test_unsupported_measures_are_refused(small, measure):
    with pytest.raises(ValueError, match="with a judging plan, measures must be AP, nDCG, P, R, RR, Rprec or Success"):
        _evaluate(small, measures=["AP", measure])


def test_summed_measures_are_refused(small):
    with pytest.raises(ValueError, match="NumRel|summed|mean"):
        _evaluate(small, measures=["NumRel"])


@pytest.mark.parametrize("measure", ["P(rel=0)@5", "AP(rel=0)", "RR(rel=0)"])
def test_rel_zero_is_refused(small, measure):
    with pytest.raises(ValueError, match=r"rel must be a positive integer grade|rel=0 would count the whole pool"):
        _evaluate(small, measures=[measure])


def test_plan_must_be_a_judging_plan(small):
    _, _, _, plan, _ = small
    for wrong in (plan.sample, plan.pool, "plan.tsv", object()):
        with pytest.raises(TypeError, match="'plan' must be a JudgingPlan"):
            _evaluate(small, plan=wrong)


@pytest.mark.parametrize("n", [0, 19, -5, 20.0, True, "200"])
def test_too_few_replicates_are_refused(small, n):
    with pytest.raises(ValueError, match="'n_replicates' must be an integer of at least 20"):
        _evaluate(small, n_replicates=n, estimand="topics")


def test_bad_estimand_is_refused(small):
    with pytest.raises(ValueError, match="estimand"):
        _evaluate(small, estimand="everything")


# ---------------------------------------------------------------- 5. the table doors


@pytest.fixture(scope="module")
def doors():
    runs, auto, truth = _collection(41, n_topics=8)
    plan = ptb.judging_plan(runs, auto, 0.3, design="poisson", depth=20, rng=2)
    human = _human(plan, truth)
    labels = ["AP", "nDCG@10"]
    sampled = {e: ptb.ppi_evaluate(runs, auto, human, labels, plan=plan, estimand=e, rng=3)
               for e in ("population", "topics")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptb.FitWarning)  # below 10 human-judged topics: said in test_ppi.py
        topic_level = ptb.ppi_evaluate(runs, auto, truth[truth["qid"].isin(["1", "3", "5", "7"])], labels)
    return sampled, topic_level


def test_table_has_the_topic_level_columns(doors):
    sampled, topic_level = doors
    for res in sampled.values():
        for baseline in (None, "r1", 0):
            ours, theirs = res.table(baseline=baseline), topic_level.table(baseline=baseline)
            assert list(ours.columns) == list(theirs.columns)
            assert "AP flag" in ours.columns and (baseline is None or "AP diff flag" in ours.columns)
        assert (res.table()["estimand"] == res.estimand).all()
    assert list(sampled["topics"].pairwise().columns) == list(topic_level.pairwise().columns)


def _check_result(result, statistic, low, high):
    assert result.statistic == pytest.approx(statistic, abs=1e-12, nan_ok=True)
    assert tuple(result.confidence_interval) == pytest.approx((low, high), abs=1e-12)


@pytest.mark.parametrize("estimand", ["population", "topics"])
def test_intervals_table_and_pairwise_agree(doors, estimand):
    res = doors[0][estimand]
    table = res.table(baseline="r1").set_index("name")
    pairwise = res.pairwise().set_index(["name", "vs", "measure"])
    for m in res.measures:
        for a in ("r0", "r2"):
            diff = res.intervals(m, difference=(a, "r1"))
            row = table.loc[a]
            _check_result(diff["ppi"], row[f"{m} diff"], row[f"{m} diff ci_low"], row[f"{m} diff ci_high"])
            assert row[f"{m} p-value"] == pytest.approx(diff["ppi"].pvalue, abs=1e-12)
            assert row[f"{m} diff lambda"] == pytest.approx(diff["ppi"].lam)
            for kind in ("human-only", "auto-only"):
                head = f"{m} {kind} diff"
                _check_result(diff[kind], row[head], row[f"{head} ci_low"], row[f"{head} ci_high"])
        assert table.loc["r1", f"{m} diff"] != table.loc["r1", f"{m} diff"]  # the baseline's own row: NaN
        for (a, b), prow in pairwise.xs(m, level="measure").iterrows():
            diff = res.intervals(m, difference=(a, b))
            _check_result(diff["ppi"], prow["diff"], prow["ci_low"], prow["ci_high"])
            assert prow["p-value"] == pytest.approx(diff["ppi"].pvalue, abs=1e-12)
            for kind in ("human-only", "auto-only"):
                _check_result(diff[kind], prow[f"{kind} diff"], prow[f"{kind} ci_low"], prow[f"{kind} ci_high"])
        means = res.intervals(m)["ppi"]
        rows = table.loc[list(res.names)]
        np.testing.assert_allclose(means.statistic, rows[m], atol=1e-12)
        np.testing.assert_allclose(means.confidence_interval.low, rows[f"{m} ci_low"], atol=1e-12)
        np.testing.assert_allclose(means.confidence_interval.high, rows[f"{m} ci_high"], atol=1e-12)


def test_topics_estimand_intervals_come_from_the_design_replicates(doors):
    res = doors[0]["topics"]
    z = stats.norm.ppf(0.975)
    for m, label in enumerate(res.measures):
        for kind in ("ppi", "human-only"):
            rows = res.estimates[kind][m]  # (1 + replicates, topics, runs)
            assert rows.shape[0] == 201
            for weights, result in ((np.eye(3), res.intervals(label)[kind]),
                                    (np.array([[1.0], [0.0], [-1.0]]), res.intervals(label, ("r0", "r2"))[kind])):
                means = (rows @ weights).mean(1)  # (1 + replicates, columns)
                se = np.sqrt(((means[1:] - means[0]) ** 2).mean(0))
                assert np.all(se > 0)
                np.testing.assert_allclose(np.ravel(result.standard_error), se, rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(np.ravel(result.confidence_interval.low), means[0] - z * se, atol=1e-12)
                np.testing.assert_allclose(np.ravel(result.confidence_interval.high), means[0] + z * se, atol=1e-12)
        auto = res.intervals(label)["auto-only"]
        np.testing.assert_allclose(auto.confidence_interval.low, auto.statistic, atol=1e-12)
        np.testing.assert_allclose(auto.confidence_interval.high, auto.statistic, atol=1e-12)
        auto_diff = res.intervals(label, ("r0", "r2"))["auto-only"]
        assert auto_diff.confidence_interval.high - auto_diff.confidence_interval.low == pytest.approx(0, abs=1e-12)
    assert "these 8 topics" in res.describe_estimand() and "estimand 'topics'" in repr(res)


def test_population_intervals_are_student_t_over_topics(doors):
    res = doors[0]["population"]
    frame = res.per_query()
    for label in res.measures:
        for kind in KINDS:
            values = frame[(frame["measure"] == label) & (frame["kind"] == kind)].pivot(
                index="qid", columns="name", values="value")[list(res.names)]
            per_run = res.intervals(label)[kind]
            for s, name in enumerate(res.names):
                low, high = stats.t.interval(0.95, len(values) - 1, loc=values[name].mean(), scale=stats.sem(values[name]))
                assert per_run.confidence_interval.low[s] == pytest.approx(low, abs=1e-12)
                assert per_run.confidence_interval.high[s] == pytest.approx(high, abs=1e-12)
            d = values["r0"] - values["r2"]
            low, high = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
            _check_result(res.intervals(label, ("r0", "r2"))[kind], d.mean(), low, high)


# ---------------------------------------------------------------- 6. fuzzing the human qrels


def _mutations(human, plan, rng):
    """Named mutations of a valid human qrels frame."""
    n = len(human)
    unsampled = plan.pool[~plan.pool["sampled"]][["qid", "docno"]]

    def rows(k):
        return sorted(rng.sample(range(n), k))

    def with_label(values):
        return human.assign(label=values)

    labels = human["label"].to_numpy()
    nan = labels.astype(float)
    nan[rows(1)] = np.nan
    odd = {}
    for value in ("x", None, "", "2.5", b"1", [1], 1.5, 10**30, np.inf, True):
        column = labels.astype(object)
        column[rows(1)] = value
        odd[f"odd label {value!r}"] = with_label(column)
    return {
        "dropped rows": human.drop(index=rows(rng.randint(1, 3))),
        "duplicated rows": pd.concat([human, human.iloc[rows(2)]], ignore_index=True),
        "duplicated conflicting": pd.concat([human, human.iloc[rows(1)].assign(label=lambda f: 3 - f["label"])],
                                            ignore_index=True),
        "shuffled": human.sample(frac=1.0, random_state=rng.randint(0, 1000)),
        "NaN label": with_label(nan),
        "float labels": with_label(labels.astype(float)),
        "string labels": with_label(labels.astype(str)),
        "negative labels": with_label(-labels),
        "int qids": human.assign(qid=human["qid"].astype(int)),
        "float qids": human.assign(qid=human["qid"].astype(float)),
        "categorical docno": human.assign(docno=human["docno"].astype("category")),
        "extra columns": human.assign(iteration="Q0", note="seen", score=rng.random()),
        "trec column names": human.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
        "missing label column": human.drop(columns="label"),
        "missing docno column": human.drop(columns="docno"),
        "empty": human.iloc[:0],
        "unsampled pair": pd.concat([human, unsampled.iloc[[0]].assign(label=0)], ignore_index=True),
        "None docno": human.assign(docno=[None if i == 0 else d for i, d in enumerate(human["docno"])]),
        "index kept": human.set_index(["qid", "docno"]),
        "probability column": human.assign(inclusion_probability=np.where(
            np.arange(n) == 0, np.nan, plan.sample["inclusion_probability"].to_numpy())),
    } | odd


# mutations that keep every pair and label: a result, the same as from the frame as made
HARMLESS = {"shuffled", "float labels", "string labels", "int qids", "categorical docno", "extra columns",
            "trec column names"}
# mutations that lose or invent labels: a ValueError
REFUSED = {"dropped rows", "NaN label", "missing label column", "missing docno column", "empty", "unsampled pair",
           "None docno", "probability column", "duplicated conflicting", "odd label 1.5", "odd label None"}


@pytest.mark.parametrize("seed", range(4))
def test_mutated_human_qrels_give_a_result_or_a_clean_error(small, seed):
    _, _, _, plan, human = small
    base = _evaluate(small, measures=("AP", "P@5"))
    outcomes = {}
    for name, frame in _mutations(human, plan, random.Random(seed)).items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ptb.BootWarning)  # any warning is fine here: we look at errors
                res = _evaluate(small, frame, measures=("AP", "P@5"))
        except (ValueError, TypeError) as error:
            assert str(error), name
            outcomes[name] = "error"
            continue
        except Exception:  # the point of the test: nothing else may escape
            pytest.fail(f"mutation {name!r} raised an unexpected exception:\n{traceback.format_exc()}")
        outcomes[name] = "result"
        if name in HARMLESS:
            for kind in KINDS:
                np.testing.assert_allclose(res.estimates[kind], base.estimates[kind], rtol=0, atol=1e-12,
                                           err_msg=name)
    assert all(outcomes[name] == "result" for name in HARMLESS), outcomes
    assert all(outcomes[name] == "error" for name in REFUSED), outcomes


# ---------------------------------------------------------------- real data: TREC DL 2020


@pytest.fixture(scope="module")
def dl2020():
    folder = shared_path("trec-dl-2020-passage")
    qrels = ptb.read_qrels(folder / "qrels.dl20-passage.txt").frame
    judge = ptb.read_qrels(shared_path("llm-judgments", "binary_gpt4o_dl20.txt.gz")).frame
    runs = ptb.read_runs(folder / "runs")
    chosen = dict(list(runs.items())[:: len(runs) // 5][:5])
    # the judge's 1 as the human 2, so that rel=2 measures see its relevant labels
    return chosen, judge.assign(label=2 * judge["label"]), qrels


@pytest.mark.slow
def test_dl2020_every_pair_judged_gives_ir_measures_values(dl2020):
    runs, auto, truth = dl2020
    plan = ptb.judging_plan(runs, auto, 1.0, strategy="uniform", design="poisson", rng=1)
    labels = ["AP(rel=2)", "nDCG@10", "nDCG", "P(rel=2)@10", "RR(rel=2)", "R(rel=2)@100", "Rprec(rel=2)"]
    res = ptb.ppi_evaluate(runs, auto, _human(plan, truth), labels, plan=plan)
    values = _per_query(res)
    for m, label in enumerate(labels):
        for name, run in runs.items():
            for qid, expected in _ir_measures(label, truth, run).items():
                assert values["ppi", res.measures[m], name, qid] == pytest.approx(expected, abs=1e-12), (
                    label, name, qid)


@pytest.mark.slow
def test_dl2020_partial_sample_matches_the_reference(dl2020):
    runs, auto, truth = dl2020
    runs = dict(list(runs.items())[:2])
    plan = ptb.judging_plan(runs, auto, 0.1, rng=2)
    human = _human(plan, truth)
    labels = ["AP(rel=2)", "nDCG@10", "RR(rel=2)@10"]  # the reference's RR is cubic in the depth it reads
    res = ptb.ppi_evaluate(runs, auto, human, labels, plan=plan, n_replicates=20, rng=2)
    values = _per_query(res)
    given = dict(zip(zip(human["qid"], human["docno"]), human["label"], strict=True))
    judged = set(zip(auto["qid"].astype(str), auto["docno"].astype(str)))
    factors = _replicate_factors(plan, 20, 2)  # nDCG's bias correction reads them
    for m, label in enumerate(labels):
        reference, used = _reference(runs, plan.pool, given, MEASURES[label], "ppi", None, judged=judged,
                                     factors=factors, stratified=plan.design == "stratified")
        assert res.lam[m] == pytest.approx(used, abs=1e-12)
        for (name, qid), expected in reference.items():
            assert values["ppi", res.measures[m], name, qid] == pytest.approx(expected, abs=1e-12), (label, name, qid)

