"""The measures known by name, and what to suggest for a name that is none of them.

One routine serves every door (:func:`~.parsing.parse_measures`, so ``evaluate``, the command line
and the report; and ``pt.boot.Experiment``'s ``MeasureError``): a cutoff glued to a trec_eval
family or a measure (``map_cut10``, ``P10``, ``ndcg10``) gets its trec_eval and its ir_measures
spelling (``'map_cut_10' or 'AP@10'``); another name gets the closest known name in its place
(``ndcg@10`` -> ``nDCG@10``, ``mapp`` -> ``map``). Junk after a cutoff is dropped (``ndcg@10x`` ->
``nDCG@10``). Every suggestion is itself a measure: a candidate that does not parse is never shown.
"""
from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

import ir_measures

from .sakai import REGISTRY as SAKAI_MEASURES

if TYPE_CHECKING:
    from typing import Any

#: trec_eval names ``ir_measures.parse_trec_measure`` understands (used for suggestions only).
TREC_NAMES = (
    "map", "map_cut", "ndcg", "ndcg_cut", "P", "recall", "recip_rank", "Rprec", "bpref",
    "success", "infAP", "num_ret", "num_rel", "num_rel_ret", "num_q", "set_P", "set_recall",
    "set_F", "set_map", "iprec_at_recall",
)

_GLUED_CUTOFF = re.compile(r"\s*([A-Za-z_]+?)[._@]?(\d+)\s*")
_JUNK_AFTER_CUTOFF = re.compile(r"(\d+)[^\d()]+$")


def measure_registry() -> dict[str, Any]:
    """Measures by name: ir_measures' and Sakai's (``Q``, ``nCG``; :mod:`.sakai`)."""
    return {**ir_measures.measures.registry, **SAKAI_MEASURES}


def suggest_measures(text: str) -> list[str]:
    """Known spellings close to ``text`` that parse as measures, best first (empty when none is close).

    Example:
        >>> suggest_measures("map_cut10")
        ['map_cut_10', 'AP@10']
        >>> suggest_measures("ndcg@10")
        ['nDCG@10']
        >>> suggest_measures("ndcg@10x")
        ['nDCG@10']
    """
    trimmed = _JUNK_AFTER_CUTOFF.sub(r"\1", text.strip())
    found = [trimmed] + _candidates(trimmed) if trimmed != text.strip() else []
    found = [s for s in found if _parses(s)] or [s for s in _candidates(text) if _parses(s)]
    return [s for s in dict.fromkeys(found) if s != text.strip()]


def _candidates(text: str) -> list[str]:
    """Spellings close to ``text`` (not checked): with a glued cutoff its trec_eval and ir_measures
    spellings, else the closest known name in place of its name."""
    glued = _GLUED_CUTOFF.fullmatch(text)
    if glued is not None:
        found = [s for s in _with_cutoff(*glued.groups()) if s != text.strip()]
        if found:
            return found
    head = re.match(r"\s*([A-Za-z_]\w*)", text)
    if head is None:
        return []
    ir_syntax = "@" in text or "(" in text
    match = _closest(head.group(1), list(measure_registry()) + ([] if ir_syntax else list(TREC_NAMES)))
    candidate = text.replace(head.group(1), match, 1) if match else text
    return [] if candidate == text else [candidate]


def _parses(spelling: str) -> bool:
    """Whether ``spelling`` is a measure :func:`~.parsing.parse_measure` accepts."""
    from .parsing import parse_measure  # parsing imports this module for its messages

    try:
        parse_measure(spelling)
    except (ValueError, TypeError, KeyError):
        return False
    return True


def did_you_mean(text: str) -> str:
    """``"; did you mean 'map_cut_10' or 'AP@10'?"`` for an unknown measure, or ``""``."""
    found = suggest_measures(text)
    return f"; did you mean {' or '.join(map(repr, found))}?" if found else ""


def _closest(name: str, names: list[str]) -> str | None:
    """``name`` in another case, else the closest of ``names`` ignoring case (difflib), else None;
    of names equal but for case, the one whose case is most like ``name``'s (``mapp``: ``map``)."""
    lowered: dict[str, list[str]] = {}
    for known in names:
        lowered.setdefault(known.lower(), []).append(known)
    key = name.lower() if name.lower() in lowered else next(
        iter(difflib.get_close_matches(name.lower(), list(lowered), n=1)), None)
    if key is None:
        return None
    return max(lowered[key], key=lambda known: sum(a.islower() == b.islower() for a, b in zip(known, name)))


def _with_cutoff(name: str, cutoff: str) -> list[str]:
    """The trec_eval family (``map_cut_10``, with its ir_measures name ``AP@10``) and the
    ir_measures measure (``nDCG@10``) closest to ``name`` that take ``cutoff``; names equal but for
    case first, and only those when there are any."""
    if int(cutoff) < 1:
        return []
    spellings = []  # (equal but for case, spellings)
    family = _closest(name, list(TREC_NAMES))
    if family is not None:
        try:
            parsed = ir_measures.parse_trec_measure(f"{family}_{cutoff}")
        except (ValueError, KeyError):
            parsed = []
        if len(parsed) == 1:
            spellings.append((family.lower() == name.lower(), [f"{family}_{cutoff}", str(parsed[0])]))
    registry = measure_registry()
    measure = _closest(name, list(registry))
    if measure is not None and "cutoff" in registry[measure].SUPPORTED_PARAMS:
        spellings.append((measure.lower() == name.lower(), [str(registry[measure](cutoff=int(cutoff)))]))
    exact = any(same for same, _ in spellings)
    return list(dict.fromkeys(s for same, found in spellings if same or not exact for s in found))
