"""Resource guards shared by every resampling entry point (private).

Each entry point checks its resample count with :func:`check_n_resamples`, estimates the bytes it
would hold (the resample plan, the distributions it keeps, one chunk of working arrays) and calls
:func:`require_memory` before allocating anything. Work that streams (pairs of systems in chunks,
corpus images in batches) counts one chunk, not the whole. An estimate above ``max_memory`` (default
1 GiB, the corpus bootstrap's default too) is a ValueError that states the estimate and the fix,
never a numpy allocation traceback minutes later.

The resolution checks say when a resample count is too small to mean anything: an interval whose
tails hold less than one resample is the extreme resamples, and a resampling p-value cannot go
below ``1/(B+1)`` (Davison & Hinkley 1997, §4.2; Efron & Tibshirani 1993, §14.3 and §19).
"""
from __future__ import annotations

import math
import numbers
import sys

from ._warnings import BootWarning, report, warn

__all__ = ["DEFAULT_MAX_MEMORY", "check_max_memory", "check_n_resamples", "chunk_rows", "format_bytes", "plan_bytes",
           "require_memory", "require_resamples_memory", "warn_interval_resolution", "warn_pvalue_resolution"]

#: Default ``max_memory`` of every resampling function: 1 GiB.
DEFAULT_MAX_MEMORY = 2**30

#: ``max_memory`` for inner calls whose caller has checked the whole computation already.
NO_LIMIT = sys.maxsize

#: Bytes per (resample, topic) cell of a resample plan while it is drawn: numpy draws int64,
#: kept as int16/int32 indices or int8 signs (plus a boolean check of the signs).
PLAN_CELL_BYTES = 10

#: Cells (series x resamples) of one chunk of the streaming test cores: pairs of systems are
#: tested ``chunk_rows`` at a time.
CHUNK_CELLS = 1 << 22

# resamples in the tail of the interval below which it is the extreme resamples (percentile-type)
# or BCa's adjusted percentiles, which move further out, have too few resamples to rest on
_TAIL_RESAMPLES = {"bca": 5}


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_n_resamples(value, name: str = "n_resamples", minimum: int = 2) -> int:
    """``value`` as an int ``>= minimum``: a TypeError naming ``name`` for a float (``1e11``) or
    another non-integer, a ValueError for a negative or too small count."""
    if isinstance(value, bool) or not _is_integer(value):
        shown = f" {value:g}" if isinstance(value, float) else ""
        raise TypeError(f"{name!r} must be an integer >= {minimum}, got {type(value).__name__}{shown}"
                        + (" (pass an int)" if isinstance(value, float) else ""))
    if value < minimum:
        raise ValueError(f"{name!r} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_max_memory(value, name: str = "max_memory") -> int:
    """``max_memory`` in bytes: a positive integer."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name!r} must be a number of bytes (int), got {type(value).__name__}")
    if not _is_integer(value) and not (isinstance(value, float) and value.is_integer()):
        raise ValueError(f"{name!r} must be a whole number of bytes, got {value!r}")
    if value < 1:
        raise ValueError(f"{name!r} must be a positive number of bytes, got {value}")
    return int(value)  # type: ignore[call-overload]  # checked integral above


def format_bytes(n: float) -> str:
    """``1.5 GiB``-style size."""
    n = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{int(n)} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def require_memory(nbytes: float, max_memory: int, *, what: str, size: str, fix: str) -> None:
    """Raise a ValueError when ``nbytes`` exceed ``max_memory``.

    Args:
        nbytes: the estimate, in bytes.
        max_memory: the budget (already checked).
        what: what the memory is for (``"the topic bootstrap of 6 systems x 50 topics"``).
        size: the argument and value that drive it (``"n_resamples=100,000,000,000"``).
        fix: what to lower (``"lower n_resamples"``); ``" or raise max_memory"`` is appended.
    """
    if nbytes > max_memory:
        raise ValueError(f"{size} would need about {format_bytes(nbytes)} for {what}, more than "
                         f"max_memory={max_memory:,} bytes ({format_bytes(max_memory)}); {fix} or raise max_memory")


def chunk_rows(n_series: int, cells_per_series: int, cells: int = CHUNK_CELLS) -> int:
    """Series (pairs of systems) per chunk when each needs ``cells_per_series`` float cells: a
    multiple of 32 within ``cells``, at least 32, at most ``n_series``."""
    return int(min(n_series, max(32, (cells // max(1, cells_per_series)) // 32 * 32)))


def plan_bytes(n_resamples: int, n_topics: int) -> int:
    """Peak bytes of drawing a topic-bootstrap or sign-flip plan."""
    return PLAN_CELL_BYTES * n_resamples * n_topics


def require_resamples_memory(n_resamples: int, max_memory, *, what: str, plan_topics: int = 0,
                             floats: float = 0, extra: float = 0, name: str = "n_resamples",
                             size: str | None = None) -> int:
    """Check the memory of ``n_resamples`` resamples before any allocation; returns ``max_memory``.

    The estimate is a plan of ``plan_topics`` topics (0 when the caller gave its plan) plus
    ``floats`` float64 values per resample (distributions kept, one chunk of working arrays)
    plus ``extra`` bytes. ``size`` replaces ``"n_resamples=B"`` at the start of the message.
    """
    max_memory = check_max_memory(max_memory)
    nbytes = plan_bytes(n_resamples, plan_topics) + 8 * floats * n_resamples + extra
    require_memory(nbytes, max_memory, what=what, size=size or f"{name}={n_resamples:,}", fix=f"lower {name}")
    return max_memory


def warn_interval_resolution(n_resamples: int, confidence_level: float, alternative: str = "two-sided",
                             method: str = "percentile", *, name: str = "n_resamples") -> bool:
    """Warn when a bootstrap interval at ``confidence_level`` has too few resamples in its tails.

    A two-sided 95% percentile interval reads the 2.5% and 97.5% quantiles of ``B`` resamples: with
    ``B < 40`` fewer than one resample lies beyond each end, so the ends are the extreme resamples.
    BCa moves its percentiles further out and needs at least 5 resamples per tail.
    """
    tail = (1 - confidence_level) / (2 if alternative == "two-sided" else 1)
    need = _TAIL_RESAMPLES.get(method, 1)
    minimum = math.ceil(need / tail - 1e-9)  # not n_resamples * tail < need: 240 * (1 - 0.05 / 6) / 2 < 1 in floats
    if n_resamples < minimum:
        report(BootWarning,  # one warning per call of a public function, however many intervals it builds
               f"{name}={n_resamples} is too few for a {100 * confidence_level:g}% {method} interval: "
               f"{n_resamples * tail:.2g} resample(s) fall in each {100 * tail:g}% tail, so its ends are "
               f"{'the extreme resamples' if need == 1 else 'unreliable'}; use {name} >= {minimum:,}", [method])
        return True
    return False


def warn_pvalue_resolution(n_resamples: int, alpha: float = 0.05, *, exact: bool = False) -> bool:
    """Warn when a resampling p-value cannot go below ``alpha``: it is at least ``1/(B+1)``."""
    floor = 1 / n_resamples if exact else 1 / (n_resamples + 1)
    if floor >= alpha:
        minimum = math.floor(1 / alpha + 1e-9) + 1 if exact else math.floor(1 / alpha - 1 + 1e-9) + 1
        warn(BootWarning(
            f"n_resamples={n_resamples} gives p-values of at least {floor:.3g}"
            f"{'' if exact else ' = 1/(n_resamples+1)'}, so nothing can be significant at "
            f"alpha={alpha:g}; use n_resamples >= {minimum:,}"))
        return True
    return False
