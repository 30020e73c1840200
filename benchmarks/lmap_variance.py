"""Why the corpus-bootstrap L-MAP and G-MAP intervals are too wide on AP: measured per topic.

L-MAP (``mean logit(clip(AP, ε, 1 - ε))``) and G-MAP (``mean log(AP + ε)``), with ε = 1e-5, jump by
about 5-8 units when a (run, topic) cell loses every relevant document it retrieved (AP = 0). Their
image variance is dominated by those jumps, so it is only as good as the images' share of AP = 0,
``p = e^-k`` for a run that found ``k`` relevant documents (each vanishes with probability e^-1), as
an estimate of the chance that another corpus of the same size loses them all.

For ``--splits`` salted random document splits of a collection (the splits and images of
``split_half_validation(..., rng=--rng)``) this script prints

1. the calibration of the images' AP = 0 share: cells binned by ``p`` of half A, against the share
   of them with AP = 0 on half B;
2. for MAP, L-MAP and G-MAP and several per-topic variance rules: the *per-topic estimate* of the
   system-level sd(z), ``sqrt(mean over systems of Σ (x_B - x_A)² / Σ (v_A + v_B))`` over every
   split and topic (x on the statistic's scale, v the rule's variance of one topic; topics are
   independent, so this is E z² of the system mean), with its SE from a bootstrap over topics;
   and sd(z) of the system means themselves (their normal interval ``θ ± z sqrt(Σ v) / Q``), with
   the delete-a-split jackknife SE (``pooled_sd``);
3. the same with L-MAP and G-MAP defined with a larger ε, and sd(z) of the normal interval taken on
   the back-transformed image values (``expit`` / ``exp`` of each image's mean) instead of the mean
   logit / log.

Rules (``p`` the image share of AP = 0 of a cell with 0 < p < 1; the variance of the images split
into the AP = 0 jump and the rest, ``v = h(p) (m1 - m0)² + (1 - p) v1``):
``images`` (h = p(1 - p): the image variance, what the bootstrap normal interval sums),
``predictive`` (p -> 2^-(k+1) = p^ln2 / 2, the posterior predictive of a zero count with a flat prior
on the rate), ``Jeffreys`` (p -> 2^-(k+1/2)), ``moment`` (p -> p^(1/(1-1/e)), matching
``E e^-k = e^(-λ(1-1/e))``), ``double bootstrap`` (h = 2p(1-p) - (p^(1-1/e) - p^(1-1/e²)), the
bias-corrected Bernoulli variance).

Empirical-Bayes rules (issue #18; ``k`` the relevant documents a cell retrieved within the
measure's depth and relevance threshold on the half, :func:`relevant_counts`): ``k ~ Poisson(λ)``
with a prior on ``λ`` fitted by maximum likelihood over the cells of each collection half
(:func:`fit_prior`: ``gamma``, the negative-binomial marginal, or ``npmle``, a nonparametric prior on
a grid; ``by R``: one prior per stratum of the topic's R on the half), and ``q = E[e^-λ | k]`` the
chance that a replicate corpus loses all of them (:func:`zero_posterior`). ``EB gamma`` / ``EB
npmle``: ``p -> q`` in ``h = q(1 - q)``, plus for ``k = 0`` cells a jump to the topic's
one-relevant-document value; ``posterior``: ``h = E[e^-λ(1 - e^-λ) | k]``; ``half-MSE`` (the
candidate): each half carries half the expected squared distance of an exchangeable replicate from
its own value ``x``: ``v = q (x - m0)² / 2 + (1 - q) v1`` for ``k >= 1`` and ``v = (1 - q) t / 2``
for ``k = 0``, ``t`` the mean ``(x - m0)²`` of the topic's cells with the fewest relevant
documents retrieved (:func:`eb_variance`); so ``E Σ (v_A + v_B) = E Σ (x_B - x_A)²`` when ``q`` is
calibrated, however the zero indicators of the two halves are correlated. The package's
``variance="empirical_bayes"`` (:mod:`pyterrier_boot.corpus.empirical_bayes`) is this rule; the
script keeps its own implementation, with the alternatives, as a check of it. ``half-MSE, plug-in``:
``q = e^-k`` (no jump at ``k = 0``). Tables of the EB zero shares against half B are printed too.

Usage: python benchmarks/lmap_variance.py [--data ../shared/data] [--collection robust2003]
       [--splits 40] [--images 100] [--rng 2]
"""
import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import special

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
COLLECTIONS = {
    "robust2003": ("trec-robust2003", "qrels.robust2003.txt.gz", ["AP", "nDCG@10"]),
    "dl2019": ("trec-dl-2019-passage", "qrels.dl19-passage.txt", ["AP(rel=2)", "nDCG@10"]),
    "dl2020": ("trec-dl-2020-passage", "qrels.dl20-passage.txt", ["AP(rel=2)", "nDCG@10"]),
}
E1, E2 = 1 - np.exp(-1), 1 - np.exp(-2)
ZERO_SHARE = {
    "images": lambda p: p,
    "predictive": lambda p: 0.5 * p ** np.log(2),
    "Jeffreys": lambda p: 2**-0.5 * p ** np.log(2),
    "moment": lambda p: p ** (1 / E1),
}


