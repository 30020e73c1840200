"""The cell-statistics solver of variance_decomposition against statsmodels' MixedLM on every row
(the reference), closed-form ANOVA estimates, and an independent dense-matrix REML likelihood."""
import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.variance_decomposition import variance_decomposition
from scipy import linalg
from test_meta_variance_decomposition import _anova

from pyterrier_boot._warnings import FitWarning


def _synthetic(S, Q, K, sd_topic, sd_cell, sd_resid, seed, cell_sd=None):
    rng = np.random.default_rng(seed)
    beta = np.linspace(0.25, 0.4, S)
    noise = rng.normal(0, 1, (S, Q, K)) * (sd_resid if cell_sd is None else cell_sd[..., None])
    y = beta[:, None, None] + rng.normal(0, sd_topic, (1, Q, 1)) + rng.normal(0, sd_cell, (S, Q, 1)) + noise
    s, q, k = np.meshgrid(range(S), range(Q), range(K), indexing="ij")
    return pd.DataFrame({"score": y.ravel(), "system": np.array([f"s{i}" for i in range(S)])[s.ravel()],
                         "topic": q.ravel().astype(str), "replicate": k.ravel()})


def _agree(data, rtol=2e-3, **options):
    ref = variance_decomposition(data, solver="statsmodels", **options)
    got = variance_decomposition(data, solver="cells", **options)
    assert got.solver == "cells" and ref.solver == "statsmodels" and got.model is None
    assert got.converged and ref.converged
    total = sum(v for v in ref.components.values() if np.isfinite(v))
    for c, v in ref.components.items():
        if np.isfinite(v):
            assert got.components[c] == pytest.approx(v, rel=rtol, abs=1e-4 * total), c
        else:
            assert np.isnan(got.components[c])
    np.testing.assert_allclose(got.effects["effect"], ref.effects["effect"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got.effects["standard_error"], ref.effects["standard_error"], rtol=rtol)
    assert got.reference_mean == pytest.approx(ref.reference_mean, abs=1e-6)
    # the same restricted likelihood: ours is at least as high (it maximises it), and close
    assert got.log_likelihood >= ref.log_likelihood - 1e-6
    assert got.log_likelihood == pytest.approx(ref.log_likelihood, abs=1e-3)
    pd.testing.assert_frame_equal(got.t_test, ref.t_test)
    return got, ref


@pytest.mark.parametrize("seed", range(3))
def test_homoscedastic_equals_statsmodels(seed):
    _agree(_synthetic(4, 25, 4, 0.15, 0.07, 0.05, seed))


def test_ml_equals_statsmodels():
    _agree(_synthetic(4, 25, 4, 0.15, 0.07, 0.05, 7), reml=False)


def test_heteroscedastic_equals_statsmodels():
    rng = np.random.default_rng(5)
    cell_sd = rng.choice([0.01, 0.03, 0.09], size=(4, 40))
    got, _ = _agree(_synthetic(4, 40, 6, 0.15, 0.07, None, 6, cell_sd=cell_sd), heteroscedastic=True)
    assert got.residual_variances.shape == (4, 40)


def test_unbalanced_equals_statsmodels():
    data = _synthetic(3, 30, 5, 0.12, 0.06, 0.05, 11)
    data = data.sample(frac=0.75, random_state=2)
    counts = data.groupby(["system", "topic"]).size()
    assert counts.min() >= 1 and counts.nunique() > 1
    _agree(data)


def test_one_replicate_equals_statsmodels():
    data = _synthetic(4, 30, 1, 0.15, 0.07, 0.05, 4).drop(columns="replicate")
    got, _ = _agree(data)
    assert np.isnan(got.components["system:topic"])


def test_boundary_estimates_equal_statsmodels():
    # no system-by-topic variance: REML puts it (near) 0; the ANOVA estimate can be negative
    data = _synthetic(3, 20, 3, 0.15, 0.0, 0.05, 3)
    got, ref = _agree(data, rtol=0.02)
    assert got.components["system:topic"] < 1e-4


def test_balanced_is_the_closed_form_anova():
    data = _synthetic(5, 30, 8, 0.15, 0.07, 0.05, 1)
    y = data["score"].to_numpy().reshape(5, 30, 8)
    expected, ms_st = _anova(y)
    got = variance_decomposition(data, solver="cells")
    for c, v in expected.items():
        assert got.components[c] == pytest.approx(v, rel=1e-12)
    np.testing.assert_allclose(got.effects["standard_error"], np.sqrt(2 * ms_st / (30 * 8)), rtol=1e-10)
    means = y.mean(axis=(1, 2))
    np.testing.assert_allclose(got.effects["effect"], means[1:] - means[0], rtol=1e-10)


def _dense_reml(data, variances):
    """-2 REML log-likelihood (without constants) from the dense covariance matrix of every row."""
    systems = sorted(data["system"].unique())
    topics = sorted(data["topic"].unique())
    y = data["score"].to_numpy()
    system = np.asarray(data["system"], dtype=object)
    topic = np.asarray(data["topic"], dtype=object)
    cell = np.array([f"{a}|{b}" for a, b in zip(system, topic, strict=True)], dtype=object)
    X = (system[:, None] == np.array(systems, dtype=object)[None, :]).astype(float)
    Zt = (topic[:, None] == np.array(topics, dtype=object)[None, :]).astype(float)
    Zc = (cell[:, None] == np.unique(cell)[None, :]).astype(float)
    vq, vst, ve = variances
    V = vq * Zt @ Zt.T + vst * Zc @ Zc.T + ve * np.eye(len(y))
    Vi = linalg.inv(V)
    XVX = X.T @ Vi @ X
    beta = linalg.solve(XVX, X.T @ Vi @ y)
    r = y - X @ beta
    return np.linalg.slogdet(V)[1] + np.linalg.slogdet(XVX)[1] + r @ Vi @ r


def test_criterion_equals_the_dense_likelihood():
    from pyterrier_boot.meta.variance_decomposition import _criterion

    data = _synthetic(3, 6, 3, 0.1, 0.05, 0.04, 0).sample(frac=0.8, random_state=0)
    S, Q = 3, 6
    s = pd.Index([f"s{i}" for i in range(S)]).get_indexer(data["system"])
    q = data["topic"].astype(int).to_numpy()
    y = data["score"].to_numpy()
    counts = np.zeros((S, Q))
    np.add.at(counts, (s, q), 1)
    sums = np.zeros((S, Q))
    np.add.at(sums, (s, q), y)
    means = sums / counts
    within = np.zeros((S, Q))
    np.add.at(within, (s, q), (y - means[s, q]) ** 2)
    ones = np.ones((S, Q))
    for v in [(0.01, 0.002, 0.0016), (0.0, 0.003, 0.001), (0.02, 0.0, 0.002)]:
        ours = _criterion(np.array(v), means, within, counts, ones, reml=True)[0]
        other = _criterion(np.array(v) * 1.3, means, within, counts, ones, reml=True)[0]
        dense = _dense_reml(data, v)
        dense_other = _dense_reml(data, np.array(v) * 1.3)
        # equal up to a constant (the log of the cell sizes): compare differences between two points
        assert ours - other == pytest.approx(dense - dense_other, rel=1e-9, abs=1e-9)


def test_large_replicated_data_is_fast():
    import time

    data = _synthetic(10, 50, 200, 0.15, 0.07, 0.05, 2)  # 100,000 rows
    start = time.perf_counter()
    res = variance_decomposition(data, heteroscedastic=True)
    assert time.perf_counter() - start < 5
    assert res.solver == "cells" and res.converged
    assert res.components["residual"] == pytest.approx(0.05 ** 2, rel=0.05)


def test_solver_choice():
    data = _synthetic(3, 10, 3, 0.15, 0.07, 0.05, 0)
    assert variance_decomposition(data).solver == "cells"
    assert variance_decomposition(data, maxiter=200).solver == "statsmodels"
    with pytest.raises(ValueError, match=r"'solver' must be one of 'auto', 'cells', 'statsmodels'; got 'lme4'"):
        variance_decomposition(data, solver="lme4")
    with pytest.raises(ValueError, match=r"'maxiter' and 'method' are options of statsmodels' MixedLM.fit: use them with solver='statsmodels' \(or 'auto'\)"):
        variance_decomposition(data, solver="cells", maxiter=5)


def test_cells_non_convergence_is_reported(monkeypatch):
    from scipy import optimize

    from pyterrier_boot.meta import variance_decomposition as module

    real = optimize.minimize

    def one_step(*args, **kwargs):
        kwargs["options"] = {"maxiter": 1}
        return real(*args, **kwargs)

    monkeypatch.setattr(optimize, "minimize", one_step)
    monkeypatch.setattr(module, "_stationary", lambda *a, **k: False)
    data = _synthetic(3, 20, 3, 0.15, 0.0, 0.05, 3)  # not closed form: the optimiser runs
    with pytest.warns(FitWarning, match=r"the mixed model did not converge: the optimiser did not converge \(scipy L-BFGS-B: .*\); its variance components, effects and standard errors are unreliable \(result.converged is False\). Try more replicates or topics, or solver='statsmodels'"):
        res = variance_decomposition(data, solver="cells")
    assert res.converged is False
