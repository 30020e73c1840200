"""Compact letter display (Piepho 2004): hand-worked examples and the defining properties."""
import itertools
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyterrier_boot as ptb
from pyterrier_boot.stats.letters import _columns, compact_letter_display, letters_from_rejections


def _groups(letters):
    """letter -> set of systems (tokens: a letter, then an optional round number)."""
    import re

    groups = {}
    for name, text in letters.items():
        for token in re.findall(r"[A-Za-z][0-9]*", text):
            groups.setdefault(token, set()).add(name)
    return groups


def _maximal_cliques(names, rejected):
    """Brute force: the maximal sets of names with no rejected pair inside."""
    rejected = {frozenset(p) for p in rejected}
    free = [set(c) for r in range(1, len(names) + 1) for c in itertools.combinations(names, r)
            if not any(frozenset(p) in rejected for p in itertools.combinations(c, 2))]
    return {frozenset(c) for c in free if not any(c < d for d in free)}


METHODS = pytest.mark.parametrize("method", ["insert-absorb", "cover"])


@METHODS
def test_chain(method):
    assert letters_from_rejections(["x", "y", "z"], [("z", "x")], method=method) == {"x": "a", "y": "ab", "z": "b"}


@METHODS
def test_all_equal(method):
    assert letters_from_rejections(list("pqrs"), [], method=method) == dict.fromkeys("pqrs", "a")


@METHODS
def test_all_different(method):
    names = list("pqrs")
    assert letters_from_rejections(names, itertools.combinations(names, 2), method=method) == dict(zip(names, "abcd"))


@METHODS
def test_staircase(method):
    # 1..4 by mean; 1 differs from 3 and 4, 2 from 4: groups {1,2}, {2,3}, {3,4}
    letters = letters_from_rejections([1, 2, 3, 4], [(1, 3), (1, 4), (2, 4)], method=method)
    assert letters == {1: "a", 2: "ab", 3: "bc", 4: "c"}


@METHODS
def test_gramm_piepho_example(method):
    # Gramm, Guo, Hüffner, Niedermeier, Piepho & Schmid (2007), Fig. 2: n = 5 and significant
    # differences {1,5}, {2,3}, {2,5}, {3,5}; the groups are the maximal cliques {1,2,4},
    # {1,3,4}, {4,5} of the graph of non-significant pairs.
    letters = letters_from_rejections([1, 2, 3, 4, 5], [(1, 5), (2, 3), (2, 5), (3, 5)], method=method)
    assert letters == {1: "ab", 2: "a", 3: "b", 4: "abc", 5: "c"}


def test_cover_can_need_fewer_letters():
    # found by search over random 9-system cases: insert-absorb keeps all 10 maximal groups, the
    # cover needs 9 (both satisfy the defining property, checked by the property test below)
    rejected = [(0, 3), (0, 5), (1, 3), (1, 6), (1, 8), (2, 4), (2, 6), (2, 7), (3, 4), (4, 6), (4, 7), (5, 7)]
    full = letters_from_rejections(range(9), rejected, method="insert-absorb")
    small = letters_from_rejections(range(9), rejected)  # the default
    assert (len(_groups(full)), len(_groups(small))) == (10, 9)
    assert small == letters_from_rejections(range(9), rejected, method="cover")


def test_one_default_method_named_in_captions():
    from pyterrier_boot.stats.letters import DEFAULT_METHOD, letters_label

    assert DEFAULT_METHOD == "cover"
    assert letters_label() == letters_label("cover") == "compact letter display by clique cover, Gramm et al. 2007"
    assert letters_label("insert-absorb") == "compact letter display by insert-and-absorb, Piepho 2004"
    with pytest.raises(ValueError, match="'method' must be one of"):
        letters_label("greedy")


def test_letters_follow_order():
    # the best system's group gets "a", whatever the order the pairs come in
    letters = letters_from_rejections(["best", "mid", "worst"], [("worst", "best"), ("worst", "mid")])
    assert letters == {"best": "a", "mid": "a", "worst": "b"}
    letters = letters_from_rejections(["worst", "mid", "best"], [("worst", "best"), ("worst", "mid")])
    assert letters == {"worst": "a", "mid": "b", "best": "b"}


def test_more_than_52_groups():
    names = list(range(60))
    letters = letters_from_rejections(names, itertools.combinations(names, 2))
    assert letters[0] == "a" and letters[26] == "A" and letters[51] == "Z" and letters[52] == "a2"
    assert len(_groups(letters)) == 60


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.booleans(), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))),
    st.sampled_from(["insert-absorb", "cover"]))
