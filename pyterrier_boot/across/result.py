"""What :func:`~pyterrier_boot.across_collections` returns: the figures of several collections,
for these collections and for a new one."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .average import average_effects
from .effects import Effects, effects_of
from .pooled import pooled_effects

if TYPE_CHECKING:
    import os

    from matplotlib.axes import Axes

    from .board import CollectionsBoard
    from .display import CaptionedTable
    from .effects import CollectionEffects

__all__ = ["AcrossCollections"]

#: how the pooled interval is named in captions
HKSJ = "Hartung-Knapp-Sidik-Jonkman"


@dataclass(frozen=True, eq=False)
class AcrossCollections:
    """The same systems on several test collections: per collection, the average over these
    collections, and the random-effects mean over a population of collections.

    Attributes:
        effects: each collection's means and pairwise differences with their standard errors
            (:class:`~pyterrier_boot.across.effects.CollectionEffects`).
        measure: the measure's label; labels: its label in each collection's result.
        baseline: the system the others are compared with, or None (each system's mean).
        standardize: differences over the SD of their per-topic differences (Hedges' g).
        tau2_method, hksj, prediction: the random-effects model of :meth:`pooled`.
        confidence_level: of every interval.
        results: the collections' :class:`~pyterrier_boot.ExperimentResult` as given (None for a
            collection given as runs, whose figures alone are kept, and after :meth:`load`).
    """

    effects: CollectionEffects
    measure: str
    labels: tuple
    baseline: str | None
    standardize: bool
    tau2_method: str
    hksj: bool
    confidence_level: float
    results: tuple | None = None
    prediction: str = "q-profile"

    @property
    def collections(self) -> tuple[str, ...]:
        return tuple(self.effects.collections)

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.effects.systems)

    @property
    def k(self) -> int:
        """Number of collections."""
        return len(self.effects.collections)

    @property
    def variance(self) -> str:
        """What each collection's standard error includes: ``"topics"``, ``"corpus"``, ``"topics+corpus"``
        or ``"topics+seeds"`` (systems given as several runs, ``seeds="random"``)."""
        return self.effects.variance

    @property
    def seeds(self) -> str | None:
        """``"random"`` (a new seed: its variance in ``variance``), ``"fixed"`` (these runs' average:
        not in it) with systems given as several runs, else None."""
        return self.effects.seeds

    @property
    def what(self) -> str:
        """The estimand in words: ``"mean nDCG@10"``, ``"nDCG@10 difference from BM25"`` (standardised: Hedges' g)."""
        if self.baseline is None:
            return f"mean {self.measure}"
        kind = "standardised difference (Hedges' g)" if self.standardize else "difference"
        return f"{self.measure} {kind} from {self.baseline}"

    def _effects(self) -> Effects:
        return effects_of(self.effects, baseline=self.baseline, standardize=self.standardize,
                          confidence_level=self.confidence_level)

    def _frame(self, rows: tuple, columns: dict[str, Any], variance: str) -> pd.DataFrame:
        frame = pd.DataFrame({"system": list(rows), **columns, "variance": variance})
        frame.attrs.update(measure=self.measure, baseline=self.baseline, standardize=self.standardize,
                           confidence_level=self.confidence_level, collections=list(self.collections))
        return frame

    def per_collection(self) -> pd.DataFrame:
        """One row per (collection, system): ``collection, system, estimate, se, df, ci_low,
        ci_high, n_topics, variance``: each system's mean, or its difference from the baseline, on
        that collection with its standard error and interval, as the collection's own result
        gives them (:meth:`ExperimentResult.estimates <pyterrier_boot.ExperimentResult.estimates>`)."""
        e = self._effects()
        C, R = e.estimate.shape
        frame = self._frame(tuple(np.tile(e.rows, C)), {
            "estimate": e.estimate.reshape(-1), "se": e.se.reshape(-1), "df": e.df.reshape(-1),
            "ci_low": e.ci_low.reshape(-1), "ci_high": e.ci_high.reshape(-1),
            "n_topics": np.repeat(self.effects.n_topics, R)}, self.variance)
        frame.insert(0, "collection", np.repeat(np.array(self.collections, dtype=object), R))
        return frame

    def average(self) -> pd.DataFrame:
        """The mean over **these** collections (BEIR's average), one row per system: ``system,
        estimate, se, df, ci_low, ci_high`` (and ``p-value`` of no difference, with a baseline),
        ``variance``. Its interval varies the topics within each collection (and what their
        standard errors include), never the collections (:mod:`~pyterrier_boot.across.average`)."""
        e = self._effects()
        out = average_effects(e.estimate, e.se, e.df, confidence_level=self.confidence_level)
        columns = {key: out[key] for key in ("estimate", "se", "df", "ci_low", "ci_high")}
        if self.baseline is not None:
            columns["p-value"] = out["pvalue"]
        return self._frame(e.rows, columns, self.variance)

    def pooled(self) -> pd.DataFrame:
        """The random-effects mean over a **population** of collections, one row per system:
        ``system, estimate, se, df, ci_low, ci_high, pi_low, pi_high, tau2, i2, q, q p-value, k``
        (and ``p-value`` with a baseline), ``variance``. ``pi_low, pi_high``: the prediction
        interval of the effect on a new collection; ``tau2``: the between-collection variance;
        ``i2``: its share of a collection's variance (:mod:`~pyterrier_boot.across.pooled`)."""
        e = self._effects()
        out = self.pool(e.estimate, e.se)
        columns = {"estimate": out["estimate"], "se": out["standard_error"], "df": out["df"],
                   "ci_low": out["ci_low"], "ci_high": out["ci_high"], "pi_low": out["pi_low"],
                   "pi_high": out["pi_high"], "tau2": out["tau2"], "i2": out["i2"], "q": out["q"],
                   "q p-value": out["q_pvalue"], "k": self.k}
        if self.baseline is not None:
            columns["p-value"] = out["pvalue"]
        return self._frame(e.rows, columns, f"{self.variance}+collections")

    def pool(self, estimate: Any, se: Any, *, predict: bool = True) -> dict[str, Any]:
        """This analysis' random-effects model on effects ``[collection, column]`` with their
        standard errors (:func:`~pyterrier_boot.across.pooled.pooled_effects`); without
        ``predict``, no prediction interval (NaN)."""
        return pooled_effects(estimate, se, tau2_method=self.tau2_method, hksj=self.hksj,
                              prediction=self.prediction if predict else None, confidence_level=self.confidence_level)

    def forest_table(self, system: str) -> pd.DataFrame:
        """The rows of ``system``'s forest plot: ``label, effect, ci_low, ci_high, weight, kind``,
        one per collection (``kind`` ``"collection"``, its random-effects weight), then the
        ``"average"`` and the ``"pooled"`` rows, and the ``"prediction"`` interval."""
        e = self._effects()
        if system not in e.rows:
            raise ValueError(f"'system': {system!r} is not one of {list(e.rows)}")
        r = e.rows.index(system)
        average = self.average().iloc[r]
        pooled = self.pooled().iloc[r]
        weights = self.pool(e.estimate[:, [r]], e.se[:, [r]])["weights"][:, 0]
        rows = pd.DataFrame({"label": list(self.collections), "effect": e.estimate[:, r], "ci_low": e.ci_low[:, r],
                             "ci_high": e.ci_high[:, r], "weight": weights, "kind": "collection"})
        summary = pd.DataFrame([
            {"label": "average (these collections)", "effect": average["estimate"], "ci_low": average["ci_low"],
             "ci_high": average["ci_high"], "weight": np.nan, "kind": "average"},
            {"label": "pooled (random effects)", "effect": pooled["estimate"], "ci_low": pooled["ci_low"],
             "ci_high": pooled["ci_high"], "weight": np.nan, "kind": "pooled"},
            {"label": "prediction (a new collection)", "effect": pooled["estimate"], "ci_low": pooled["pi_low"],
             "ci_high": pooled["pi_high"], "weight": np.nan, "kind": "prediction"}])
        table = pd.concat([rows, summary], ignore_index=True)
        table.attrs.update(system=system, what=self.what, tau2=pooled["tau2"], i2=pooled["i2"], k=self.k,
                           confidence_level=self.confidence_level)
        return table

    def plot_forest(self, system: str | None = None, *, ax: Axes | None = None, axes: Any = None,
                    **kwargs: Any) -> Any:
        """Forest plot (:func:`~pyterrier_boot.meta.plots.plot_forest`): one row per collection,
        the average's and the pooled diamonds, and the prediction interval. One system on ``ax``,
        or (``system`` None) a panel per system on ``axes`` (default: a new figure); returns the
        Axes, or the array of Axes."""
        from .._figures import grid
        from ..meta.plots import plot_forest

        if system is not None:
            return plot_forest(self, system=system, ax=ax, **kwargs)
        rows = self._effects().rows
        if axes is None:
            columns = min(3, len(rows))
            axes = grid(-(-len(rows) // columns), columns, panel=(4.6, 0.3 * self.k + 2.0))
        flat = np.asarray(axes, dtype=object).reshape(-1)
        for panel, name in zip(flat, rows, strict=False):
            plot_forest(self, system=name, ax=panel, **kwargs)
        for panel in flat[len(rows):]:
            panel.set_visible(False)
        return axes

    def leaderboard(self, *, which: str = "average", correction: str | None = "holm", alpha: float | None = None,
                    letters_method: str | None = None) -> CollectionsBoard:
        """The systems ranked over the collections, with rank intervals and letter groups
        (:func:`~pyterrier_boot.across.board.collections_board`): ``which="average"`` (these
        collections) or ``"pooled"`` (a population of collections)."""
        from .board import collections_board

        return collections_board(self, which=which, correction=correction, alpha=alpha,
                                 letters_method=letters_method)

    def display(self, *, digits: int = 3) -> CaptionedTable:
        """The readable table: per system the figure on each collection, the average, the pooled
        mean, the prediction interval and ``I²``, with a caption saying which question each answers
        (:func:`~pyterrier_boot.across.display.across_table`)."""
        from .display import across_table

        return across_table(self, digits=digits)

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        """:meth:`display` as a booktabs table; ``caption`` goes before the explanation."""
        return self.display(digits=digits).to_latex(caption=caption, label=label)

    def to_markdown(self, *, digits: int = 3) -> str:
        """:meth:`display` as a Markdown table, its caption below."""
        return self.display(digits=digits).to_markdown()

    def save(self, path: str | os.PathLike) -> Path:
        """Write every figure to one zip file of JSON and ``.npy`` arrays (no pickle; the format of
        :mod:`pyterrier_boot._archive`); read it back with :meth:`load`. Returns the path."""
        from .storage import save_across

        return save_across(self, Path(path))

    @classmethod
    def load(cls, path: str | os.PathLike) -> AcrossCollections:
        """Read an analysis written by :meth:`save` (its ``results`` are not kept: None)."""
        from .storage import read_across

        return cls(**read_across(Path(path)))

    def _repr_html_(self) -> str:
        return self.display()._repr_html_()

    def __repr__(self) -> str:
        return (f"AcrossCollections({len(self.systems)} systems x {self.k} collections, {self.what}; "
                f"{self.tau2_method} tau2, {'HKSJ' if self.hksj else 'normal'} interval, {self.prediction} prediction)")
