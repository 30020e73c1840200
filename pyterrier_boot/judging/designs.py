"""Inclusion probabilities and the random draw of a judging plan, on numpy arrays.

Strategies give each pool pair a weight; the targets are ``budget`` times the weights mixed with
the uniform design, capped at 1 with the excess shared out again, so that they sum to the budget
and none is below ``uniform_share * budget / N``. Designs draw the sample with those
probabilities exactly:

* ``"poisson"``: each pair independently with probability ``pi_i`` (Hajek 1964): exact per-pair
  probabilities, the simplest Horvitz-Thompson (1952) variance, a random sample size.
* ``"stratified"``: simple random sampling without replacement of ``n_h`` of the ``N_h`` pairs of
  each stratum (topic x automatic label x rank band), ``n_h`` allocated in proportion to the
  stratum's summed targets with at least ``min(2, N_h)`` per stratum so that each stratum's variance
  can be estimated (Cochran 1977, ch. 5): a fixed sample size and ``pi_i = n_h / N_h`` exactly.
  When the two per stratum would take more than half of the budget (:func:`strata_fit`), the
  default falls back to the Poisson design; an explicit stratified design merges the strata of the
  smallest summed targets into their nearest neighbour of the same topic until they take at most
  half, the other half following the targets (:func:`merge_strata`).

See pt_docs/ppi.md ("Judging plans") and pt_docs/methods.md for the formulas and references.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DESIGNS", "FREE_SHARE", "RANK_BANDS", "STRATEGIES", "allocate", "cap_at_one", "draw", "merge_strata", "rank_bands",
           "strata", "strata_fit", "topic_minimum", "strategy_weights", "target_probabilities"]

STRATEGIES = ("uniform", "stratified", "active")
DESIGNS = ("poisson", "stratified")
#: upper ends of the rank bands of the strata (best rank over the runs); then the rest of the top
#: ``depth``, then the pairs in no run's top ``depth`` (automatic qrels only)
RANK_BANDS = (10, 30)
#: the strata's two pairs each leave at least this share of the budget free to follow the targets;
#: when they would not, the default design is Poisson and an explicit stratified one merges the
#: smallest strata (measured on TREC DL 2020 at 20 labels per topic: merging only as far as the
#: budget allows left the allocation no room; nDCG@10 and AP covered 84% and 89% for the topics
#: estimand, against 91% and 96% with half free; merged strata covered less than the Poisson
#: design at 5 labels per topic, and on DL 2020 at 10% less for P@10 and for nDCG@10 (with its
#: bias corrected): pt_docs/ppi.md)
FREE_SHARE = 0.5


def strategy_weights(pool: pd.DataFrame, strategy: str) -> np.ndarray:
    """Each pair's weight under ``strategy``, summing to 1 (before the uniform mix).

    uniform: equal. stratified: the statAP prior, each topic answered by a run given the same total.
    active: the statAP prior times the judge's uncertainty ``sqrt(p (1 - p))`` (Zrnic & Candes 2024),
    so the budget goes where the judge is unsure in the ranks the measures look at."""
    n = len(pool)
    if strategy == "uniform":
        return np.full(n, 1.0 / n)
    weight = pool["prior"].to_numpy(float)
    if strategy == "active":
        p = pool["judge_probability"].to_numpy(float)
        if np.isnan(p).all():
            raise ValueError("strategy='active' needs the judge's probability of relevance: give 'auto_qrels' as a "
                             "frame with a 'probability' (or 'score') column in [0, 1]")
        weight = weight * np.sqrt(np.nan_to_num(p * (1.0 - p), nan=0.0))
    total = weight.sum()
    return weight / total if total > 0 else np.full(n, 1.0 / n)


def cap_at_one(weights: np.ndarray, size: float) -> np.ndarray:
    """``min(1, c * weights)`` with ``c`` such that the result sums to ``size`` (<= the number of
    positive weights): pairs above 1 are capped and their excess shared among the others in proportion."""
    capped = np.zeros(len(weights), bool)
    scale = 0.0
    while not capped.all():  # all capped: a budget of the whole pool
        scale = (size - capped.sum()) / weights[~capped].sum()
        over = ~capped & (weights * scale >= 1.0 - 1e-12)  # 1 less rounding is 1 (a pool of equal weights)
        if not over.any():
            break
        capped |= over
    return np.where(capped, 1.0, np.minimum(weights * scale, 1.0))


def target_probabilities(weights: np.ndarray, budget: int, uniform_share: float) -> np.ndarray:
    """Targets summing to ``budget``: ``budget * ((1 - s) * weights + s / N)`` capped at 1."""
    mixed = (1.0 - uniform_share) * weights + uniform_share / len(weights)
    return cap_at_one(mixed, float(budget))


def strata(pool: pd.DataFrame, depth: int, *, by_label: bool = True) -> np.ndarray:
    """The stratum (0, 1, ...) of every pair: topic x automatic label x rank band (topic x rank
    band without ``by_label``), numbered in that order."""
    label = pool["auto_label"] if by_label else np.zeros(len(pool), np.int64)
    keys = pd.MultiIndex.from_arrays([pool["qid"], label, rank_bands(pool, depth)])
    codes, _ = pd.factorize(keys, sort=True)
    return codes.astype(np.int64)


def rank_bands(pool: pd.DataFrame, depth: int) -> np.ndarray:
    """Each pair's rank band: 0 for best ranks 1-10, then 11-30, then the rest of the top ``depth``
    (:data:`RANK_BANDS`), and last the pairs in no run's top ``depth``."""
    rank = pool["rank"].to_numpy()
    edges = [edge for edge in RANK_BANDS if edge < depth]
    return np.where(rank == 0, len(edges) + 1, np.searchsorted(np.asarray(edges), rank, side="left"))