def transform(scale, eps=1e-5):
    """The statistic's scale: scores, ε-clipped logits (L-MAP) or logs of AP + ε (G-MAP)."""
    if scale == "logit":
        return lambda x: special.logit(np.clip(x, eps, 1 - eps))
    if scale == "log":
        return lambda x: np.log(np.asarray(x, dtype=float) + eps)
    return lambda x: np.asarray(x, dtype=float)


def halves(args):
    """Full-half values and images of both halves of every split: lists of (stat [S,Q,M], images [B,S,Q,M])."""
    from pyterrier_boot import DegenerateWarning
    from pyterrier_boot._random import as_generator
    from pyterrier_boot.corpus.multiplicity import docno_hashes, salted_bits
    from pyterrier_boot.corpus.validation import _bootstrap_halves
    from pyterrier_boot.measures.evaluation import prepare

    warnings.simplefilter("ignore", DegenerateWarning)
    folder, qrels, measures = COLLECTIONS[args.collection]
    path = args.data / folder
    evaluator, read = prepare(path / "runs", path / qrels, measures, verbose=False)
    generator = as_generator(args.rng)  # the salts and image seeds of split_half_validation(rng=args.rng)
    salts = generator.integers(0, 2**62, size=args.splits)
    seeds = generator.integers(0, 2**62, size=(args.splits, 2))
    hashes = docno_hashes(evaluator.arrays.docnos)
    out, counts = [], []
    for salt, pair in zip(salts, seeds):
        a, b = _bootstrap_halves(read, evaluator, hashes, int(salt), pair, args.images)
        out.append(((a.statistic, a.bootstrap_distribution), (b.statistic, b.bootstrap_distribution)))
        in_a = salted_bits(hashes, int(salt)) == 0
        counts.append(tuple(relevant_counts(evaluator.arrays.restrict(keep), measures) for keep in (in_a, ~in_a)))
    return out, measures, counts


#: (relevance threshold, depth) within which a cell's relevant documents make the measure > 0
#: (depth 0: the whole ranking).
COUNTED = {"AP": (1, 0), "AP(rel=2)": (2, 0), "nDCG@10": (1, 10)}


def relevant_counts(arrays, measures):
    """Per measure: ``k [S, Q]``, the relevant documents each cell retrieved within the measure's
    depth (the measure is 0 on an image exactly when all of them vanish; for nDCG@10 the image's
    top 10 can also take documents from below rank 10), and ``R [Q]``, the topic's relevant documents."""
    from pyterrier_boot.measures.arrays import UNJUDGED

    S, Q = arrays.n_systems, arrays.n_topics
    cell = np.repeat(np.arange(S * Q), np.diff(arrays.run_offsets))
    within = np.arange(len(cell)) - arrays.run_offsets[cell]
    topic_of = np.repeat(np.arange(Q), np.diff(arrays.qrels_offsets))
    out = []
    for label in measures:
        rel, depth = COUNTED[label]
        code = arrays.code_at_least(rel)  # grades are stored as codes that compare as grades
        hit = (arrays.run_codes != UNJUDGED) & (arrays.run_codes >= code)
        if depth:
            hit &= within < depth
        k = np.bincount(cell[hit], minlength=S * Q).reshape(S, Q)
        out.append((k, np.bincount(topic_of[arrays.qrels_codes >= code], minlength=Q)))
    return out


