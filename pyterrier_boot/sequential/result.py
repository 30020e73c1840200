"""What :func:`~pyterrier_boot.confidence_sequence` returns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ConfidenceSequence"]


@dataclass(frozen=True, slots=True)
class ConfidenceSequence:
    """A confidence sequence: an interval for the mean after every prefix of the topics, all of
    them holding at once with probability ``confidence_level``.

    For 1-D input the arrays have one entry per prefix (length T); for 2-D input (topics x
    columns) they are T x columns, one sequence per column.

    Attributes:
        n: 1..T, the number of topics seen.
        estimate: the running mean (of ``x``, or of ``x - y``).
        ci_low, ci_high: the sequence's ends (running intersections: ``ci_low`` never decreases,
            ``ci_high`` never increases); NaN from the topic at which the betting sequence is
            empty (every candidate mean rejected, which happens with probability at most
            ``1 - confidence_level`` when the scores do share one mean).
        pvalue: anytime-valid p-values for ``mean == null`` after each prefix (non-increasing),
            or None when no ``null`` was given.
        method: ``"betting"`` or ``"asymptotic"``.
        confidence_level, alternative, bounds, null: the options used.
        planned_n: the number of topics at which the asymptotic sequence is tightest (None for
            the betting sequence).
    """

    n: np.ndarray
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    pvalue: np.ndarray | None
    method: str
    confidence_level: float
    alternative: str
    bounds: tuple[float, float]
    null: float | None
    planned_n: int | None = None

    def frame(self) -> pd.DataFrame:
        """One row per prefix (and column, for 2-D input): ``n, estimate, ci_low, ci_high``, and
        ``pvalue`` when there is one; 2-D input adds a leading ``column`` index."""
        import pandas as pd

        columns: dict[str, Any] = {"estimate": self.estimate, "ci_low": self.ci_low, "ci_high": self.ci_high}
        if self.pvalue is not None:
            columns["pvalue"] = self.pvalue
        if self.estimate.ndim == 1:
            return pd.DataFrame({"n": self.n, **columns})
        k = self.estimate.shape[1]
        head = {"column": np.tile(np.arange(k), len(self.n)), "n": np.repeat(self.n, k)}
        return pd.DataFrame({**head, **{name: value.ravel() for name, value in columns.items()}})

    def plot(self, ax: Any = None, *, column: int | None = None) -> Any:
        """The band ``[ci_low, ci_high]`` and the running estimate against ``n`` (matplotlib,
        on ``ax`` or a new figure); ``column`` picks one sequence of 2-D input. Returns the Axes."""
        import matplotlib.pyplot as plt

        estimate, low, high = self._column(column)
        if ax is None:
            ax = plt.subplots()[1]
        level = f"{self.confidence_level:.0%}"
        band = ax.fill_between(self.n, low, high, alpha=0.3, label=f"{level} {self.method} confidence sequence")
        colour = tuple(np.asarray(band.get_facecolor(), dtype=float).reshape(-1, 4)[0, :3])  # the band colour, opaque
        ax.plot(self.n, estimate, color=colour, label="running mean")
        if self.null is not None:
            ax.axhline(self.null, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("topics")
        ax.set_ylabel("mean")
        ax.legend()
        return ax

    def _column(self, column: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        arrays = (self.estimate, self.ci_low, self.ci_high)
        if self.estimate.ndim == 1:
            if column is not None:
                raise ValueError(f"'column' applies to 2-D input; this sequence is 1-D (got column={column!r})")
            return arrays
        k = self.estimate.shape[1]
        if isinstance(column, bool) or not isinstance(column, (int, np.integer)) or not 0 <= column < k:
            raise ValueError(f"'column' must be an integer in [0, {k}) for this 2-D sequence, got {column!r}")
        return tuple(a[:, column] for a in arrays)  # type: ignore[return-value]
