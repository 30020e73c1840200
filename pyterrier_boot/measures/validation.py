"""The rules a measure's parameters must follow before any kernel or ir_measures provider sees it.

ir_measures checks only each parameter's Python type (and ``P@True`` passes, a bool being an
int), and its providers abort or raise from inside on values they do not expect: pytrec_eval
aborts the process on ``P@0`` and ``Success@0``, gdeval fails on ``ERR@0``, while ``nDCG@0``,
``RR@0`` or ``AP(rel=0)`` silently give numbers of some other measure. So every parameter is checked
here against the rule its meaning implies, and a violation is a ``ValueError`` naming the measure,
the parameter and the rule.
"""
from __future__ import annotations

import math
import numbers

import ir_measures

#: Largest cutoff: trec_eval and the kernels count ranks in 32-bit integers.
MAX_CUTOFF = 2**31 - 1


def _integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _cutoff(value):
    if not _integer(value) or not 1 <= value <= MAX_CUTOFF:
        return f"a positive integer (at most {MAX_CUTOFF})"
    return None


def _grade(value):
    if not _integer(value) or value < 1:
        return "a positive integer grade (the lowest grade counted relevant; 0 would count non-relevant documents)"
    return None


def _open_unit(value):
    return None if _real(value) and 0 < value < 1 else "a number strictly between 0 and 1"


def _closed_unit(value):
    return None if _real(value) and 0 <= value <= 1 else "a number from 0 to 1"


def _positive(value):
    return None if _real(value) and value > 0 else "a finite number greater than 0"


def _non_negative(value):
    return None if _real(value) and value >= 0 else "a finite number of at least 0"


def _non_negative_grade(value):
    return None if _integer(value) and value >= 0 else "an integer grade of at least 0"


def _flag(value):
    return None if isinstance(value, bool) else "True or False"


def _gains(value):
    rule = "a dict from integer grades to finite gains, e.g. {0: 0, 1: 1, 2: 3}"
    if not isinstance(value, dict) or not value:
        return rule
    if not all(_integer(k) and _real(v) for k, v in value.items()):
        return rule
    return None


# parameter -> rule; which parameters a measure accepts is ir_measures' SUPPORTED_PARAMS
_RULES = {
    "cutoff": _cutoff,
    "rel": _grade,
    "p": _open_unit,
    "T": _positive,
    "beta": _non_negative,
    "alpha": _closed_unit,
    "recall": _closed_unit,
    "min_rel": _non_negative_grade,
    "max_rel": _non_negative_grade,
    "judged_only": _flag,
    "normalize": _flag,
    "relative": _flag,
    "gains": _gains,
}
# (parameter, measure) whose rule differs from the parameter's usual one: NRBP's beta is a persistence
_EXCEPTIONS = {("beta", "NRBP"): _closed_unit, ("beta", "nNRBP"): _closed_unit}


def check_measure(measure: ir_measures.Measure, label: str) -> ir_measures.Measure:
    """``measure`` with every parameter checked (integers given for real parameters become floats).

    Raises:
        ValueError: an unknown parameter, a missing required one, or a value breaking its rule;
            the message names ``label``, the parameter and the rule.
    """
    params = dict(measure.params)
    supported = measure.SUPPORTED_PARAMS
    unknown = sorted(set(params) - set(supported))
    if unknown:
        raise ValueError(
            f"measure {label!r}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"{measure.NAME} accepts {_accepted(measure)}"
        )
    coerced = {}
    for name, info in supported.items():
        if name not in params:
            if info.required:
                raise ValueError(f"measure {label!r}: parameter {name!r} is required ({_written(measure, name)})")
            continue
        value = params[name]
        if info.dtype is float and _integer(value):
            value = coerced[name] = float(value)
        rule = _EXCEPTIONS.get((name, measure.NAME), _RULES.get(name))  # type: ignore[arg-type]  # the rule tables are keyed by plain strings
        problem = rule(value) if rule is not None else _declared(info, value)
        if problem is not None:
            raise ValueError(f"measure {label!r}: {_name(name)} must be {problem}, got {value!r}")
    if "max_rel" in params and "min_rel" in supported:
        low = params.get("min_rel", supported["min_rel"].default)
        if low >= params["max_rel"]:
            raise ValueError(
                f"measure {label!r}: min_rel must be below max_rel, got min_rel={low!r}, max_rel={params['max_rel']!r}"
            )
    if coerced:
        measure = measure(**coerced)
    try:
        measure.validate_params()
    except AssertionError as error:  # anything ir_measures still objects to
        raise ValueError(f"measure {label!r}: {error}") from None
    return measure


def _declared(info, value):
    """The rule ir_measures declares for a parameter we have no rule for (e.g. nDCG's ``dcg``)."""
    if info.validate(value):
        return None
    choices = getattr(info, "choices", None)
    if isinstance(choices, (list, tuple, set, frozenset)):
        return f"one of {', '.join(map(repr, choices))}"
    return f"of type {getattr(info.dtype, '__name__', info.dtype)}"


def _name(param: str) -> str:
    """How the user wrote the parameter: ``the cutoff (@k)`` or ``rel``."""
    return "the cutoff (@k)" if param == "cutoff" else param


def _written(measure, param: str) -> str:
    if param == getattr(measure, "AT_PARAM", None):
        return f"e.g. {measure.NAME}@10" if param == "cutoff" else f"e.g. {measure.NAME}@0.5"
    return f"e.g. {measure.NAME}({param}=...)"


def _accepted(measure) -> str:
    names = [("@k" if n == "cutoff" else n) for n in measure.SUPPORTED_PARAMS]
    return ", ".join(names) if names else "no parameters"