def cell_variance(images, f, rule):
    """Per-cell variance ``[S, Q]`` of ``f(images)`` under ``rule`` (module docstring)."""
    x = f(images)
    zero = images <= 0
    p = zero.mean(axis=0)
    if rule == "images":
        return x.var(axis=0, ddof=1)
    n1 = (~zero).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        m1 = np.where(~zero, x, 0).sum(axis=0) / n1
        v1 = np.where(~zero, (x - m1) ** 2, 0).sum(axis=0) / np.maximum(n1 - 1, 1)
        if rule == "double bootstrap":
            h = np.maximum(0, 2 * p * (1 - p) - (p**E1 - p**E2))
        else:
            q = ZERO_SHARE[rule](p)
            h = q * (1 - q)
    jump = h * (m1 - f(np.zeros(1))[0]) ** 2 + (1 - p) * v1
    return np.where(p >= 1, 0.0, np.where(p > 0, jump, x.var(axis=0, ddof=1)))


#: The grid of the rates ``λ`` of the nonparametric prior (:func:`fit_prior`).
GRID = np.exp(np.linspace(np.log(1e-3), np.log(2e3), 120))


def fit_prior(kind, k):
    """Empirical-Bayes prior of the rate ``λ`` of a cell's count ``k ~ Poisson(λ)`` of relevant
    documents retrieved, fitted by maximum likelihood of the mixture over the cells ``k`` of one
    collection half. ``kind="gamma"``: ``λ ~ Gamma(a, rate b)`` (negative-binomial marginal);
    ``"npmle"``: any distribution on :data:`GRID` (Kiefer-Wolfowitz, by EM). Returns ``(weights on
    GRID or None, parameters)``; the chance that a replicate corpus loses them all,
    ``E[e^-λ | k]``, is :func:`zero_posterior`."""
    from scipy import optimize

    if kind == "plug-in":
        return None, None
    k = np.asarray(k, dtype=float).ravel()
    values, counts = np.unique(k, return_counts=True)
    if kind == "gamma":
        def nll(t):
            a, b = np.exp(t)
            return -np.sum(counts * (special.gammaln(values + a) - special.gammaln(a)
                                     + a * np.log(b / (b + 1)) - values * np.log(b + 1)))
        m, var = k.mean(), k.var()
        a0 = m * m / max(var - m, 0.1 * m * m)
        fit = optimize.minimize(nll, np.log([a0, a0 / m]), method="Nelder-Mead",
                                options=dict(xatol=1e-7, fatol=1e-9, maxiter=4000))
        return None, tuple(np.exp(fit.x))
    log_l = values[:, None] * np.log(GRID) - GRID - special.gammaln(values[:, None] + 1)
    like = np.exp(log_l - log_l.max(axis=1, keepdims=True))
    w = np.full(len(GRID), 1 / len(GRID))
    for _ in range(500):
        post = like * w
        w = (counts[:, None] * post / post.sum(axis=1, keepdims=True)).sum(axis=0) / counts.sum()
    return w, (float(w @ np.exp(-GRID)), float(w @ GRID))


def zero_posterior(k, prior, power=1):
    """``E[e^-jλ | k]`` (``j = power``; ``j = 1``: the chance that a replicate corpus loses all ``k``):
    Gamma(a, b) prior: ``((b + 1)/(b + 1 + j))^(a + k)`` (the posterior is Gamma(a + k, b + 1));
    nonparametric: ``Σ_i w_i λ_i^k e^-(1+j)λ_i / Σ_i w_i λ_i^k e^-λ_i``."""
    w, params = prior
    k = np.asarray(k, dtype=float)
    if params is None:  # plug-in: the images' e^-k
        return np.exp(-power * k)
    if w is None:
        a, b = params
        return ((b + 1) / (b + 1 + power)) ** (a + k)
    log_l = k[..., None] * np.log(GRID) - GRID
    post = np.exp(log_l - log_l.max(axis=-1, keepdims=True)) * w
    return (post * np.exp(-power * GRID)).sum(axis=-1) / post.sum(axis=-1)


#: Strata of a topic's relevant documents on the half (``R``) for stratified priors: lower bounds.
R_STRATA = (1, 3, 6, 11, 21, 51)


def zero_shares(kind, k, R, stratified=False):
    """``(E[e^-λ | k], E[e^-2λ | k])`` per cell ``[S, Q]``, the prior fitted over the half's cells
    (``stratified``: over the cells of the topics in the same :data:`R_STRATA` stratum of the half's
    R; topics with R = 0 on the half, whose cells all have k = 0 and say nothing of their rate, take
    the prior fitted over all cells)."""
    k = np.asarray(k)
    prior = fit_prior(kind, k)
    q, q2 = zero_posterior(k, prior), zero_posterior(k, prior, 2)
    if stratified:
        stratum = np.searchsorted(R_STRATA, R, side="right")  # 0: R = 0
        for j in range(1, len(R_STRATA) + 1):
            in_j = stratum == j
            if in_j.any():
                prior = fit_prior(kind, k[:, in_j])
                q[:, in_j], q2[:, in_j] = zero_posterior(k[:, in_j], prior), zero_posterior(k[:, in_j], prior, 2)
    return q, q2


