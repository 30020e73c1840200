"""Compact letter display: groups of systems that all-pairs tests cannot tell apart.

Piepho (2004), "An algorithm for a letter-based representation of all-pairwise comparisons",
J. Computational and Graphical Statistics 13(2); Gramm, Guo, Hüffner, Niedermeier, Piepho & Schmid
(2007), "Algorithms for compact letter displays: comparison and evaluation", CSDA 52(2). Each
letter is a group of systems no two of which differ significantly; two systems share a letter
exactly when their comparison does not reject.

Two ways to find the groups, one default for every door (:data:`DEFAULT_METHOD`: the leaderboard,
the report, ``ExperimentResult.display``/``to_latex``/``to_markdown`` and the command line), so the
same tests give the same letters everywhere, and every caption names the method
(:func:`letters_label`). The default is ``"cover"`` (Gramm et al. 2007): fewer letters, in time
polynomial in the systems. ``"insert-absorb"`` (Piepho 2004, the algorithm of R's multcompView)
lists every maximal group: on 200 close simulated systems 225 letters (up to 85 for one system)
in 235 s, against the cover's 132 (up to 32) in 0.2 s; on the 59 TREC DL 2020 runs, 27 groups
against 24 (nDCG@10). Both keep the display's meaning exactly (``pt_docs/leaderboard.md``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from string import ascii_letters
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas

__all__ = ["compact_letter_display", "letters_from_rejections", "letters_label", "DEFAULT_METHOD"]


def _columns(n: int, rejected: Iterable[tuple[int, int]]) -> list[int]:
    """Insert-and-absorb on bit sets: every column is a set of system positions."""
    columns = [(1 << n) - 1] if n else []
    for i, j in rejected:
        both = (1 << i) | (1 << j)
        kept = [c for c in columns if c & both != both]
        split = [c for c in columns if c & both == both]
        if not split:
            continue
        # insert: each column holding both i and j becomes one without i and one without j
        new = []
        for c in split:
            new += [c & ~(1 << i), c & ~(1 << j)]
        # absorb: a new column inside another column (old or new) is dropped; an old column cannot
        # lie inside a new one, as every new column lies inside a column that the old one was not in
        survivors = []
        for k, c in enumerate(new):
            inside = any(c | o == o for o in kept) or any(
                c | o == o and (c != o or m < k) for m, o in enumerate(new) if m != k)
            if not inside:
                survivors.append(c)
        columns = kept + survivors
    return columns


def _greedy_cover(n: int, rejected: Iterable[tuple[int, int]]) -> list[int]:
    """A clique cover of the pairs not rejected, built in the systems' order: for the first
    system with a pair not yet in any group, and its first such partner, a group grows by every
    later-or-earlier system (in order) compatible with all its members (Gramm et al. 2007)."""
    full = (1 << n) - 1
    compatible = [full & ~(1 << i) for i in range(n)]
    for i, j in rejected:
        compatible[i] &= ~(1 << j)
        compatible[j] &= ~(1 << i)
    uncovered = list(compatible)
    columns = []
    for i in range(n):
        if not compatible[i]:
            columns.append(1 << i)  # different from every other system: a letter of its own
        while uncovered[i]:
            j = (uncovered[i] & -uncovered[i]).bit_length() - 1
            members = (1 << i) | (1 << j)
            candidates = compatible[i] & compatible[j]
            for k in range(n):
                if candidates >> k & 1:
                    members |= 1 << k
                    candidates &= compatible[k]
            columns.append(members)
            rest = members
            while rest:
                k = (rest & -rest).bit_length() - 1
                uncovered[k] &= ~members
                rest &= rest - 1
    return columns


def _sweep(n: int, columns: list[int]) -> list[int]:
    """Piepho's sweep: drop a system's letter when every system it shares that letter with also
    shares another letter with it (and the system keeps at least one letter); then empty columns."""
    columns = list(columns)
    holding = [[k for k, c in enumerate(columns) if c >> i & 1] for i in range(n)]
    for k in range(len(columns)):
        for i in range(n):
            bit = 1 << i
            if not columns[k] & bit or len(holding[i]) < 2:
                continue
            cover = 0
            for m in holding[i]:
                if m != k:
                    cover |= columns[m]
            if columns[k] & ~bit & ~cover == 0:
                columns[k] &= ~bit
                holding[i].remove(k)
    return [c for c in columns if c]


#: how the groups are found: every maximal group (Piepho), or a small cover of the pairs (Gramm et al.)
METHODS = ("insert-absorb", "cover")
#: the method of every door unless asked otherwise (see the module docstring for why)
DEFAULT_METHOD = "cover"
_LABELS = {"cover": "compact letter display by clique cover, Gramm et al. 2007",
           "insert-absorb": "compact letter display by insert-and-absorb, Piepho 2004"}


def check_method(method: str, name: str = "method") -> str:
    """``method`` if it is one of :data:`METHODS`, else a ValueError naming the argument ``name``."""
    if method not in METHODS:
        raise ValueError(f"'{name}' must be one of {METHODS}, got {method!r}")
    return method


def letters_label(method: str = DEFAULT_METHOD) -> str:
    """What captions say of the letters found by ``method``, e.g. ``"compact letter display by
    clique cover, Gramm et al. 2007"``."""
    return _LABELS[check_method(method)]


