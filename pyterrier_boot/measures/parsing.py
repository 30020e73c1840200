"""Turning what users write (``"nDCG@10"``, ``"map"``, ``AP(rel=2)``) into measure objects.

Both ir_measures syntax and trec_eval names (as ``pt.Experiment`` accepts) are understood; the
label the user wrote is kept for output columns.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ir_measures
from ir_measures.measures import SumAgg

from .suggestions import did_you_mean, measure_registry
from .validation import check_measure

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import MeasureLike, MeasuresLike


@dataclass(frozen=True)
class LabelledMeasure:
    """A measure and the label under which its values are reported."""

    label: str
    measure: ir_measures.Measure

    def __str__(self):
        return self.label


def _literal(node, text):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"cannot read the parameter value {ast.unparse(node)!r} in measure {text!r}") from None


def _parse_expression(text):
    """Parse ir_measures syntax ``Name(param=value, ...)@cutoff`` into a measure, or None."""
    try:
        body = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    cutoff = None
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.MatMult):
        cutoff = _literal(body.right, text)
        body = body.left
    params = {}
    if isinstance(body, ast.Call):
        if body.args:
            raise ValueError(f"measure parameters must be named, as in 'RBP(p=0.8)': got {text!r}")
        params = {kw.arg: _literal(kw.value, text) for kw in body.keywords}
        body = body.func
    if not isinstance(body, ast.Name):
        return None
    measure = measure_registry().get(body.id)
    if measure is None:
        return None
    if cutoff is not None:
        params[measure.AT_PARAM] = cutoff
    return measure(**params) if params else measure


def parse_measure(measure: MeasureLike) -> list[LabelledMeasure]:
    """Parse one measure into a list of :class:`LabelledMeasure` (trec_eval families give several).

    Accepts an :class:`ir_measures.Measure`, ir_measures syntax (``"nDCG@10"``, ``"AP(rel=2)"``,
    ``"RBP(p=0.8)"``, ``"Q@1000"``) or a trec_eval name (``"map"``, ``"ndcg_cut_10"``, ``"P.10"``,
    ``"P_5,10"``). Strings keep their spelling as the label.
    """
    if isinstance(measure, LabelledMeasure):
        return [measure]
    if isinstance(measure, ir_measures.Measure):
        return [LabelledMeasure(str(measure), check_measure(measure, str(measure)))]
    if not isinstance(measure, str):
        raise TypeError(
            f"'measures' must hold strings or ir_measures measures, got {type(measure).__name__}: {measure!r}"
        )
    parsed = _parse_expression(measure)
    if parsed is not None:
        return [LabelledMeasure(measure, check_measure(parsed, measure))]
    try:
        family = ir_measures.parse_trec_measure(measure)
    except (ValueError, KeyError):
        family = []
    if len(family) == 1:
        return [LabelledMeasure(measure, check_measure(family[0], measure))]
    if family:
        return [LabelledMeasure(str(m), check_measure(m, str(m))) for m in family]
    raise ValueError(
        f"unknown measure {measure!r}: expected ir_measures syntax such as 'nDCG@10' or 'AP(rel=2)', "
        f"or a trec_eval name such as 'map' or 'ndcg_cut_10'{did_you_mean(measure)}"
    )


def parse_measures(measures: MeasuresLike) -> list[LabelledMeasure]:
    """Parse a measure or a list of them (see :func:`parse_measure`) into labelled measures.

    Example:
        >>> from pyterrier_boot import parse_measures
        >>> [(m.label, str(m.measure)) for m in parse_measures(["map", "nDCG@10"])]
        [('map', 'AP'), ('nDCG@10', 'nDCG@10')]
    """
    if isinstance(measures, (str, ir_measures.Measure, LabelledMeasure)):
        measures = [measures]
    try:
        items = list(measures)
    except TypeError:
        raise TypeError(f"'measures' must be a measure or a list of measures, got {type(measures).__name__}") from None
    if not items:
        raise ValueError("'measures' is empty: give at least one measure, e.g. ['AP', 'nDCG@10']")
    parsed = [lm for item in items for lm in parse_measure(item)]
    labels = [lm.label for lm in parsed]
    duplicated = sorted({label for label in labels if labels.count(label) > 1})
    if duplicated:
        raise ValueError(f"'measures' lists {', '.join(map(repr, duplicated))} more than once")
    return parsed


def require_mean_aggregated(measures: Sequence[LabelledMeasure], context: str = "a confidence interval") -> None:
    """Refuse measures summed over topics (NumRet, NumRel, NumQ, ...): a mean is meaningless for them."""
    summed = [lm.label for lm in measures if isinstance(lm.measure.aggregator(), SumAgg)]
    if summed:
        raise ValueError(
            f"{', '.join(map(repr, summed))} {'is' if len(summed) == 1 else 'are'} summed over topics, "
            f"not averaged, so {context} of a mean would be meaningless; remove "
            f"{'it' if len(summed) == 1 else 'them'} from 'measures'"
        )