def eb_variance(images, f, k, shares, jump=True, h="predictive", stat=None):
    """Per-cell variance ``[S, Q]`` under an empirical-Bayes zero share (rules ``EB ...``).

    Cells that retrieved ``k >= 1`` relevant documents: ``v = q(1 - q)(m1 - m0)² + (1 - p) v1`` with
    ``q = E[e^-λ | k]`` (:func:`zero_posterior`) instead of the images' share ``p``; ``m0 = f(0)``,
    ``m1`` / ``v1`` the mean / variance of the images with a value > 0. Cells with ``k = 0`` (every
    image 0): with ``jump``, ``v = q0(1 - q0)(m1* - m0)² + (1 - q0) v1*`` with ``q0 = E[e^-λ | 0]``
    and ``m1*`` / ``v1*`` the mean ``m1`` / ``v1`` of the topic's cells with the fewest relevant
    documents retrieved (``k = 1`` if any; the half's ``k = 1`` cells for a topic where no run found
    one): the value a one-relevant-document cell of that topic has; else 0. ``shares``: ``(q, q2)``
    of :func:`zero_shares`; ``h="posterior"`` uses ``q - q2`` for ``q(1 - q)``.

    ``h="half-MSE"`` (``stat`` the half's values ``[S, Q]``, ``x = f(stat)``): half the expected
    squared distance of an exchangeable replicate from ``x``: ``v = q (x - m0)² / 2 + (1 - q) v1``
    for ``k >= 1``; for ``k = 0`` (with ``jump``) ``v = (1 - q) t / 2``, ``t`` the mean of
    ``(x - m0)²`` over the topic's cells with the fewest relevant documents retrieved (the half's
    cells with the fewest, over all topics, for a topic where no run found one)."""
    x = f(images)
    m0 = f(np.zeros(1))[0]
    zero = images <= 0
    p = zero.mean(axis=0)
    n1 = (~zero).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        m1 = np.where(~zero, x, 0).sum(axis=0) / n1
        v1 = np.where(~zero, (x - m1) ** 2, 0).sum(axis=0) / np.maximum(n1 - 1, 1)
    v1 = np.where(n1 > 1, v1, 0.0)
    q, q2 = shares
    if h == "half-MSE":
        x_h = f(stat)
        v = np.where(k > 0, 0.5 * q * (x_h - m0) ** 2 + (1 - q) * v1, 0.0)
        if jump and (k == 0).any():
            found = k > 0
            kmin = np.where(found, k, np.iinfo(np.int64).max).min(axis=0)  # [Q]
            one = found & (k == kmin)
            jump2 = (x_h - m0) ** 2
            overall = jump2[found & (k == k[found].min())].mean()
            with np.errstate(invalid="ignore", divide="ignore"):
                t = np.where(one.any(axis=0), np.where(one, jump2, 0).sum(axis=0) / one.sum(axis=0), overall)
            v = np.where(k == 0, 0.5 * (1 - q) * t, v)
        return v
    hq = q * (1 - q) if h == "predictive" else q - q2
    v = np.where(k > 0, hq * np.where(n1 > 0, m1 - m0, 0) ** 2 + (1 - p) * v1, 0.0)
    if jump and (k == 0).any():
        found = (k > 0) & (n1 > 0)
        kmin = np.where(found, k, np.iinfo(np.int64).max).min(axis=0)  # [Q]
        one = found & (k == kmin)
        overall = found & (k == 1) if (found & (k == 1)).any() else found & (k == k[found].min())
        with np.errstate(invalid="ignore", divide="ignore"):
            t_m = np.where(one.any(axis=0), np.where(one, m1, 0).sum(axis=0) / one.sum(axis=0), m1[overall].mean())
            t_v = np.where(one.any(axis=0), np.where(one, v1, 0).sum(axis=0) / one.sum(axis=0), v1[overall].mean())
        v = np.where(k == 0, hq * (t_m - m0) ** 2 + (1 - q) * t_v, v)
    return v


