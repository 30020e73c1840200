"""Post-stratified normalisers (pyterrier_boot.judging.poststrata): the merging of sparse classes,
the Hajek totals, the fallbacks, checked against sums written out by hand."""
import numpy as np

from pyterrier_boot.judging.poststrata import MIN_SAMPLED, post_strata


def _members(strata, topic):
    """Per post-stratum of ``topic``: the sorted judge's classes in it."""
    return sorted(sorted(set(strata.judge_class[strata.stratum == s].tolist()))
                  for s in np.flatnonzero(strata.topic == topic))


def test_sparse_classes_above_0_are_merged_from_the_highest_label_down():
    # topic 0: labels 3 (1 sampled), 2 (1), 1 (2): one group; topic 1: 3 (3 sampled) alone, then 2
    # (0) and 1 (1), too few, join it; topic 2: 3 (3), 1 (4): two groups
    label = np.array([3, 2, 1, 1, 0, 3, 3, 3, 2, 1, 0, 3, 3, 3, 1, 1, 1, 1, 0])
    topic = np.array([0] * 5 + [1] * 6 + [2] * 8)
    sampled = np.array([1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], bool)
    strata = post_strata(topic, label, None, sampled)
    # classes: 0 not labelled, 1 labelled 0, 2.. the labels 1, 2, 3
    assert _members(strata, 0) == [[1], [2, 3, 4]]
    assert _members(strata, 1) == [[1], [2, 3, 4]]
    assert _members(strata, 2) == [[1], [2], [4]]
    assert MIN_SAMPLED == 3


def test_pairs_the_judge_did_not_label_are_a_class_of_their_own():
    label = np.zeros(4, np.int64)
    strata = post_strata(np.zeros(4, np.int64), label, np.array([True, True, False, False]), np.ones(4, bool))
    assert _members(strata, 0) == [[0], [1]]
    assert _members(post_strata(np.zeros(4, np.int64), label, None, np.ones(4, bool)), 0) == [[1]]


def test_totals_are_each_post_stratum_size_times_its_weighted_mean():
    # one topic: judge says 2 for pairs 0-3 (3 sampled: human 2, 0, 2 at pi 0.5, 0.25, 1), 0 for 4-7
    label = np.array([2, 2, 2, 2, 0, 0, 0, 0])
    sampled = np.array([1, 1, 1, 0, 1, 1, 1, 0], bool)
    pi = np.array([0.5, 0.25, 1.0, 0.5, 0.5, 0.5])
    human = np.array([2, 0, 2, 0, 2, 0])
    strata = post_strata(np.zeros(8, np.int64), label, None, sampled)
    f_auto, f_human = (label == 2).astype(float), (human == 2).astype(float)
    got = strata.totals(f_auto, f_human, sampled, 1.0 / pi[None])
    above = 4 * (2 + 0 + 1) / (2 + 4 + 1)  # size x Hajek share among the judge's 2s
    at_zero = 4 * (0 + 2 + 0) / (2 + 2 + 2)
    np.testing.assert_allclose(got, [[above + at_zero]])
    # design replicates: each row its own weights (here the second human 2 of the judge's 2s weighs 0)
    weights = np.vstack([1.0 / pi, [2.0, 4.0, 0.0, 2.0, 2.0, 2.0]])
    replicate = 4 * 2 / (2 + 4) + at_zero
    np.testing.assert_allclose(strata.totals(f_auto, f_human, sampled, weights), [[above + at_zero], [replicate]])


def test_a_post_stratum_without_a_sampled_pair_borrows_its_class_mean_or_keeps_the_judge_total():
    # topic 0: the judge's 2s sampled (one of two relevant); topic 1: its 2s not sampled, its 0s are
    label = np.array([2, 2, 0, 0, 2, 2, 2, 0, 0])
    topic = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1])
    sampled = np.array([1, 1, 1, 0, 0, 0, 0, 1, 1], bool)
    human = np.array([2, 0, 0, 0, 0])
    f_auto, f_human = (label == 2).astype(float), (human == 2).astype(float)
    strata = post_strata(topic, label, None, sampled, minimum=1)
    weights = np.ones((1, sampled.sum()))
    borrowed = strata.totals(f_auto, f_human, sampled, weights)
    np.testing.assert_allclose(borrowed, [[2 * 0.5 + 0.0, 3 * 0.5 + 0.0]])
    kept = strata.totals(f_auto, f_human, sampled, weights, borrow=False)
    np.testing.assert_allclose(kept, [[1.0, 3.0]])  # topic 1: the judge's three 2s


def test_with_every_pair_sampled_the_totals_are_the_human_ones():
    rng = np.random.default_rng(3)
    label, human = rng.integers(0, 4, 200), rng.integers(0, 4, 200)
    topic = np.sort(rng.integers(0, 7, 200))
    labelled = rng.random(200) < 0.7
    strata = post_strata(topic, label, labelled, np.ones(200, bool))
    for level in range(4):
        got = strata.totals((label == level).astype(float), (human == level).astype(float), np.ones(200, bool),
                            np.ones((1, 200)))
        np.testing.assert_allclose(got[0], np.bincount(topic, weights=human == level, minlength=7), atol=1e-9)


def test_a_class_sampled_nowhere_keeps_the_judge_total_and_an_empty_merged_group_borrows_per_class():
    # topic 0: labels 3 and 2 merged (2 sampled pairs in all); topic 1: its 3 and 2 unsampled (one
    # empty merged group: each class borrows its own share); the not-labelled class is sampled nowhere
    label = np.array([3, 2, 2, 0, 0, 3, 2, 2, 0, 0])
    labelled = np.array([1, 1, 1, 1, 0, 1, 1, 1, 1, 0], bool)
    topic = np.array([0] * 5 + [1] * 5)
    sampled = np.array([1, 1, 0, 1, 0, 0, 0, 0, 1, 0], bool)
    human = np.array([3, 3, 0, 1])  # of the sampled pairs, in pool order
    strata = post_strata(topic, label, labelled, sampled)
    f_auto, f_human = (label == 3).astype(float), (human == 3).astype(float)
    got = strata.totals(f_auto, f_human, sampled, np.ones((1, 4)))
    # topic 0: the group {3, 2} of 3 pairs, both sampled ones at 3: 3; labelled 0 (1 sampled, not 3): 0;
    # not labelled, sampled nowhere: the judge's 0. Topic 1: class 3 borrows 1 (one pair), class 2
    # borrows 1 (two pairs), labelled 0 its own 0, not labelled the judge's 0
    np.testing.assert_allclose(got, [[3.0, 1.0 + 2.0]])
    # a class sampled nowhere (the judge's 3, in topic 1 only) keeps the judge's total there
    label = np.array([2, 2, 0, 3, 2, 0])
    sampled = np.array([1, 1, 1, 0, 0, 1], bool)
    strata = post_strata(np.array([0, 0, 0, 1, 1, 1]), label, None, sampled)
    f_auto, f_human = (label == 3).astype(float), np.array([1.0, 0.0, 0.0, 0.0])  # people: 3, 2, 0, 0
    np.testing.assert_allclose(strata.totals(f_auto, f_human, sampled, np.ones((1, 4))), [[2 * 0.5, 1.0 + 0.5]])
