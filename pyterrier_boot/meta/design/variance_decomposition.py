"""Where the variance comes from: a linear mixed model of scores over topics and replicates.

Kanoulas ("Experimental design for collection-based comparative evaluation", slides "Mixed-effects
homoscedastic/heteroscedastic model"; pt_docs/methods.md, "Where the variance comes from"): the score of system ``s`` on topic ``q`` in
replicate ``k`` (a corpus image, an assessor, a user, ...) is

    y[s,q,k] = β_s + b_q + c_sq + ε[s,q,k],   b_q ~ N(0, σ_q²),  c_sq ~ N(0, σ_sq²),  ε ~ N(0, σ²)

R: ``lme(score ~ system, random = ~1 | topic/system)``. The topic variance ``σ_q²`` is what the
paired t-test removes by pairing; ``σ_sq²`` (system-by-topic) and the residual ``σ²`` (within-cell,
e.g. collection variance) are what remains; the system effects ``β_s - β_ref`` get standard errors
that account for all three.

How it is fitted with statsmodels (``statsmodels.regression.mixed_linear_model.MixedLM``, REML):
groups are topics with a random intercept (``b_q``) and one variance component whose design is the
system indicator within each topic (``c_sq``, a common variance ``σ_sq²``), i.e.
``mixedlm("score ~ C(system)", groups="topic", vc_formula={"system:topic": "0 + C(system)"})``.
Scores are centred and scaled to unit variance before fitting (estimates are transformed back), so
the optimiser and statsmodels' absolute boundary heuristic do not depend on the score scale.

Heteroscedastic model (``heteroscedastic=True``): the residual variance differs per cell,
``Var ε[s,q,k] = σ² w_sq``. statsmodels' ``MixedLM`` has no ``varIdent``/weights argument, so the
weights are plugged in: ``w_sq`` is the sample variance of the cell's replicates divided by the mean
of those variances, and every row of the response and of all design matrices (fixed, topic,
system-by-topic) is divided by ``√w_sq``. That is exactly generalised least squares with known
relative residual variances (nlme's ``varFixed``); nlme's ``varIdent`` would instead estimate the
``S x Q`` ratios jointly by likelihood. Cells whose replicates are all equal get the smallest
positive cell variance (a zero weight would be infinite precision). The plug-in needs at least 2
replicates per cell and is noisy with few (a sample variance on ``K - 1`` degrees of freedom).

With one replicate per cell ``σ_sq²`` and ``σ²`` cannot be told apart: the model fitted is then
``score ~ system + (1 | topic)`` and the residual holds both (``components["system:topic"]`` is NaN).

Two solvers maximise the same restricted likelihood (``solver=``):

* ``"cells"`` (default): the likelihood factorises into the within-cell sums of squares
  (``σ² w_sq χ²`` on ``n_sq - 1`` degrees of freedom, independent of the rest) and the cell means,
  which per topic are ``N(β, σ_q² 11ᵀ + diag(σ_sq² + σ² w_sq / n_sq))``; the inverse and
  determinant of that matrix have closed forms (Sherman-Morrison), so one evaluation costs
  ``O(Q S²)`` however many replicates there are (17 systems x 100 topics x 1,000 corpus images,
  1.7 million rows, fit in under a second). For balanced homoscedastic data whose ANOVA
  (method-of-moments) estimates are all positive these are the REML estimates (Searle, Casella &
  McCulloch 1992, §6.7) and are returned as they are; otherwise scipy's L-BFGS-B maximises the
  likelihood over the three standard deviations (bounded at 0) from the ANOVA start. The fixed
  effects are the generalised least-squares means ``(Σ_q V_q⁻¹)⁻¹ Σ_q V_q⁻¹ m_q`` with that
  covariance, as statsmodels computes them. Unbalanced designs are handled exactly too.
* ``"statsmodels"``: ``MixedLM`` on every row (the reference; tests check both agree). It scales
  with the number of rows: on 17 x 100 x K corpus-bootstrap rows, 2 s for K = 20, 10 s for
  K = 100 and 185 s for K = 1,000 (where "cells" takes 0.01, 0.03 and 0.3 s).

The plain paired t-test on the cell means (mean over replicates) against the reference system is
reported next to the model's effects (:meth:`VarianceDecompositionResult.to_frame`). For balanced
data its standard error estimates ``sqrt(2 (σ_sq² + σ²/K) / Q)``, the same quantity the model
estimates from all systems at once.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from ..._checks import check_choice, describe, is_pandas
from ..._results import TupleLike
from ..._warnings import FitWarning
from ...stats.significance import paired_t

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt
    import pandas as pd


__all__ = ["variance_decomposition", "VarianceDecompositionResult", "COMPONENTS", "SOLVERS"]

COMPONENTS = ("topic", "system:topic", "residual")
SOLVERS = ("auto", "cells", "statsmodels")
_BOUNDARY_MESSAGE = "The MLE may be on the boundary of the parameter space."


@dataclass(frozen=True, slots=True)
class VarianceDecompositionResult(TupleLike):
    """A fitted mixed model; unpacks as ``components, effects``.

    Attributes:
        components: dict ``{"topic": σ_q², "system:topic": σ_sq², "residual": σ²}`` (score units
            squared; in the heteroscedastic model ``residual`` is the mean cell residual variance).
        share: dict of each component's share of their sum.
        effects: pandas DataFrame, one row per non-reference system: ``system, effect,
            standard_error, z, p-value, ci_low, ci_high`` (Wald z, as statsmodels reports).
        reference: the reference system (``effect`` = its difference to it); reference_mean: its
            estimated mean score (the intercept).
        t_test: pandas DataFrame, the paired t-test of cell means of each system against the
            reference: ``system, difference, standard_error, t, p-value``.
        converged: False when the optimiser failed or the Hessian at the estimate is not positive
            definite (estimates and standard errors are then unreliable; a :class:`FitWarning` was
            emitted).
        fit_warnings: statsmodels' warning messages during the fit.
        boundary: names of components estimated at 0 (a legitimate estimate, but its standard
            error is not meaningful).
        residual_variances: ``(S, Q)`` residual variance per cell (heteroscedastic model), or None.
        heteroscedastic, n_systems, n_topics, n_replicates, log_likelihood: as fitted
            (``log_likelihood`` on the standardised scale, with statsmodels' conventions, whichever
            the solver).
        model: the statsmodels results object (estimates on the standardised scale), or None
            for ``solver="cells"``.
        solver: ``"cells"`` or ``"statsmodels"``, the solver used.
    """

    components: dict
    effects: Any
    share: dict
    reference: Any
    reference_mean: float
    t_test: Any
    converged: bool
    fit_warnings: tuple
    boundary: tuple
    heteroscedastic: bool
    n_systems: int
    n_topics: int
    n_replicates: int
    log_likelihood: float
    residual_variances: Any = None
    model: Any = None
    solver: str = "statsmodels"
    _tuple_fields: ClassVar[tuple[str, ...]] = ("components", "effects")

    def components_frame(self) -> pd.DataFrame:
        """Variance components as a table: ``component, variance, sd, share``."""
        import pandas as pd

        return pd.DataFrame({
            "component": list(COMPONENTS),
            "variance": [self.components[c] for c in COMPONENTS],
            "sd": [np.sqrt(self.components[c]) for c in COMPONENTS],
            "share": [self.share[c] for c in COMPONENTS],
        })

    def to_frame(self) -> pd.DataFrame:
        """System effects from the model beside the paired t-test on cell means."""
        t = self.t_test.rename(columns={"difference": "t_difference", "standard_error": "t_standard_error",
                                        "p-value": "t p-value"})
        return self.effects.merge(t, on="system", how="left")

    def difference_variance(self, n_replicates: int = 1) -> float:
        """Variance of per-topic differences between two systems whose scores average
        ``n_replicates`` replicates: ``2 (σ_sq² + σ² / n_replicates)`` (for :func:`topic_set_size`).

        With one replicate per cell in the fit (``system:topic`` not identifiable) it is
        ``2 σ²`` whatever ``n_replicates``.
        """
        if not np.isfinite(self.components["system:topic"]):
            return 2 * self.components["residual"]
        return 2 * (self.components["system:topic"] + self.components["residual"] / n_replicates)

    def _repr_html_(self):
        return self.components_frame()._repr_html_() + self.to_frame()._repr_html_()


def _vd_iv(data, score, system, topic, replicate, heteroscedastic, reference):
    if not is_pandas(data, "DataFrame"):
        raise TypeError(f"'data' must be a long DataFrame with columns {score!r}, {system!r}, {topic!r} "
                        f"(and {replicate!r}); got {type(data).__name__}")
    missing = [c for c in (score, system, topic) if c not in data.columns]
    if missing:
        raise ValueError(f"'data' lacks column(s) {missing}; it has {list(data.columns)} (name them with "
                         "score=, system=, topic=, replicate=)")
    try:
        y = data[score].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"column {score!r} must hold numeric scores") from None
    if not np.all(np.isfinite(y)):
        raise ValueError(f"column {score!r} has NaN or infinite scores")
    import pandas as pd

    systems = list(dict.fromkeys(data[system].tolist()))
    topics = list(dict.fromkeys(data[topic].tolist()))
    if len(systems) < 2:
        raise ValueError(f"'data' needs at least 2 systems, got {len(systems)}")
    if len(topics) < 3:
        raise ValueError(f"'data' needs at least 3 topics, got {len(topics)}")
    if reference is None:
        reference = systems[0]
    elif reference not in systems:
        raise ValueError(f"'reference' {reference!r} is not a system of 'data'; systems are {describe(systems)}")
    s_code = pd.Index(systems).get_indexer(data[system])
    q_code = pd.Index(topics).get_indexer(data[topic])
    counts = np.zeros((len(systems), len(topics)), int)
    np.add.at(counts, (s_code, q_code), 1)
    if (counts == 0).any():
        s, q = np.argwhere(counts == 0)[0]
        raise ValueError(f"'data' has no score for {int((counts == 0).sum())} (system, topic) cell(s), e.g. "
                         f"({systems[s]!r}, {topics[q]!r}): every system must be scored on every topic")
    if replicate in data.columns:
        if data.duplicated(subset=[system, topic, replicate]).any():
            raise ValueError(f"'data' has duplicated ({system}, {topic}, {replicate}) rows")
    elif (counts > 1).any():
        raise ValueError(f"'data' has several rows per (system, topic) cell but no {replicate!r} column "
                         "to tell the replicates apart")
    if heteroscedastic and counts.min() < 2:
        raise ValueError("heteroscedastic=True needs at least 2 replicates in every (system, topic) cell "
                         f"to estimate its residual variance; the smallest cell has {counts.min()}")
    return y, systems, topics, reference, s_code, q_code, counts


def _design(y, s_code, q_code, n_systems, ref, weights):
    """Rows sorted by topic; fixed effects, topic intercepts and system-by-topic indicators."""
    order = np.lexsort((s_code, q_code))
    y, s_code, q_code = y[order], s_code[order], q_code[order]
    scale = 1 / np.sqrt(weights[s_code, q_code]) if weights is not None else np.ones(len(y))
    others = [s for s in range(n_systems) if s != ref]
    exog = np.column_stack([np.ones(len(y))] + [(s_code == s).astype(float) for s in others])
    indicators = np.zeros((len(y), n_systems))
    indicators[np.arange(len(y)), s_code] = 1.0
    return y * scale, exog * scale[:, None], q_code, scale[:, None], indicators * scale[:, None], others


@dataclass(frozen=True)
class _CellsFit:
    components: tuple  # (topic, system:topic, residual) variances, standardised scale
    beta: np.ndarray  # GLS system means
    cov: np.ndarray  # their covariance, (Σ_q V_q⁻¹)⁻¹
    log_likelihood: float
    converged: bool
    messages: tuple


def _criterion(variances, means, within, counts, weights, reml):
    """-2 (restricted) log-likelihood, up to constants, from cell sufficient statistics.

    Topic ``q``'s cell means ``m_q`` (one per system) are ``N(β, V_q)`` with
    ``V_q = σ_q² 11ᵀ + diag(d_q)``, ``d_sq = σ_sq² + σ² w_sq / n_sq``; the within-cell sums of
    squares are independent ``σ² w_sq χ²_{n_sq - 1}``. ``V_q⁻¹ = D⁻¹ - c_q D⁻¹11ᵀD⁻¹`` with
    ``c_q = σ_q² / (1 + σ_q² Σ_s 1/d_sq)`` (Sherman-Morrison), so each evaluation costs
    ``O(Q S²)`` whatever the number of replicates. Returns ``(value, β̂, Σ_q V_q⁻¹)``.
    """
    vq, vst, ve = variances
    d = vst + ve * weights / counts
    inv = 1 / d
    s_inv = inv.sum(axis=0)
    c = vq / (1 + vq * s_inv)
    logdet = np.log(d).sum() + np.log1p(vq * s_inv).sum()
    im = inv * means
    t = im.sum(axis=0)
    H = np.diag(inv.sum(axis=1)) - (inv * c) @ inv.T
    g = im.sum(axis=1) - (inv * c) @ t
    mam = (im * means).sum() - (c * t ** 2).sum()
    from scipy import linalg

    factor = linalg.cho_factor(H)
    beta = linalg.cho_solve(factor, g)
    quad = mam - g @ beta
    scaled = ve * weights
    value = logdet + quad + ((counts - 1) * np.log(scaled)).sum() + (within / scaled).sum()
    if reml:
        value += 2 * np.log(np.diag(factor[0])).sum()
    return value, beta, H


def _moment_start(means, within, counts, weights, replicated):
    """Method-of-moments (ANOVA) estimates on the cell means; exact REML for balanced,
    homoscedastic data when all are positive."""
    S, Q = means.shape
    if replicated:
        ve = (within / weights).sum() / (counts - 1).sum()
    inter = means - means.mean(axis=1, keepdims=True) - means.mean(axis=0, keepdims=True) + means.mean()
    ms_st = (inter ** 2).sum() / ((S - 1) * (Q - 1))
    if replicated:
        vst = ms_st - ve * (weights / counts).mean()
    else:  # system:topic and residual are one component
        ve, vst = ms_st * counts.mean(), 0.0
    vq = means.mean(axis=0).var(ddof=1) - ms_st / S
    return np.array([vq, vst, ve])


def _fit_cells(means, within, counts, weights, replicated, reml):
    """REML (or ML) of the mixed model from cell means and within-cell sums of squares.

    Balanced homoscedastic REML with positive ANOVA estimates: those estimates (the exact REML
    solution). Otherwise L-BFGS-B over the standard deviations (bounded at 0) from the ANOVA start.
    """
    from scipy import optimize

    counts = counts.astype(float)
    w = np.ones_like(means) if weights is None else weights
    start = _moment_start(means, within, counts, w, replicated)
    balanced = counts.min() == counts.max()
    messages = ()
    if reml and replicated and weights is None and balanced and np.all(start > 0):
        estimate, converged = start, True
    else:
        total = max(float(means.var()), 1e-12)
        x0 = np.sqrt(np.maximum(start, 1e-3 * total))
        fixed_st = not replicated

        def objective(x):
            v = x ** 2
            if fixed_st:
                v[1] = 0.0
            return _criterion(v, means, within, counts, w, reml)[0]

        bounds = [(0, None), (0, 0) if fixed_st else (0, None), (1e-8, None)]
        if fixed_st:
            x0[1] = 0.0
        opt = optimize.minimize(objective, x0, method="L-BFGS-B", bounds=bounds,
                                options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 1000})
        estimate = opt.x ** 2
        if fixed_st:
            estimate[1] = 0.0
        # a line-search stop at the optimum is success in all but name: accept a tiny projected gradient
        converged = bool(opt.success) or _stationary(objective, opt.x, bounds)
        if not converged:
            messages = (str(opt.message),)
    value, beta, H = _criterion(estimate, means, within, counts, w, reml)
    from scipy import linalg

    cov = linalg.cho_solve(linalg.cho_factor(H), np.eye(len(beta)))
    n_total = counts.sum()
    p = len(beta)
    llf = -0.5 * (value + np.log(counts).sum() + (n_total - p if reml else n_total) * np.log(2 * np.pi))
    if weights is not None:  # statsmodels' convention: the likelihood of the rows scaled by 1/√w
        llf += 0.5 * (counts * np.log(weights)).sum()
    return _CellsFit(tuple(float(v) for v in estimate), beta, cov, float(llf), bool(converged), messages)


def _stationary(objective, x, bounds, rel=1e-5):
    """True when no bounded coordinate step of relative size ``rel`` lowers the objective."""
    base = objective(x)
    scale = max(abs(base), 1.0)
    for i, (low, high) in enumerate(bounds):
        if low == high:
            continue
        step = rel * max(abs(x[i]), 1e-3)
        for sign in (-1, 1):
            y = x.copy()
            y[i] = max(low, y[i] + sign * step) if low is not None else y[i] + sign * step
            if objective(y) < base - 1e-9 * scale:
                return False
    return True


def _fit(endog, exog, groups, exog_re, vc_design, n_topics, reml, maxiter, method):
    from statsmodels.regression.mixed_linear_model import MixedLM, VCSpec

    vc = None
    if vc_design is not None:
        mats, names = [], []
        for g in range(n_topics):
            rows = groups == g
            mats.append(vc_design[rows])
            names.append([f"s{i}" for i in range(vc_design.shape[1])])
        vc = VCSpec(["system:topic"], [names], [mats])
    model = MixedLM(endog, exog, groups, exog_re=exog_re, exog_vc=vc)
    kwargs = {"reml": reml}
    if maxiter is not None:
        kwargs["maxiter"] = maxiter
    if method is not None:
        kwargs["method"] = method
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = model.fit(**kwargs)
    messages = tuple(dict.fromkeys(str(w.message) for w in caught))
    return result, messages


def _standardised_fit(solver, y, score, cell_means, within, counts, weights, replicated, reml, ref, others,
                      s_code, q_code, S, Q, maxiter, method):
    """The fit on standardised scores (``(y - centre) / spread``) by ``solver``: ``fit, centre, spread``."""
    centre, spread = float(y.mean()), float(y.std())
    if spread == 0:
        raise ValueError(f"column {score!r} is constant: there is no variance to decompose")
    if solver == "cells":
        fit = _fit_by_cells((cell_means - centre) / spread, within / spread ** 2, counts, weights, replicated,
                            reml, ref, others)
    else:
        fit = _fit_by_statsmodels((y - centre) / spread, s_code, q_code, S, Q, ref, weights, replicated, reml,
                                  maxiter, method)
    return fit, centre, spread


def _components(fit, spread, replicated):
    """The variance components on the score scale, their shares of the total, and those on the
    boundary (zero up to ``1e-8`` of the total)."""
    var_topic, var_st, var_resid = (v * spread ** 2 for v in fit["components"])
    components = {"topic": var_topic, "system:topic": var_st if replicated else np.nan, "residual": var_resid}
    total = np.nansum(list(components.values()))
    share = {c: (v / total if np.isfinite(v) and total > 0 else np.nan) for c, v in components.items()}
    boundary = tuple(c for c, v in components.items() if np.isfinite(v) and v <= 1e-8 * max(total, 1e-300))
    return components, share, boundary


def variance_decomposition(data: Any, *, heteroscedastic: bool = False,
                           reference: str | None = None, score: str = "score",
                           system: str | int | None = "system", topic: str = "topic",
                           replicate: str = "replicate", reml: bool = True, solver: str = "auto",
                           maxiter: int | None = None, method: str | None = None) -> VarianceDecompositionResult:
    """Fit ``score ~ system + (1 | topic) + (1 | topic:system)`` and split the variance.

    Args:
        data: long DataFrame, one row per (system, topic, replicate), every system on every topic.
        heteroscedastic: a residual variance per (system, topic) cell (module docstring), or one.
        reference: the system the effects are relative to (default: the first system seen).
        score, system, topic, replicate: column names. reml: REML (default, as R's ``lme``) or ML.
        solver: ``"cells"`` (exact and fast, module docstring), ``"statsmodels"`` (``MixedLM`` on
            every row) or ``"auto"`` (default: ``"statsmodels"`` when ``maxiter``/``method`` is given).
        maxiter, method: passed to statsmodels' ``MixedLM.fit`` (``solver="statsmodels"`` only).

    Returns a VarianceDecompositionResult: ``components``, ``share``, ``effects``, ``t_test``,
    ``converged`` (False, with a :class:`~pyterrier_boot.FitWarning`, when the fit fails).

    Example:
        >>> import numpy as np, pandas as pd
        >>> rng, (S, Q, K) = np.random.default_rng(0), (3, 30, 5)
        >>> y = (np.array([0.3, 0.35, 0.4])[:, None, None] + rng.normal(0, 0.15, (1, Q, 1))
        ...      + rng.normal(0, 0.07, (S, Q, 1)) + rng.normal(0, 0.05, (S, Q, K)))
        >>> s, q, k = np.meshgrid(range(S), range(Q), range(K), indexing="ij")
        >>> data = pd.DataFrame({"score": y.ravel(), "system": s.ravel(), "topic": q.ravel(), "replicate": k.ravel()})
        >>> res = variance_decomposition(data)
        >>> {c: round(v, 4) for c, v in res.components.items()}
        {'topic': 0.0147, 'system:topic': 0.0049, 'residual': 0.0027}

    References:
        Kanoulas, E., experimental-design slides (homoscedastic and heteroscedastic mixed-effects
        models); Pinheiro & Bates (2000). Mixed-Effects Models in S and S-PLUS, §5.2.
    """
    y, systems, topics, reference, s_code, q_code, counts = _vd_iv(
        data, score, system, topic, replicate, bool(heteroscedastic), reference)
    S, Q = len(systems), len(topics)
    K = int(counts.max()) if counts.min() == counts.max() else float(counts.mean())
    ref = systems.index(reference)
    replicated = counts.min() >= 2
    solver = _check_solver(solver, maxiter, method)
    cell_means, within = _cell_sums(y, s_code * Q + q_code, counts, S, Q)
    weights = _cell_weights(within, counts) if heteroscedastic else None
    others = [s for s in range(S) if s != ref]
    fit, centre, spread = _standardised_fit(solver, y, score, cell_means, within, counts, weights, replicated, reml,
                                            ref, others, s_code, q_code, S, Q, maxiter, method)
    converged = not (fit["optimiser_failed"] or fit["hessian_bad"])
    fit_warnings = tuple(m for m in fit["messages"] if m != _BOUNDARY_MESSAGE)
    components, share, boundary = _components(fit, spread, replicated)
    var_resid = components["residual"]
    if not converged:
        _warn_not_converged(fit["optimiser_failed"], fit_warnings, solver)
    return VarianceDecompositionResult(
        components=components, share=share, reference=reference,
        effects=_effects_table([systems[s] for s in others], fit["effect"] * spread, fit["standard_error"] * spread),
        reference_mean=float(fit["reference"] * spread + centre), t_test=t_table(cell_means, systems, ref),
        converged=converged, fit_warnings=fit_warnings, boundary=boundary, heteroscedastic=bool(heteroscedastic),
        n_systems=S, n_topics=Q, n_replicates=K, log_likelihood=fit["log_likelihood"],  # type: ignore[arg-type]  # a mean when unbalanced
        residual_variances=var_resid * weights if heteroscedastic else None, model=fit["model"], solver=solver,
    )


def _check_solver(solver, maxiter, method):
    solver = check_choice(solver, "solver", SOLVERS)
    if solver == "auto":
        return "statsmodels" if (maxiter is not None or method is not None) else "cells"
    if solver == "cells" and (maxiter is not None or method is not None):
        raise ValueError("'maxiter' and 'method' are options of statsmodels' MixedLM.fit: use them with "
                         "solver='statsmodels' (or 'auto')")
    return solver


def _cell_sums(y, cell, counts, S, Q):
    """Cell means and within-cell sums of squares, (S, Q) each (bincount: fast for millions of rows)."""
    cell_means = (np.bincount(cell, weights=y, minlength=S * Q) / counts.ravel()).reshape(S, Q)
    within = np.bincount(cell, weights=(y - cell_means.ravel()[cell]) ** 2, minlength=S * Q).reshape(S, Q)
    return cell_means, within


def _cell_weights(within, counts):
    """Relative residual variance of each cell (heteroscedastic model), from its replicates."""
    cell_var = within / (counts - 1)
    positive = cell_var[cell_var > 0]
    if positive.size == 0:
        raise ValueError("heteroscedastic=True: every (system, topic) cell has identical replicates "
                         "(zero variance), so no residual variance can be estimated")
    cell_var = np.where(cell_var > 0, cell_var, positive.min())
    return cell_var / cell_var.mean()


def _fit_by_cells(cell_means, within, counts, weights, replicated, reml, ref, others):
    """The (restricted) likelihood from cell sums, on standardised scores."""
    fit = _fit_cells(cell_means, within, counts, weights, replicated, reml)
    cov = fit.cov
    diff_var = (np.diag(cov)[others] + cov[ref, ref] - 2 * cov[others, ref])
    with np.errstate(invalid="ignore"):
        standard_error = np.sqrt(diff_var)
    return dict(messages=fit.messages, optimiser_failed=not fit.converged, hessian_bad=False, model=None,
                components=fit.components, effect=fit.beta[others] - fit.beta[ref], standard_error=standard_error,
                reference=fit.beta[ref], log_likelihood=fit.log_likelihood)


def _fit_by_statsmodels(z, s_code, q_code, S, Q, ref, weights, replicated, reml, maxiter, method):
    """statsmodels' MixedLM on every row of the standardised scores ``z``."""
    endog, exog, groups, exog_re, indicators, _ = _design(z, s_code, q_code, S, ref, weights)
    model, messages = _fit(endog, exog, groups, exog_re, indicators if replicated else None, Q, reml,
                           maxiter, method)
    k_fe = exog.shape[1]
    fe = np.asarray(model.fe_params, dtype=float)
    cov = np.asarray(model.cov_params(), dtype=float)[:k_fe, :k_fe]
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.diag(cov))
    components = (float(np.asarray(model.cov_re)[0, 0]), float(model.vcomp[0]) if replicated else np.nan,
                  float(model.scale))
    return dict(messages=messages, optimiser_failed=not bool(model.converged),
                hessian_bad=any("Hessian" in m and "positive definite" in m for m in messages), model=model,
                components=components, effect=fe[1:], standard_error=se[1:], reference=fe[0],
                log_likelihood=float(model.llf))