#: Empirical-Bayes rules: name -> (prior, jump at k = 0, variance of the zero indicator). The
#: candidate rule is ``EB npmle, half-MSE``.
EB_RULES = {
    "EB gamma": ("gamma", True, "predictive"),
    "EB npmle": ("npmle", True, "predictive"),
    "EB npmle, posterior": ("npmle", True, "posterior"),
    "half-MSE, plug-in": ("plug-in", False, "half-MSE"),
    "EB gamma, half-MSE": ("gamma", True, "half-MSE"),
    "EB npmle, half-MSE": ("npmle", True, "half-MSE"),
    "EB npmle, half-MSE (no k = 0 jump)": ("npmle", False, "half-MSE"),
    "EB npmle by R, half-MSE": ("npmle by R", True, "half-MSE"),
}


def rule_figures(data, m, f, rule, rng, counts=None):
    """(per-topic estimate, its SE over topics, system sd(z), its jackknife SE over splits)."""
    from pyterrier_boot.corpus.validation import pooled_sd

    d2, v, z = [], [], []
    for i, ((sa, ia), (sb, ib)) in enumerate(data):
        xa, xb = f(sa[..., m]), f(sb[..., m])
        if rule in EB_RULES:
            kind, jump, h = EB_RULES[rule]
            (ka, Ra), (kb, Rb) = counts[i][0][m], counts[i][1][m]
            by_r = kind.endswith(" by R")
            kind = kind.removesuffix(" by R")
            va = eb_variance(ia[..., m], f, ka, zero_shares(kind, ka, Ra, by_r), jump, h, sa[..., m])
            vb = eb_variance(ib[..., m], f, kb, zero_shares(kind, kb, Rb, by_r), jump, h, sb[..., m])
        else:
            va, vb = cell_variance(ia[..., m], f, rule), cell_variance(ib[..., m], f, rule)
        d2.append((xb - xa) ** 2)
        v.append(va + vb)
        Q = xa.shape[1]
        z.append((xb.mean(axis=1) - xa.mean(axis=1)) / (np.sqrt(va.sum(axis=1) + vb.sum(axis=1)) / Q))
    a, b = np.sum(d2, axis=0), np.sum(v, axis=0)  # [S, Q]
    estimate = np.sqrt(np.mean(a.sum(axis=1) / b.sum(axis=1)))
    idx = rng.integers(0, a.shape[1], size=(500, a.shape[1]))
    se = np.sqrt(np.mean(a[:, idx].sum(axis=2) / b[:, idx].sum(axis=2), axis=0)).std(ddof=1)
    sd, sd_se = pooled_sd([np.concatenate([zi, -zi]) for zi in z])
    return estimate, se, sd, sd_se


def back_transformed(data, m, scale):
    """sd(z) and its SE of the normal interval on the image values of L-MAP / G-MAP themselves
    (score scale: ``expit`` / ``exp`` of each image's mean) instead of their mean logit / log."""
    from pyterrier_boot.corpus.validation import pooled_sd

    f = transform(scale)
    inverse = special.expit if scale == "logit" else (lambda x: np.exp(x) - 1e-5)
    z = []
    for (sa, ia), (sb, ib) in data:
        ta, tb = inverse(f(sa[..., m]).mean(axis=1)), inverse(f(sb[..., m]).mean(axis=1))
        se_a, se_b = (inverse(f(i[..., m]).mean(axis=2)).std(axis=0, ddof=1) for i in (ia, ib))
        z.append((tb - ta) / np.hypot(se_a, se_b))
    return pooled_sd([np.concatenate([zi, -zi]) for zi in z])


def zero_share_table(data, m, label):
    """Calibration of the images' AP = 0 share (both directions pooled)."""
    p, zb, zero_a = [], [], []
    for pair in data:
        for (sa, ia), (sb, _) in (pair, pair[::-1]):
            found = sa[..., m] > 0
            p.append((ia[..., m] <= 0).mean(axis=0)[found])
            zb.append((sb[..., m] <= 0)[found])
            zero_a.append((sb[..., m] <= 0)[~found])
    p, zb, zero_a = np.concatenate(p), np.concatenate(zb), np.concatenate(zero_a)
    print(f"\n{label}: share of AP = 0 in the images of half A (cells with AP_A > 0) and on half B\n")
    print("| images' AP = 0 share (half A) | cells | mean share | AP_B = 0 |")
    print("|---|---:|---:|---:|")
    for low, high in ((-1, 0), (0, 0.02), (0.02, 0.1), (0.1, 0.2), (0.2, 0.3), (0.3, 0.5), (0.5, 1)):
        c = (p > low) & (p <= high)
        if c.any():
            name = "0" if high == 0 else f"({low:g}, {high:g}]"
            print(f"| {name} | {c.sum()} | {p[c].mean():.3f} | {zb[c].mean():.3f} |")
    print(f"| AP_A = 0 (every image 0) | {len(zero_a)} | 1 | {zero_a.mean():.3f} |")