def merge_strata(pool: pd.DataFrame, depth: int, targets: np.ndarray, budget: int) -> np.ndarray | None:
    """Strata (as :func:`strata`), the smallest merged until their ``min(2, N_h)`` pairs leave
    :data:`FREE_SHARE` of ``budget`` free to follow the targets, or one stratum is left per topic;
    None when even that needs more than the budget.

    The stratum of the smallest summed target is merged into the nearest stratum of its topic (the
    same automatic label and the next rank band, else the next label), so strata stay within a topic."""
    stratum = strata(pool, depth)
    size = np.bincount(stratum).astype(float)
    if strata_fit(stratum, budget):
        return stratum
    first = np.unique(stratum, return_index=True)[1]  # a pair of each stratum
    topic = pd.factorize(pool["qid"].to_numpy()[first], sort=True)[0]
    label = pool["auto_label"].to_numpy(np.int64)[first].astype(float)
    band = rank_bands(pool, depth)[first].astype(float)
    into = _merge_order(topic, label, band, np.bincount(stratum, weights=targets), size, (1 - FREE_SHARE) * budget)
    merged = pd.factorize(into[stratum], sort=True)[0].astype(np.int64)
    return merged if np.minimum(2.0, np.bincount(merged)).sum() <= budget else None


def strata_fit(stratum: np.ndarray, budget: int) -> bool:
    """Whether the strata's ``min(2, N_h)`` pairs leave :data:`FREE_SHARE` of ``budget`` free."""
    return bool(np.minimum(2, np.bincount(stratum)).sum() <= (1 - FREE_SHARE) * budget)


def topic_minimum(pool: pd.DataFrame) -> int:
    """The fewest pairs a stratified design can draw: two per topic (one from a topic of one pair)."""
    return int(np.minimum(2, pool.groupby("qid", sort=False).size().to_numpy()).sum())


def _merge_order(topic, label, band, share, size, limit) -> np.ndarray:
    """Per stratum, the stratum it is merged into (itself when kept): merging stops when the
    strata need at most ``limit`` pairs or one is left per topic."""
    share, size = share.astype(float).copy(), size.astype(float).copy()
    into = np.arange(len(size))
    alive = np.ones(len(size), bool)
    while np.minimum(2.0, size[alive]).sum() > limit:
        crowded = alive & (np.bincount(topic[alive], minlength=topic.max() + 1)[topic] > 1)
        if not crowded.any():
            break
        h = np.flatnonzero(crowded)[np.argmin(share[crowded])]
        others = np.flatnonzero(alive & (topic == topic[h]) & (np.arange(len(size)) != h))
        distance = (label[others] != label[h]) * 1000.0 + np.abs(band[others] - band[h]) * 10.0 + \
            np.abs(label[others] - label[h])
        g = others[np.lexsort((share[others], distance))[0]]
        share[g] += share[h]
        size[g] += size[h]
        alive[h] = False
        into[into == h] = g
    return into


def allocate(targets: np.ndarray, stratum: np.ndarray, budget: int) -> np.ndarray:
    """``n_h`` of every stratum: in proportion to its summed targets, within ``[min(2, N_h), N_h]``,
    summing to ``budget`` (largest remainders). A ValueError when ``budget`` is below the minimum."""
    size = np.bincount(stratum).astype(float)
    low = np.minimum(2.0, size)
    if low.sum() > budget:
        raise ValueError(
            f"'budget' {budget} is below what design='stratified' needs: {int(low.sum())} pairs, two in each of its "
            f"{len(size)} strata (topic x automatic label x rank band; one in the {int((size == 1).sum())} strata of "
            "a single pair) so that every stratum's variance can be estimated; raise the budget or use "
            "design='poisson'")
    share = np.bincount(stratum, weights=targets)
    lo, hi = 0.0, 1.0
    while np.clip(hi * share, low, size).sum() < budget:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if np.clip(mid * share, low, size).sum() < budget else (lo, mid)
    real = np.clip(hi * share, low, size)
    whole = np.floor(real + 1e-9)
    missing = int(budget - whole.sum())
    if missing > 0:
        room = np.where(whole < size, real - whole, -np.inf)
        whole[np.argsort(-room, kind="stable")[:missing]] += 1
    elif missing < 0:
        room = np.where(whole > low, whole - real, -np.inf)
        whole[np.argsort(-room, kind="stable")[:-missing]] -= 1
    return whole.astype(np.int64)


def draw(probabilities: np.ndarray, stratum: np.ndarray, design: str, rng: np.random.Generator,
         take: np.ndarray | None = None) -> np.ndarray:
    """The sample (a boolean mask): Poisson with ``probabilities``, or ``take[h]`` pairs of every
    stratum ``h`` drawn without replacement."""
    keys = rng.random(len(probabilities))
    if design == "poisson":
        return keys < probabilities
    assert take is not None
    order = np.lexsort((keys, stratum))
    sorted_stratum = stratum[order]
    starts = np.searchsorted(sorted_stratum, sorted_stratum, side="left")
    position = np.arange(len(order)) - starts
    sampled = np.zeros(len(order), bool)
    sampled[order] = position < take[sorted_stratum]
    return sampled