def _warn_not_converged(optimiser_failed, fit_warnings, solver):
    reason = "the optimiser did not converge" if optimiser_failed else \
        "the Hessian at the estimate is not positive definite"
    detail = "; ".join(fit_warnings) or "no message"
    source = "statsmodels" if solver == "statsmodels" else "scipy L-BFGS-B"
    hint = ("Try more replicates or topics, maxiter=..., or method=['lbfgs'] / ['cg']"
            if solver == "statsmodels" else "Try more replicates or topics, or solver='statsmodels'")
    warnings.warn(
        f"the mixed model did not converge: {reason} ({source}: {detail}); its variance "
        f"components, effects and standard errors are unreliable (result.converged is False). {hint}",
        FitWarning, stacklevel=3)


def _effects_table(systems, effect, se_eff):
    """Each system's effect against the reference, with its Wald z-test and 95% interval."""
    import pandas as pd

    with np.errstate(divide="ignore", invalid="ignore"):
        zstat = effect / se_eff
    crit = stats.norm.ppf(0.975)
    return pd.DataFrame({
        "system": systems,
        "effect": effect,
        "standard_error": se_eff,
        "z": zstat,
        "p-value": 2 * stats.norm.sf(np.abs(zstat)),
        "ci_low": effect - crit * se_eff,
        "ci_high": effect + crit * se_eff,
    })


def t_table(scores: npt.NDArray[np.float64], systems: Sequence[str], ref: int) -> pd.DataFrame:
    """The paired t-test over topics of each system's scores (systems, topics) against the reference's;
    ``p-value`` 1 where the differences have no variance."""
    import pandas as pd

    others = [s for s in range(len(systems)) if s != ref]
    mean, se, t, p = paired_t(scores[others] - scores[ref])
    return pd.DataFrame({"system": [systems[s] for s in others], "difference": mean, "standard_error": se,
                         "t": t, "p-value": np.where(np.isnan(t), 1.0, p)},
                        columns=["system", "difference", "standard_error", "t", "p-value"])
