"""Argument checks shared by every subpackage (private).

Every public function validates its own arguments in one ``_<name>_iv`` function built from these
helpers, so user errors are ``ValueError``/``TypeError`` naming the argument, never a traceback from
deep inside numpy or pandas.
"""
import numbers

import numpy as np

ALTERNATIVES = ("two-sided", "less", "greater")
NAN_POLICIES = ("raise", "omit")
#: Largest score magnitude accepted: sums and squares of scores (and of their differences) over
#: up to millions of topics then stay finite in float64.
LARGEST_SCORE = 1e150
#: Smallest spread accepted: scores (or differences) whose nonzero values are all below this
#: have a variance that underflows to 0 in float64.
SMALLEST_SPREAD = 1e-150


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``, else raise a ValueError listing them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name!r} must be one of {listed}; got {value!r}")
    return value


def check_confidence_level(confidence_level, name="confidence_level"):
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"{name!r} must be a number in (0, 1), got {type(confidence_level).__name__}")
    level = float(confidence_level)
    if not 0 < level < 1:
        raise ValueError(f"{name!r} must be in (0, 1), got {confidence_level}")
    return level


def check_alpha(alpha, name="alpha"):
    return check_confidence_level(alpha, name=name)


def check_eps(eps, name="eps"):
    """``eps`` (the clipping ε of logits and logs) as a float in (0, 0.5)."""
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"{name!r} must be a number in (0, 0.5), got {type(eps).__name__}")
    if not 0 < float(eps) < 0.5:
        raise ValueError(f"{name!r} must be in (0, 0.5), got {eps}")
    return float(eps)


def check_positive_int(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name!r} must be an integer >= {minimum}, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name!r} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_batch(batch):
    if batch is None:
        return None
    return check_positive_int(batch, "batch")


def is_pandas(obj, kind):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(obj, getattr(pd, kind))


def as_float_array(values, name):
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name!r} must hold numeric scores, got {np.asarray(values).dtype} values") from None
    return arr


def check_magnitude(values, name):
    """Refuse scores so large that sums and variances of them overflow (never a silent inf/nan)."""
    largest = float(np.abs(values).max(initial=0.0))
    if largest > LARGEST_SCORE:
        raise ValueError(
            f"{name!r} has scores as large as {largest:.3g} in magnitude: sums and variances of such "
            f"numbers overflow float64 (the limit is {LARGEST_SCORE:.0e}); rescale the scores, e.g. divide "
            "them by a power of 10"
        )


def check_spread(values, name, what="scores"):
    """Refuse rows of ``values`` whose nonzero entries are all tiny: their variance underflows to 0."""
    scale = np.abs(np.atleast_2d(values)).max(axis=-1, initial=0.0)
    tiny = (scale > 0) & (scale < SMALLEST_SPREAD)
    if tiny.any():
        raise ValueError(
            f"{name} has {what} no larger than {float(scale[tiny][0]):.3g} in magnitude: their variance "
            f"underflows to 0 in float64 (the limit is {SMALLEST_SPREAD:.0e}); rescale them, e.g. multiply "
            "by a power of 10"
        )


def describe(labels, limit=8):
    labels = [label.item() if isinstance(label, np.generic) else label for label in labels]
    shown = ", ".join(repr(label) if isinstance(label, str) else str(label) for label in labels[:limit])
    more = f", ... ({len(labels)} in all)" if len(labels) > limit else ""
    return f"[{shown}{more}]"


def tolerance(observed):
    """Relative tie tolerance for comparing resampled statistics with the observed one (scipy's)."""
    return np.abs(observed) * (100 * np.finfo(float).eps)
