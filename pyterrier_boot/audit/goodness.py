"""Does the fitted model reproduce the user's matrix? Checks with stated tolerances.

Per system, the model's margin against the observed scores (``n`` topics, sample SD ``s``):

* mean within one standard error of the observed mean, ``s / √n``;
* SD within two standard errors of the observed SD, ``2 s / √(2(n - 1))``;
* share of zeros within ``2 √(p(1 - p)/n) + 1/n`` of the observed share ``p``.

Per pair of systems, the copula's Kendall tau against the tau of the pseudo-observations it was
fitted to, within two standard errors of tau under independence, ``2 √(2(2n + 5) / (9n(n - 1)))``.

These are sampling-error tolerances: a model inside them is no further from the data than a second
sample of topics would be. A system outside them, or more than :data:`PAIR_SHARE` of the pairs,
gives a :class:`~pyterrier_boot.FitWarning` naming them: the audit's rates are then less trustworthy
for them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._warnings import FitWarning, report

if TYPE_CHECKING:
    from .._typing import FloatArray
    from .model import ScoreModel

__all__ = ["GoodnessOfFit", "goodness_of_fit", "PAIR_SHARE"]

#: the share of pairs outside their tolerance above which the audit warns
PAIR_SHARE = 0.10


@dataclass(frozen=True, eq=False)
class GoodnessOfFit:
    """The model against the data.

    Attributes:
        systems: one row per system: ``system, margin`` (family), ``mean, model_mean, sd,
            model_sd, zeros, model_zeros``, their tolerances (``*_tolerance``) and ``ok``.
        pairs: one row per pair: ``system_a, system_b, copula, tau_observed, tau, tau_tolerance, ok``.
        joint: the joint copula's choice and AICs (empty when not fitted).
    """

    systems: pd.DataFrame
    pairs: pd.DataFrame
    joint: dict

    def summary(self) -> pd.DataFrame:
        """One row per check: how many were checked, the share within tolerance, the worst gap."""
        s, p = self.systems, self.pairs
        rows = [(check, len(s), float((np.abs(s[f"model_{check}"] - s[check]) <= s[f"{check}_tolerance"]).mean()),
                 float(np.abs(s[f"model_{check}"] - s[check]).max())) for check in ("mean", "sd", "zeros")]
        rows.append(("kendall tau (pairs)", len(p), float(p["ok"].mean()) if len(p) else np.nan,
                     float(np.abs(p["tau"] - p["tau_observed"]).max()) if len(p) else np.nan))
        return pd.DataFrame(rows, columns=["check", "checked", "within_tolerance", "largest_gap"])

    @property
    def ok(self) -> bool:
        return bool(self.systems["ok"].all() and (1 - self.pairs["ok"].mean() if len(self.pairs) else 0) <= PAIR_SHARE)


def _system_rows(model: ScoreModel, X: FloatArray) -> pd.DataFrame:
    n = X.shape[1]
    observed_sd = X.std(axis=1, ddof=1)
    zeros = (X == model.support.low).mean(axis=1)
    frame = pd.DataFrame({
        "system": list(model.systems),
        "margin": [m.family for m in model.margins],
        "mean": X.mean(axis=1), "model_mean": [m.mean() for m in model.margins],
        "sd": observed_sd, "model_sd": [m.sd() for m in model.margins],
        "zeros": zeros, "model_zeros": [m.share(model.support.low) for m in model.margins],
        "mean_tolerance": observed_sd / np.sqrt(n),
        "sd_tolerance": 2 * observed_sd / np.sqrt(2 * (n - 1)),
        "zeros_tolerance": 2 * np.sqrt(zeros * (1 - zeros) / n) + 1 / n,
    })
    frame["ok"] = np.logical_and.reduce([
        np.abs(frame[f"model_{c}"] - frame[c]) <= frame[f"{c}_tolerance"] + 1e-12 for c in ("mean", "sd", "zeros")])
    return frame


def goodness_of_fit(model: ScoreModel, X: FloatArray, *, warn: bool = True) -> GoodnessOfFit:
    """Check ``model`` against the matrix ``X`` it was fitted to (systems x topics); with ``warn``,
    a :class:`~pyterrier_boot.FitWarning` names the systems and pairs outside their tolerances."""
    n = X.shape[1]
    systems = _system_rows(model, X)
    pairs = model.pairs.table.rename(columns={"family": "copula"})[
        ["system_a", "system_b", "copula", "tau_observed", "tau"]].copy()
    pairs["tau_tolerance"] = 2 * np.sqrt(2 * (2 * n + 5) / (9 * n * (n - 1)))
    pairs["ok"] = np.abs(pairs["tau"] - pairs["tau_observed"]) <= pairs["tau_tolerance"]
    joint = {} if model.joint is None else {"kind": model.joint.kind, "aic_gaussian": model.joint.aic_gaussian,
                                            "aic_vine": model.joint.aic_vine}
    result = GoodnessOfFit(systems, pairs, joint)
    if warn:
        report(FitWarning, "the fitted model does not reproduce the scores of {n} system(s) within the stated "
               "tolerances (mean, SD or share of zeros: pt_docs/test_audit.md): {cases}; rates for pairs with "
               "them are less trustworthy", systems.loc[~systems["ok"], "system"].tolist())
        bad = pairs.loc[~pairs["ok"]]
        if len(pairs) and len(bad) / len(pairs) > PAIR_SHARE:
            report(FitWarning, "the pair copulas miss the observed Kendall tau by more than two standard errors for "
                   "{n} pair(s), more than 10% of them: {cases}",
                   [f"{a} vs {b}" for a, b in zip(bad["system_a"], bad["system_b"], strict=True)])
    return result
