"""``TestAudit``: what :func:`~pyterrier_boot.audit_tests` found, as tables, a sentence and figures.

``table()`` has one row per test (and correction), alternative and topic count: the Type I error
with its Monte Carlo standard error (for a family of systems: the family-wise error rate), the
Type III error, the power at each effect size and, for families, the false discovery rate at each
effect size. ``recommendation()`` is the sentence to quote. The null p-values of the pair
simulations are kept, so ``type_i_curve()`` and ``plot()`` show the Type I error at any level
(Urbano, Lima & Hanjalic 2019, Figures 2-3). ``save()`` writes one zip of open formats (no pickle).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._archive import (
    ArrayWriter,
    frame_from_json,
    frame_json,
    from_json,
    json_value,
    open_archive,
    read_array,
    write_archive,
)
from .goodness import GoodnessOfFit
from .rates import pair_rates

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["TestAudit", "URBANO_ALPHAS"]

#: the levels of Urbano et al.'s figures (0.001 ... 0.009, 0.01 ... 0.1)
URBANO_ALPHAS = tuple(np.round(np.concatenate([np.arange(1, 10) * 0.001, np.arange(1, 11) * 0.01]), 3))
FORMAT = "pyterrier-boot-test-audit"
VERSION = 1
_ARRAYS = ("null_pvalues", "effect_pvalues", "effect_means")
_FRAMES = ("families",)


@dataclass(frozen=True, eq=False)
class TestAudit:
    """Type I, Type III error and power of significance tests, simulated from a model of a matrix.

    Attributes:
        measure, support: the measure (None when not given) and its support in words.
        systems, n_topics_observed: the systems modelled and the topics of the data.
        topic_counts: the topic-set sizes simulated.
        alpha, alternatives, tests, corrections, effects: the settings (tests by registry name).
        n_simulations: pair simulations per topic count (and per effect; the null and the effects
            share their draws).
        n_families, family_size: family simulations per topic count and systems per family.
        n_resamples: resamples of the bootstrap and randomisation tests.
        null_pvalues: ``(topic counts, alternatives, tests, n_simulations)`` under the null.
        effect_pvalues: ``(topic counts, alternatives, tests, effects, n_simulations)``.
        effect_means: mean differences ``e - b`` of the effect simulations ``(topic counts,
            effects, n_simulations)``.
        families: the family outcomes at ``alpha``, one row per test, correction, topic count and
            effect (0 is the null): ``fwer, fdr, power, type_iii`` and their ``*_se``.
        goodness: the model against the data (:class:`~.goodness.GoodnessOfFit`).
        settings: provenance (``rng`` seed, copula choices, seconds, versions).
    """

    measure: str | None
    support: str
    systems: tuple
    n_topics_observed: int
    topic_counts: tuple
    alpha: float
    alternatives: tuple
    tests: tuple
    corrections: tuple
    effects: tuple
    n_simulations: int
    n_families: int
    family_size: int
    n_resamples: int
    null_pvalues: np.ndarray
    effect_pvalues: np.ndarray
    effect_means: np.ndarray
    families: pd.DataFrame
    goodness: GoodnessOfFit
    settings: dict

    # ----------------------------------------------------------------------------------------
    # tables

    def _pair_rows(self) -> list[dict]:
        rows = []
        for c, n in enumerate(self.topic_counts):
            for a, alternative in enumerate(self.alternatives):
                for t, test in enumerate(self.tests):
                    means = -self.effect_means[c] if alternative == "less" else self.effect_means[c]
                    rates = pair_rates(self.null_pvalues[c, a, t], self.effect_pvalues[c, a, t], means,
                                       self.alpha, alternative)
                    row = dict(test=test, correction="none", alternative=alternative, n_topics=n, systems=2,
                               alpha=self.alpha, type_i=rates["type_i"][0], type_i_se=rates["type_i"][1],
                               type_iii=rates["type_iii"][0])
                    for k, delta in enumerate(self.effects):
                        row[f"power@{delta:g}"] = rates[f"power@{k}"][0]
                    rows.append(row)
        return rows

    def _family_rows(self) -> list[dict]:
        rows = []
        for (test, correction, n), part in self.families.groupby(["test", "correction", "n_topics"], sort=False):
            null = part[part["effect"] == 0].iloc[0]
            row = dict(test=test, correction=correction, alternative="two-sided", n_topics=n,
                       systems=self.family_size, alpha=self.alpha, type_i=null["fwer"], type_i_se=null["fwer_se"],
                       type_iii=part.loc[part["effect"] > 0, "type_iii"].mean())
            for delta in self.effects:
                row[f"power@{delta:g}"] = part.loc[np.isclose(part["effect"], delta), "power"].iloc[0]
            for delta in self.effects:
                row[f"fdr@{delta:g}"] = part.loc[np.isclose(part["effect"], delta), "fdr"].iloc[0]
            rows.append(row)
        return rows

    def table(self) -> pd.DataFrame:
        """One row per test and correction, alternative and topic count (see the module docstring).

        Rows with ``systems = 2`` are the pair simulations (``type_i`` the Type I error); rows with
        ``systems = family_size`` the family simulations (``type_i`` the family-wise error rate
        under the complete null; ``fdr@<effect>`` the false discovery rate with half the family
        better by the effect). ``type_iii`` pools the effect sizes.
        """
        frame = pd.DataFrame(self._pair_rows() + self._family_rows())
        frame.attrs.update(measure=self.measure, n_simulations=self.n_simulations, n_families=self.n_families)
        return frame

    def type_i_curve(self, alphas: Any = URBANO_ALPHAS, *, n_topics: int | None = None,
                     alternative: str | None = None) -> pd.DataFrame:
        """Type I error of each test at each level in ``alphas`` (Urbano et al.'s Figures 2-3):
        one row per level, one column per test, at ``n_topics`` (default the first simulated)."""
        c, a = self._indices(n_topics, alternative)
        levels = np.asarray(alphas, dtype=float)
        p = self.null_pvalues[c, a]
        rates = {test: [(p[t] < level).mean() for level in levels] for t, test in enumerate(self.tests)}
        return pd.DataFrame({"alpha": levels, **rates})

    def power_curve(self, *, n_topics: int | None = None, alternative: str | None = None) -> pd.DataFrame:
        """Power of each test at each effect size (at ``alpha``): one row per effect."""
        alternative = self._alternative(alternative)
        table = self.table()
        rows = table[(table["correction"] == "none") & (table["systems"] == 2) & (table["alternative"] == alternative)
                     & (table["n_topics"] == self._count(n_topics))].set_index("test")
        return pd.DataFrame({test: [rows.loc[test, f"power@{d:g}"] for d in self.effects] for test in self.tests},
                            index=pd.Index(self.effects, name="effect")).reset_index()

    def _count(self, n_topics: int | None) -> int:
        if n_topics is None:
            return int(self.topic_counts[0])
        if n_topics not in self.topic_counts:
            raise ValueError(f"'n_topics' must be one of the simulated topic counts {list(self.topic_counts)}; "
                             f"got {n_topics!r}")
        return int(n_topics)

    def _alternative(self, alternative: str | None) -> str:
        return self.alternatives[0] if alternative is None else alternative

    def _indices(self, n_topics: int | None, alternative: str | None) -> tuple[int, int]:
        alternative = self._alternative(alternative)
        if alternative not in self.alternatives:
            raise ValueError(f"'alternative' must be one of the simulated {list(self.alternatives)}; "
                             f"got {alternative!r}")
        return self.topic_counts.index(self._count(n_topics)), self.alternatives.index(alternative)

    # ----------------------------------------------------------------------------------------
    # the sentence, displays, figures

    def recommendation(self, *, n_topics: int | None = None, alternative: str | None = None) -> str:
        """One sentence to quote: the tests whose Type I error is within ``alpha`` plus two
        standard errors, ranked by mean power over the effect sizes, with the settings (at
        ``n_topics``, default the first simulated, and ``alternative``, default the first)."""
        from .sentence import recommendation

        self._indices(n_topics, alternative)
        alternative = self._alternative(alternative)
        table = self.table()
        rows = table[(table["correction"] == "none") & (table["systems"] == 2) & (table["alternative"] == alternative)
                     & (table["n_topics"] == self._count(n_topics))]
        return recommendation(rows, self)

    def __repr__(self) -> str:
        return (f"TestAudit({len(self.systems)} systems x {self.n_topics_observed} topics, measure={self.measure!r}, "
                f"topic counts {list(self.topic_counts)}, {self.n_simulations:,} simulations, tests "
                f"{list(self.tests)})")

    def _repr_html_(self) -> str:
        from .display import audit_html

        return audit_html(self)

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        """The table as a LaTeX ``table`` (booktabs), the settings in the caption."""
        from .display import audit_latex

        return audit_latex(self, digits=digits, caption=caption, label=label)

    def plot(self, kind: str = "type_i", *, n_topics: int | None = None, alternative: str | None = None,
             ax: Axes | None = None) -> Axes:
        """``kind="type_i"``: Type I error against ``alpha`` per test, the diagonal marking the
        nominal rate (Urbano et al., Figures 2-3); ``kind="power"``: power against effect size."""
        from .._checks import check_choice
        from .plots import plot_power, plot_type_i

        check_choice(kind, "kind", ("type_i", "power"))
        title = f"{self.measure or 'scores'}, {self._count(n_topics)} topics, {self._alternative(alternative)}"
        if kind == "type_i":
            return plot_type_i(self.type_i_curve(n_topics=n_topics, alternative=alternative), title=title, ax=ax)
        return plot_power(self.power_curve(n_topics=n_topics, alternative=alternative), alpha=self.alpha,
                          title=title, ax=ax)

    # ----------------------------------------------------------------------------------------
    # storage

    def save(self, path: str | os.PathLike) -> Path:
        """Write the audit to one zip file (JSON document and ``.npy`` arrays; ``table.csv`` for
        any tool); :meth:`load` reads it back."""
        writer = ArrayWriter()
        document: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _ARRAYS:
                document[f.name] = writer.array(f.name, value)
            elif f.name in _FRAMES:
                document[f.name] = frame_json(value)
            elif f.name == "goodness":
                document[f.name] = {"systems": frame_json(value.systems), "pairs": frame_json(value.pairs),
                                    "joint": json_value(value.joint)}
            else:
                document[f.name] = json_value(value)
        return write_archive(Path(path), document, writer, member="audit.json",
                             texts={"table.csv": self.table().to_csv(index=False)}, what="test audit")

    @classmethod
    def load(cls, path: str | os.PathLike) -> TestAudit:
        """The audit :meth:`save` wrote."""
        with open_archive(Path(path), member="audit.json", format=FORMAT, version=VERSION,
                          what="test audit") as (archive, document):
            values: dict[str, Any] = {}
            for f in fields(cls):
                entry = document[f.name]
                if f.name in _ARRAYS:
                    values[f.name] = read_array(archive, entry)
                elif f.name in _FRAMES:
                    values[f.name] = frame_from_json(entry)
                elif f.name == "goodness":
                    values[f.name] = GoodnessOfFit(frame_from_json(entry["systems"]), frame_from_json(entry["pairs"]),
                                                   from_json(entry["joint"]))
                else:
                    value = from_json(entry)
                    values[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**values)