def eb_zero_share_table(data, counts, m, label):
    """Calibration of the empirical-Bayes chance of losing every relevant document retrieved: cells
    binned by ``k`` on half A, against the share of them with value 0 on half B (both directions
    pooled); and the fitted priors (mean ± SD over the halves)."""
    rows, gamma, npmle = [], [], []
    for pair, pair_counts in zip(data, counts):
        for (_, ia), (sb, _), (k, R) in ((*pair, pair_counts[0][m]), (pair[1], pair[0], pair_counts[1][m])):
            g, w = fit_prior("gamma", k), fit_prior("npmle", k)
            gamma.append(g[1])
            npmle.append([float(zero_posterior(j, w)) for j in range(4)])
            rows.append(np.stack(np.broadcast_arrays(
                k, (ia[..., m] <= 0).mean(axis=0), zero_posterior(k, g), zero_posterior(k, w),
                zero_shares("npmle", k, R, True)[0], sb[..., m] <= 0), axis=-1).reshape(-1, 6))
    r = np.concatenate(rows)
    gamma, npmle = np.array(gamma), np.array(npmle)
    print(f"\n{label}: fitted priors of the rate of relevant documents retrieved per cell (mean ± SD over halves):"
          f" Gamma a = {gamma[:, 0].mean():.3f} ± {gamma[:, 0].std():.3f}, rate b = {gamma[:, 1].mean():.4f} ± "
          f"{gamma[:, 1].std():.4f}; npmle E[e^-λ | k] for k = 0..3: "
          + ", ".join(f"{npmle[:, j].mean():.3f} ± {npmle[:, j].std():.3f}" for j in range(4)))
    print(f"\n{label}: chance of value 0 on half B, cells binned by the relevant documents retrieved on half A (k)\n")
    print("| k on half A | cells | images e^-k | EB gamma | EB npmle | EB npmle by R | observed on half B |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for low, high in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, np.inf)):
        c = (r[:, 0] >= low) & (r[:, 0] <= high)
        if c.any():
            name = f"{low}" if low == high else (f"{low}-{high:g}" if np.isfinite(high) else f">= {low}")
            print(f"| {name} | {c.sum()} | " + " | ".join(f"{r[c, j].mean():.3f}" for j in range(1, 6)) + " |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--collection", choices=list(COLLECTIONS), default="robust2003")
    parser.add_argument("--splits", type=int, default=40)
    parser.add_argument("--images", type=int, default=100)
    parser.add_argument("--rng", type=int, default=2)
    args = parser.parse_args(argv)
    if not (args.data / COLLECTIONS[args.collection][0]).exists():
        print(f"{args.collection} not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1
    data, measures, counts = halves(args)
    print(f"{args.collection}: {args.splits} splits x 2 halves x {args.images} images, rng={args.rng}")
    for m, label in enumerate(measures):
        zero_share_table(data, m, label)
        eb_zero_share_table(data, counts, m, label)
    print("\n| measure | statistic | rule | per-topic estimate of sd(z) ± SE (topics) | system sd(z) ± SE (splits) |")
    print("|---|---|---|---:|---:|")
    for m, label in enumerate(measures):
        for name, scale in (("mean", "score"), ("L-mean", "logit"), ("G-mean", "log")):
            for rule in (("images",) if scale == "score" else
                         ("images", *list(ZERO_SHARE)[1:], "double bootstrap", *EB_RULES)):
                e, se, sd, sd_se = rule_figures(data, m, transform(scale), rule, np.random.default_rng(0), counts)
                print(f"| {label} | {name} | {rule} | {e:.3f} ± {se:.3f} | {sd:.3f} ± {sd_se:.3f} |")
            for eps in ((1e-4, 1e-3, 1e-2) if scale != "score" else ()):
                e, se, sd, sd_se = rule_figures(data, m, transform(scale, eps), "images", np.random.default_rng(0))
                print(f"| {label} | {name}, ε = {eps:g} | images | {e:.3f} ± {se:.3f} | {sd:.3f} ± {sd_se:.3f} |")
            if scale != "score":
                sd, sd_se = back_transformed(data, m, scale)
                print(f"| {label} | {name} | normal on the back-transformed image values | | {sd:.3f} ± {sd_se:.3f} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