def _letter(k: int) -> str:
    """``a..z, A..Z``, then ``a2..Z2``, ``a3``...: a letter, with a round number after the first 52."""
    letter, round_ = ascii_letters[k % 52], k // 52 + 1
    return letter if round_ == 1 else f"{letter}{round_}"


def letters_from_rejections(names: Sequence[str], rejected: Iterable[tuple[str, str]], *,
                            method: str = DEFAULT_METHOD) -> dict[str, str]:
    """Letters for ``names`` given the pairs whose comparison rejects (Piepho 2004).

    Args:
        names: the systems, best first: letters are given in this order, so ``"a"`` goes to the
            group of the first system.
        rejected: pairs ``(x, y)`` of names that differ significantly (either order).
        method: ``"cover"`` (default): a greedy cover of the pairs that are not rejected, grown
            in the order of ``names`` (Gramm et al. 2007): fewer letters, in polynomial time;
            ``"insert-absorb"`` (Piepho 2004, as R's multcompView): the groups are all the maximal
            groups of systems with no rejected pair among them, which with hundreds of close
            systems can be thousands. Both then sweep (Piepho 2004) and keep the defining property.

    Returns:
        dict name -> letter string (e.g. ``"ab"``), in the order of ``names``. Two systems share a
        letter exactly when their pair is not in ``rejected``. Piepho's sweep drops each letter a
        system does not need (every system it shares the letter with shares another one with it),
        so no group is contained in another. After the 52 letters ``a-z, A-Z`` come
        ``a2 ... Z2``, ``a3``...

    Example:
        >>> letters_from_rejections(["x", "y", "z"], [("x", "z")])
        {'x': 'a', 'y': 'ab', 'z': 'b'}
    """
    check_method(method)
    names = list(names)
    position = {}
    for k, name in enumerate(names):
        if name in position:
            raise ValueError(f"'names' has {name!r} twice")
        position[name] = k
    pairs = set()
    for pair in rejected:
        try:
            x, y = pair
        except (TypeError, ValueError):
            raise TypeError(f"'rejected' must hold pairs of names, got {pair!r}") from None
        for v in (x, y):
            if v not in position:
                raise ValueError(f"'rejected' names {v!r}, which is not in 'names'")
        if x == y:
            raise ValueError(f"'rejected' pairs {x!r} with itself")
        pairs.add((min(position[x], position[y]), max(position[x], position[y])))
    build = _columns if method == "insert-absorb" else _greedy_cover
    columns = build(len(names), sorted(pairs))
    # lexicographic on positions: the column holding the first system comes first and gets "a"
    columns.sort(key=lambda c: [k for k in range(len(names)) if c >> k & 1])
    columns = _sweep(len(names), columns)
    members = sorted([k for k in range(len(names)) if c >> k & 1] for c in columns)
    letters = {name: "" for name in names}
    for k, group in enumerate(members):
        for m in group:
            letters[names[m]] += _letter(k)
    return letters


def _one_measure(pairwise, measure):
    """The measure the letters are for: ``measure``, checked, or the table's only one."""
    measures = list(dict.fromkeys(pairwise["measure"]))
    if measure is None:
        if len(measures) != 1:
            raise ValueError(f"'pairwise' holds the measures {measures}: pass measure= to choose one")
        return measures[0]
    if measure not in measures:
        raise ValueError(f"'measure' {measure!r} is not in 'pairwise', which holds {measures}")
    return measure