def test_share_a_letter_exactly_when_not_rejected(case, method):
    n, flags = case
    names = [f"s{i}" for i in range(n)]
    pairs = list(itertools.combinations(names, 2))
    rejected = [p for p, f in zip(pairs, flags, strict=True) if f]
    letters = letters_from_rejections(names, rejected, method=method)
    groups = _groups(letters)
    for x, y in pairs:
        share = any(x in g and y in g for g in groups.values())
        assert share == ((x, y) not in rejected)
    assert all(letters[s] for s in names)  # every system has a letter
    # absorb: no group is inside another, so no letter can be dropped
    assert not any(g < h for g, h in itertools.permutations(groups.values(), 2))
    assert len({frozenset(g) for g in groups.values()}) == len(groups)
    # insert-and-absorb ends with exactly the maximal groups of indistinguishable systems
    columns = _columns(n, sorted((int(x[1:]), int(y[1:])) for x, y in rejected))
    assert {frozenset(f"s{k}" for k in range(n) if c >> k & 1) for c in columns} == _maximal_cliques(names, rejected)
    # and the sweep only removes letters from those groups
    assert all(any(g <= c for c in _maximal_cliques(names, rejected)) for g in groups.values())


@METHODS
def test_two_hundred_systems_quickly(method):
    rng = np.random.default_rng(0)
    means = np.sort(rng.random(200))[::-1]
    names = [f"run{i}" for i in range(200)]
    rejected = [(names[i], names[j]) for i, j in itertools.combinations(range(200), 2)
                if abs(means[i] - means[j]) > 0.08]
    start = time.perf_counter()
    letters = letters_from_rejections(names, rejected, method=method)
    assert time.perf_counter() - start < 2
    assert letters["run0"].startswith("a")
    groups = _groups(letters)
    flagged = set(map(frozenset, rejected))
    for g in groups.values():
        assert not any(frozenset(p) in flagged for p in itertools.combinations(g, 2))


def _scores():
    rng = np.random.default_rng(3)
    topic = rng.random(60)
    X = np.vstack([topic + 0.30, topic + 0.29, topic + 0.15, topic]) + rng.normal(0, 0.03, (4, 60))
    # one row per topic, one column per system
    return {"AP": pd.DataFrame(X.T, columns=["w", "x", "y", "z"]), "P@10": pd.DataFrame(X[::-1].T, columns=list("wxyz"))}


def test_from_compare():
    table = ptb.compare(_scores(), test="t")
    letters = ptb.compact_letter_display(table, measure="AP")
    assert letters.index.tolist() == ["w", "x", "y", "z"] and letters.name == "AP"
    assert letters.tolist() == ["a", "a", "b", "c"]
    other = compact_letter_display(table, measure="P@10")
    assert other.index.tolist() == ["z", "y", "x", "w"]  # by descending mean
    assert other.tolist() == ["a", "a", "b", "c"]
    ordered = compact_letter_display(table, measure="AP", order=["z", "y", "x", "w"])
    assert ordered.tolist() == ["a", "b", "c", "c"]


def test_agrees_with_reject_column():
    rng = np.random.default_rng(5)
    X = rng.random((7, 30)) * 0.3 + np.linspace(0, 0.25, 7)[:, None]
    table = ptb.compare({"AP": X}, test="t", correction="holm")
    letters = compact_letter_display(table)
    for a, b, reject in zip(table["system_a"], table["system_b"], table["reject"], strict=True):
        assert bool(set(letters[a]) & set(letters[b])) == (not reject)


def test_bad_input():
    table = ptb.compare(_scores(), test="t")
    with pytest.raises(ValueError, match="measure="):
        compact_letter_display(table)
    with pytest.raises(ValueError, match="'measure' 'nDCG'"):
        compact_letter_display(table, measure="nDCG")
    with pytest.raises(ValueError, match="all pairs"):
        compact_letter_display(ptb.compare(_scores(), test="t", baseline="w"), measure="AP")
    with pytest.raises(ValueError, match="'order'"):
        compact_letter_display(table, measure="AP", order=["w", "x"])
    with pytest.raises(ValueError, match="lacks the column"):
        compact_letter_display(table.drop(columns="reject"), measure="AP")
    with pytest.raises(TypeError, match="'pairwise'"):
        compact_letter_display(table.to_numpy())
    with pytest.raises(ValueError, match="not in 'names'"):
        letters_from_rejections(["a", "b"], [("a", "c")])
    with pytest.raises(ValueError, match="twice"):
        letters_from_rejections(["a", "a"], [])
    with pytest.raises(ValueError, match="'method'"):
        letters_from_rejections(["a", "b"], [], method="greedy")
