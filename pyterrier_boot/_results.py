"""Shared pieces of result objects: frozen dataclasses that also unpack like tuples."""
from dataclasses import dataclass
from typing import Any, ClassVar


class TupleLike:
    """Mixin for frozen dataclasses that unpack like a tuple of their leading fields.

    ``statistic, pvalue = t_test(x, y)`` works, and ``result[1]`` is the p-value, which is what
    ``pt.Experiment(test=...)`` reads. Subclasses list the unpacked fields in ``_tuple_fields``.
    """

    __slots__ = ()
    _tuple_fields: ClassVar[tuple[str, ...]] = ()

    def __iter__(self):
        return iter(tuple(getattr(self, f) for f in self._tuple_fields))

    def __getitem__(self, index):
        return tuple(self)[index]

    def __len__(self):
        return len(self._tuple_fields)


@dataclass(frozen=True, slots=True)
class ConfidenceInterval(TupleLike):
    """A confidence interval; ``low, high = ci`` also works (as scipy's)."""

    low: Any
    high: Any
    _tuple_fields: ClassVar[tuple[str, ...]] = ("low", "high")