def _verdicts(rows, systems, measure):
    """``{frozenset((a, b)): reject}`` for every pair of ``systems``, each exactly once."""
    import pandas as pd

    seen = {}
    for a, b, reject in zip(rows["system_a"], rows["system_b"], rows["reject"], strict=True):
        if a == b:
            raise ValueError(f"'pairwise' compares {a!r} with itself")
        key = frozenset((a, b))
        if key in seen:
            raise ValueError(f"'pairwise' has the pair {a!r}, {b!r} twice for {measure!r}")
        if pd.isna(reject):
            raise ValueError(f"'pairwise' has no verdict (reject is missing) for {a!r} vs {b!r}")
        seen[key] = bool(reject)
    n = len(systems)
    if len(seen) != n * (n - 1) // 2:
        raise ValueError(f"'pairwise' must compare all pairs of its {n} systems for {measure!r} "
                         f"(compare() without a baseline); it has {len(seen)} of {n * (n - 1) // 2}")
    return seen


def _best_first(rows, systems, order):
    """``order`` checked (each system once), or the systems by descending mean (ties: table order)."""
    if order is None:
        means: dict[str, float] = {}
        for col_s, col_m in (("system_a", "mean_a"), ("system_b", "mean_b")):
            for s, m in zip(rows[col_s], rows[col_m], strict=True):
                means.setdefault(s, m)
        return sorted(systems, key=lambda s: -means[s])
    order = list(order)
    if set(order) != set(systems) or len(order) != len(systems):
        raise ValueError(f"'order' must list each of the {len(systems)} systems of 'pairwise' once, got {order}")
    return order


def compact_letter_display(pairwise: pandas.DataFrame, *, measure: str | None = None,
                           order: Sequence[str] | None = None, method: str = DEFAULT_METHOD) -> pandas.Series:
    """Compact letter display of an all-pairs :func:`~pyterrier_boot.compare` table (Piepho 2004).

    Systems that share a letter are not significantly different under the table's test and
    correction (its ``reject`` column); systems with no letter in common are.

    Args:
        pairwise: ``ptb.compare(scores)`` without a baseline: one row per pair of systems, with
            columns ``measure, system_a, system_b, reject`` (and ``mean_a, mean_b`` unless
            ``order`` is given).
        measure: which measure, required when the table holds several.
        order: the systems, best first (letters follow it: ``"a"`` goes to the group of the first).
            Default: by descending mean.
        method: ``"cover"`` (default; Gramm et al. 2007) or ``"insert-absorb"`` (Piepho 2004),
            see :func:`letters_from_rejections`.

    Returns:
        pandas.Series of letter strings indexed by system, in ``order``, named after the measure.

    Example:
        >>> import numpy as np, pyterrier_boot as ptb
        >>> rng = np.random.default_rng(0)
        >>> topic = rng.random(50)
        >>> X = np.vstack([topic + 0.2, topic + 0.19, topic]) + rng.normal(0, 0.05, (3, 50))
        >>> ptb.compact_letter_display(ptb.compare({"AP": X}, test="t")).tolist()
        ['a', 'a', 'b']
    """
    import pandas as pd

    if not isinstance(pairwise, pd.DataFrame):
        raise TypeError(f"'pairwise' must be the DataFrame returned by compare(), got {type(pairwise).__name__}")
    needed = ["measure", "system_a", "system_b", "reject"] + ([] if order is not None else ["mean_a", "mean_b"])
    missing = [c for c in needed if c not in pairwise.columns]
    if missing:
        raise ValueError(f"'pairwise' lacks the column(s) {missing}; pass the table returned by compare()")
    measure = _one_measure(pairwise, measure)
    rows = pairwise[pairwise["measure"] == measure]
    systems = list(dict.fromkeys(list(rows["system_a"]) + list(rows["system_b"])))
    seen = _verdicts(rows, systems, measure)
    order = _best_first(rows, systems, order)
    letters = letters_from_rejections(order, [tuple(k) for k, r in seen.items() if r], method=method)
    return pd.Series([letters[s] for s in order], index=pd.Index(order, name="name"), name=measure)
