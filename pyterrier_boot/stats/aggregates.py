"""Aggregates of per-topic scores: the summary statistic whose interval or difference is wanted.

* ``"mean"``: the arithmetic mean (MAP, mean nDCG@10, ...).
* ``"gmean"``: Sakai's geometric mean (Sakai 2007, eq. 7; TREC Robust's GMAP),
  ``exp(mean(log(x + 1e-5))) - 1e-5``; the 1e-5 keeps zero scores finite.
* ``"logit_mean"``: Cormack & Lynam's L-MAP (2006, §8): the mean of ``logit(x)`` with scores clipped
  to ``[1e-5, 1 - 1e-5]`` (0 and 1 have no logit; the paper replaces them by ε and 1-ε without
  giving ε, so we use Sakai's 1e-5), reported back on the score scale as ``expit(mean(logit(x)))``.
* ``"median"``.
* any callable ``f(sample, axis=-1)`` returning the statistic along ``axis`` (scipy's convention);
  callables without an ``axis`` parameter are applied one resample at a time (slow).

Mean, gmean and logit_mean are *linear on a transformed scale*: a monotone transform, the arithmetic
mean, the inverse transform. Their bootstrap distributions are computed as matrix products of the
resample plan's weights with the transformed scores, and their t, studentised and BCa intervals use
closed forms on the transformed scale. The median and callables resample the scores themselves.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit, logit

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    from .._typing import FloatArray


EPS = 1e-5

__all__ = ["Aggregate", "gmean", "logit_mean", "get_aggregate", "AGGREGATES"]


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


def _median(x, axis=-1):
    return np.median(x, axis=axis)


def _log_eps(x):
    return np.log(np.asarray(x, dtype=float) + EPS)


def _exp_eps(m):
    return np.exp(m) - EPS


def _logit_eps(x):
    return logit(np.clip(np.asarray(x, dtype=float), EPS, 1 - EPS))


def gmean(x: npt.ArrayLike, axis: int = -1) -> FloatArray | float:
    """Sakai's geometric mean ``exp(mean(log(x + 1e-5))) - 1e-5`` (Sakai 2007, eq. 7).

    Example:
        >>> round(float(gmean([0.2, 0.5, 0.0])), 4)
        0.01
    """
    return _exp_eps(np.mean(_log_eps(x), axis=axis))


def logit_mean(x: npt.ArrayLike, axis: int = -1) -> float | FloatArray:
    """L-MAP (Cormack & Lynam 2006, §8): ``expit(mean(logit(clip(x, 1e-5, 1 - 1e-5))))``.

    Example:
        >>> round(float(logit_mean([0.5, 0.5])), 6)
        0.5
    """
    return expit(np.mean(_logit_eps(x), axis=axis))


@dataclass(frozen=True)
class Aggregate:
    """A summary statistic over topics.

    Attributes:
        name: the name shown in results.
        function: ``function(sample, axis=-1)``.
        forward, inverse: for statistics that are an arithmetic mean on a transformed scale
            (``inverse(mean(forward(x)))``); None for the others.
        domain: ``(low, high)`` allowed scores, or None.
    """

    name: str
    function: Callable
    forward: Callable | None = None
    inverse: Callable | None = None
    domain: tuple | None = None

    @property
    def linear(self) -> bool:
        """True when the statistic is an arithmetic mean on a transformed scale."""
        return self.forward is not None

    def __call__(self, sample, axis=-1):
        return self.function(sample, axis=axis)

    def check_domain(self, values: FloatArray, name: str = "scores") -> None:
        if self.domain is None:
            return
        low, high = self.domain
        if np.any(values < low) or np.any(values > high):
            raise ValueError(f"statistic={self.name!r} needs {name!r} in [{low}, {high}]; "
                             f"got values in [{np.min(values):g}, {np.max(values):g}]")


def _identity(x):
    return np.asarray(x, dtype=float)


AGGREGATES = {
    "mean": Aggregate("mean", _mean, _identity, _identity),
    "gmean": Aggregate("gmean", gmean, _log_eps, _exp_eps, domain=(0.0, np.inf)),
    "logit_mean": Aggregate("logit_mean", logit_mean, _logit_eps, expit, domain=(0.0, 1.0)),
    "median": Aggregate("median", _median),
}


def _takes_axis(func):
    try:
        return "axis" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def get_aggregate(statistic: str | Callable[..., Any] | Aggregate, name: str = "statistic") -> Aggregate:
    """The :class:`Aggregate` for a name in ``AGGREGATES``, a callable, or an Aggregate."""
    if isinstance(statistic, Aggregate):
        return statistic
    if isinstance(statistic, str):
        if statistic not in AGGREGATES:
            listed = ", ".join(repr(k) for k in AGGREGATES)
            raise ValueError(f"{name!r} must be one of {listed} or a callable; got {statistic!r}")
        return AGGREGATES[statistic]
    if callable(statistic):
        label = getattr(statistic, "__name__", "callable")
        if _takes_axis(statistic):
            return Aggregate(label, statistic)

        def along_axis(sample, axis=-1, _f=statistic):
            return np.apply_along_axis(_f, axis, sample)

        return Aggregate(label, along_axis)
    raise TypeError(f"{name!r} must be a string or a callable, got {type(statistic).__name__}")
