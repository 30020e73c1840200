"""The pooled mean over a population of collections, and what a new collection would show.

The collections are taken as a sample from a population of test collections: collection ``c``
has its own true effect ``θ_c ~ N(θ, τ²)`` and shows ``y_c ~ N(θ_c, s_c²)``, ``s_c`` its standard
error (topics, and the corpus or seeds when its intervals include them). The random-effects
meta-analysis (:func:`~pyterrier_boot.meta.random_effects.random_effects`: REML ``τ²`` and the
Hartung-Knapp-Sidik-Jonkman interval by default) estimates ``θ`` with an interval that includes
the between-collection variance, and the prediction interval covers a new collection's ``θ_c``
(Higgins, Thompson & Spiegelhalter 2009), here by default from the Q-profile confidence
distribution of ``τ²`` (Nagashima, Noma & Furukawa 2019), which keeps its level with few
collections where the plug-in interval does not. Soboroff (2018) proposes this meta-analysis for
retrieval experiments over several test collections.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..meta.random_effects import random_effects

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["pooled_effects", "FIELDS"]

#: the figures of each row, as :class:`~pyterrier_boot.meta.random_effects.RandomEffects` names them
FIELDS = ("estimate", "standard_error", "df", "ci_low", "ci_high", "pi_low", "pi_high", "tau2", "i2", "q",
          "q_pvalue", "statistic", "pvalue")


def pooled_effects(estimate: npt.ArrayLike, se: npt.ArrayLike, *, tau2_method: str, hksj: bool, prediction: str | None,
                   confidence_level: float, alternative: str = "two-sided") -> dict[str, Any]:
    """Random effects over the first axis (collections), one meta-analysis per column: the
    :data:`FIELDS` as arrays, and ``weights`` ``[collection, column]``. A column with a standard
    error of 0 in some collection (a system identical to the other on every topic there) has
    nothing to weigh it by: its figures are NaN."""
    estimate, se = np.asarray(estimate, dtype=float), np.asarray(se, dtype=float)
    C, R = estimate.shape
    out: dict[str, Any] = {key: np.full(R, np.nan) for key in FIELDS}
    out["weights"] = np.full((C, R), np.nan)
    ok = np.all(se > 0, axis=0) & np.all(np.isfinite(se), axis=0) & np.all(np.isfinite(estimate), axis=0)
    if ok.any():
        fit = random_effects(estimate[:, ok].T, se[:, ok].T ** 2, tau2_method=tau2_method, hksj=hksj,
                             prediction=prediction, confidence_level=confidence_level, alternative=alternative)
        for key in FIELDS:
            out[key][ok] = np.broadcast_to(getattr(fit, key), (int(ok.sum()),))
        out["weights"][:, ok] = fit.weights.T
    return out
