"""Old keyword names and positional arguments that keep working, with a DeprecationWarning.

Two decorators, used where a public function was brought in line with the names of
CONTRIBUTING.md ("One vocabulary"):

* :func:`renamed_keywords`: ``@renamed_keywords(epsilon="eps")`` accepts ``epsilon=`` as an alias
  of ``eps=``, warns, and refuses both at once;
* :func:`keyword_only`: ``@keyword_only("ax")`` on ``def plot(self, *, ax=None)`` still accepts
  ``plot(ax)`` (positional, as before), warns, and passes it on as ``ax=``.
"""
from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = ["renamed_keywords", "keyword_only"]

P = ParamSpec("P")
R = TypeVar("R")


def _warn(message: str) -> None:
    # stacklevel 3: the user's call, above the wrapper
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def renamed_keywords(**old_to_new: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword as an alias of its new name, with a DeprecationWarning."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        name = func.__qualname__

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(f"{name}() got both {new!r} and its deprecated name {old!r}; "
                                    f"pass {new!r} only")
                _warn(f"{name}(): the keyword {old!r} is deprecated; use {new!r}")
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def keyword_only(*names: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Map extra positional arguments onto the keyword-only ``names`` (in order), with a warning."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        name = func.__qualname__
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        n_positional = sum(p.kind in kinds for p in inspect.signature(func).parameters.values())

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            if len(args) > n_positional:
                extra = args[n_positional:]
                if len(extra) > len(names):
                    raise TypeError(f"{name}() takes {n_positional} positional arguments but "
                                    f"{len(args)} were given")
                moved = names[:len(extra)]
                for key, value in zip(moved, extra, strict=True):
                    if key in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument {key!r}")
                    kwargs[key] = value
                _warn(f"{name}(): passing {', '.join(moved)} positionally is deprecated; "
                      f"pass {', '.join(f'{k}=...' for k in moved)}")
                args = args[:n_positional]
            return func(*args, **kwargs)

        return wrapper

    return decorate
