"""The automatic labels on the people's scale: label maps, and what a measure's ``rel`` needs of them.

An LLM judge often answers 0/1 where people grade 0-3 and the measures count grade 2 as relevant
(TREC DL's ``AP(rel=2)``, trec_eval ``-l 2``). With 0/1 labels no automatic label reaches
``rel=2``, every automatic score is 0 and the automatic labels correct nothing. A *label map*
(``{1: 2}``: the judge's 1 read as grade 2; grades not named keep their value) puts them on the
people's scale. A judging plan records its map and applies it to the automatic qrels it is given,
so the qrels stay those the plan was made from.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["apply_label_map", "check_label_map", "compose_label_maps", "parse_label_map", "scale_advice",
           "unreached_measures"]


def check_label_map(label_map: object, name: str = "label_map") -> dict[int, int] | None:
    """``label_map`` as a dict of ints (None stays None); a TypeError naming ``name`` otherwise."""
    if label_map is None:
        return None
    if not isinstance(label_map, Mapping):
        raise TypeError(f"'{name}' must map automatic labels to the people's grades, e.g. {{1: 2}}, got "
                        f"{type(label_map).__name__}")
    out = {}
    for key, value in label_map.items():
        for part in (key, value):
            if isinstance(part, bool) or not isinstance(part, numbers.Integral):
                raise TypeError(f"'{name}' must map integer labels to integer grades, e.g. {{1: 2}}, got "
                                f"{key!r}: {value!r}")
        out[int(key)] = int(value)
    return dict(sorted(out.items()))


def parse_label_map(words: Sequence[str]) -> dict[int, int]:
    """``["1:2", "0:0"]`` (the command line's ``--label-map``) as ``{0: 0, 1: 2}``; a ValueError
    naming the bad word."""
    out = {}
    for word in words:
        key, sep, value = word.partition(":")
        try:
            out[int(key)] = int(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ValueError(f"--label-map takes LABEL:GRADE pairs of integers (1:2 reads the judge's 1 as grade 2), "
                             f"got {word!r}")
    return dict(sorted(out.items()))


def apply_label_map(frame: pd.DataFrame, label_map: Mapping[int, int] | None) -> pd.DataFrame:
    """``frame`` with its ``label`` column mapped (labels the map does not name are kept)."""
    if not label_map:
        return frame
    labels = frame["label"].to_numpy(np.int64)
    mapped = labels.copy()
    for key, value in label_map.items():
        mapped[labels == key] = value
    return frame.assign(label=mapped)


def compose_label_maps(first: Mapping[int, int] | None, then: Mapping[int, int]) -> dict[int, int]:
    """The map that applies ``first``, then ``then``."""
    first = dict(first or {})
    out = {key: then.get(value, value) for key, value in first.items()}
    out.update({key: value for key, value in then.items() if key not in first})
    return dict(sorted(out.items()))


def unreached_measures(labels: Sequence[str], rels: Sequence[int], top_auto: int) -> list[tuple[str, int]]:
    """The measures (label, rel) whose relevance threshold is above every automatic label."""
    return [(label, rel) for label, rel in zip(labels, rels) if rel > top_auto]


def scale_advice(top_auto: int, unreached: Sequence[tuple[str, int]]) -> str:
    """The one sentence that says what is wrong and what to do, for every door."""
    rel = max(r for _, r in unreached)
    names = ", ".join(label for label, _ in unreached)
    source = top_auto if top_auto >= 1 else 1
    return (f"no automatic label counts as relevant for {names} (the automatic labels reach {top_auto} at most, "
            f"relevant is from grade {rel}): put the automatic labels on the people's scale with a label map, "
            f"e.g. label_map={{{source}: {rel}}} in judging_plan, JudgingPlan.map_labels or ppi_evaluate "
            f"(command line: --label-map {source}:{rel})")
