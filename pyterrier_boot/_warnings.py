"""Warning classes, so users can filter pyterrier_boot's warnings precisely, and one warning per kind.

Code that finds the same problem many times (in every run, every pair of systems, every measure)
calls :func:`report` once per finding; inside :func:`one_warning_per_kind` (a public entry point
decorated with it) the findings are pooled and, when the call returns, each kind becomes a single
warning that counts the cases, names the first few and keeps them all in its ``cases`` attribute::

    with warnings.catch_warnings(record=True) as caught:
        pb.compare(scores)
    caught[0].message.cases      # every pair the warning counts
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

#: How many cases a message names before "...".
SHOWN_CASES = 5


class BootWarning(UserWarning):
    """Base class of every warning pyterrier_boot emits.

    Attributes:
        cases: every case the warning counts (topics, runs, pairs of systems, ...), also those the
            message leaves out; empty for warnings about a single thing.
    """

    def __init__(self, message: str = "", cases: Iterable = ()):
        super().__init__(message)
        self.cases = tuple(cases)


class InputWarning(BootWarning):
    """Input was accepted but adjusted (topics dropped, labels clipped, ...): the message says how."""


class FallbackWarning(BootWarning):
    """A measure has no fast kernel and is computed by materialising images through ir_measures."""


class DegenerateWarning(BootWarning):
    """A statistic is degenerate (e.g. all paired differences equal); the result says what was returned."""


class FitWarning(BootWarning):
    """A statistical model did not converge, or its estimates are unreliable; the result is flagged."""


# (category, template) -> cases, while a decorated call runs; None outside
_pooled: ContextVar[dict | None] = ContextVar("pyterrier_boot_pooled_warnings", default=None)
# categories that report() drops, while a suppressed() block runs
_suppressed: ContextVar[tuple] = ContextVar("pyterrier_boot_suppressed_warnings", default=())


@contextlib.contextmanager
def suppressed(category: type[BootWarning] | None) -> Iterator[None]:
    """Drop the :func:`report` findings of ``category`` (and its subclasses) made inside the block:
    for inner work whose findings do not apply to what the caller shows (``None``: drop nothing).
    Warnings emitted directly are filtered with :func:`warnings.catch_warnings` as usual."""
    if category is None:
        yield
        return
    token = _suppressed.set(_suppressed.get() + (category,))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category)
            yield
    finally:
        _suppressed.reset(token)


def report(category: type[BootWarning], template: str, cases: Iterable) -> None:
    """Warn about ``cases`` that share one problem; pooled by :func:`one_warning_per_kind`.

    Args:
        category: the warning class.
        template: the message, with ``{n}`` for the number of cases and ``{cases}`` for the first
            few of them, e.g. ``"{n} topic(s) not in the qrels are ignored: {cases}"``. Cases with
            the same category and template make one warning.
        cases: what the problem was found in; nothing is reported when empty.
    """
    cases = list(cases)
    if not cases or issubclass(category, _suppressed.get()):
        return
    pooled = _pooled.get()
    if pooled is None:
        _emit(category, template, cases)
    else:
        pooled.setdefault((category, template), []).extend(cases)


@contextlib.contextmanager
def one_warning_per_kind() -> Iterator[None]:
    """Pool every :func:`report` made inside into one warning per (category, template).

    Used as a decorator on public functions; nested calls pool into the outermost one. Nothing is
    emitted when the call raises (the error is what the user needs to read).
    """
    if _pooled.get() is not None:
        yield
        return
    pooled: dict = {}
    token = _pooled.set(pooled)
    try:
        yield
    finally:
        _pooled.reset(token)
    for (category, template), cases in pooled.items():
        _emit(category, template, cases)


def warn(warning: BootWarning) -> None:
    """Emit ``warning`` at the user's line (the first frame outside pyterrier_boot)."""
    warnings.warn(warning, stacklevel=_caller_level())


def _emit(category, template, cases):
    unique = list(dict.fromkeys(cases))
    shown = ", ".join(map(str, unique[:SHOWN_CASES]))
    if len(unique) > SHOWN_CASES:
        shown += f", ... ({len(unique)} in all; the warning's .cases lists every one)"
    message = template.replace("{n}", str(len(unique))).replace("{cases}", shown)
    warnings.warn(category(message, unique), stacklevel=_caller_level())


_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CONTEXTLIB = os.path.abspath(contextlib.__file__)


def _caller_level() -> int:
    """``stacklevel`` for :func:`warnings.warn` called from :func:`_emit` or :func:`warn` that points at the first
    frame outside pyterrier_boot (the user's line), skipping contextlib's decorator frames."""
    frame, level = sys._getframe(2), 2
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not (path.startswith(_PACKAGE + os.sep) or path == _CONTEXTLIB):
            return level
        frame, level = frame.f_back, level + 1
    return level - 1
